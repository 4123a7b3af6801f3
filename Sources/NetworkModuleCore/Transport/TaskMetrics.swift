import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keeps the platform's timings of one `URLSessionTask` in an ``AttemptRecorder``: the task's own
/// delegate, set only on a task whose attempt has a recorder, so that `URLSession` collects
/// `URLSessionTaskMetrics` for no other task. Used by ``URLSessionTransport`` and a plain
/// `URLSession` (``URLSessionAdapter``) alike.
///
/// Apple platforms from iOS 15, macOS 12, tvOS 15 and watchOS 8 (a task's own delegate);
/// swift-corelibs-foundation never reports metrics, so on Linux nothing is attached.
enum TaskMetrics {
    /// Whether the platform collects them at all.
    #if canImport(FoundationNetworking)
        static let areCollected = false
    #else
        static let areCollected = true
    #endif

    /// Makes `task` report its metrics to `recorder`, where the platform can.
    static func attach(_ recorder: AttemptRecorder?, to task: URLSessionTask) {
        #if !canImport(FoundationNetworking)
            guard let recorder, #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) else { return }
            task.delegate = MetricsTaskDelegate(recorder: recorder)
        #endif
    }
}

#if !canImport(FoundationNetworking)
    /// The delegate of one task, there only to keep the platform's timings: `URLSession` calls it
    /// before the task's completion (its handler, or the session delegate's
    /// `didCompleteWithError`). They then go to the session's delegate too, if it takes them:
    /// `URLSession` would otherwise call only the task's, and an app's own metrics would stop.
    private final class MetricsTaskDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        let recorder: AttemptRecorder

        init(recorder: AttemptRecorder) {
            self.recorder = recorder
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics)
        {
            recorder.record(phases: RequestPhases(metrics))
            guard let sessionDelegate = session.delegate as? URLSessionTaskDelegate else { return }
            let forward: ((URLSession, URLSessionTask, URLSessionTaskMetrics) -> Void)? =
                sessionDelegate.urlSession(_:task:didFinishCollecting:)
            forward?(session, task, metrics)
        }
    }
#endif
