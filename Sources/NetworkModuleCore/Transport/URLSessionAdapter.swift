import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` on a plain `URLSession`: what
/// `DefaultNetworkModule(requestBuilder:session:…)` makes of `session: URLSession.shared`.
///
/// A wrapper, not a conformance of `URLSession` itself: a conformance would add a second
/// `dataTask(with:completionHandler:)` to `URLSession`, differing only in its return type, and
/// make every `URLSession.shared.dataTask(with: request) { … }` in a user's file that imports
/// the framework ambiguous, and a user's existing code must keep compiling. `package`, so that the package's tests,
/// demo and benchmarks can hand a plain `URLSession` to code that takes any ``NetworkSession``.
///
/// On Apple platforms a task is `URLSession`'s own data task. On Linux it is adapted
/// (`LinuxDataTask`) to behave as Apple's where the framework can, as the Sessions guide
/// (`docs/sessions.md`) tells: the request's timeout enforced (a deadline for the whole response
/// there, not an idle timeout; no value traps), the task created by `resume()` and a cancel
/// reported at once (a running task of a session with a `URLCache` is left to run, since
/// cancelling it can trap swift-corelibs-foundation), and libcurl's errors mapped to Apple's codes.
package struct URLSessionAdapter: TransferringSession {
    /// The session requests are sent on.
    package let urlSession: URLSession

    /// Whether the session's configuration is a background one, whose sessions run no data task
    /// (Apple's raises an exception for a completion-handler task): its requests are refused.
    let isBackground: Bool
    /// Where the platform's timings of the task made for one attempt go (``TaskMetrics``); `nil`
    /// when nobody reads them.
    private var recorder: AttemptRecorder?

    /// Wraps `urlSession`.
    package init(_ urlSession: URLSession) {
        self.urlSession = urlSession
        self.isBackground = BackgroundTransferRefusal.refusesDataTasks(urlSession.configuration)
    }

    /// Creates a data task of ``urlSession`` for `request` (adapted on Linux, see above), whose
    /// `completionHandler` runs off the session's serial delegate queue (``CompletionHandlerQueue``).
    package func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        task(with: request) { data, response, error in
            CompletionHandlerQueue.shared.call(completionHandler, data: data, response: response, error: error)
        }
    }

    /// A data task with `transfer` applied to its body once it has arrived whole; for a redirect
    /// policy other than ``RedirectPolicy/follow`` a task that sends nothing and fails with
    /// `URLError.unsupportedURL`: a completion-handler task of a `URLSession` whose delegate is
    /// not the framework's shows no redirect the framework could act on. A plain transfer whose
    /// handler is short (``TransferOptions/handlerIsShort``) is called on the delegate queue.
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        var recording = self
        recording.recorder = transfer.recorder
        guard transfer.handlerIsShort, transfer.redirectPolicy.isFollow, !transfer.needsApplying else {
            return BufferedSession(base: recording, name: "A plain URLSession").transferTask(
                with: request, transfer: transfer, completionHandler: completionHandler)
        }
        return recording.task(with: request, completionHandler: completionHandler)
    }

    /// A data task of ``urlSession`` whose `completionHandler` is called where the session calls
    /// it; on a session with a background configuration, a task that sends nothing and fails with
    /// `URLError.unsupportedURL` (Apple's background sessions raise an exception for it).
    private func task(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        if isBackground {
            return BackgroundTransferRefusal.unsentDataTask(for: request, completionHandler: completionHandler)
        }
        #if canImport(FoundationNetworking)
            return LinuxDataTask(session: urlSession, request: request, completionHandler: completionHandler)
        #else
            let task = urlSession.dataTask(with: request, completionHandler: completionHandler)
            TaskMetrics.attach(recorder, to: task)
            return URLSessionDataTaskBox(task: task)
        #endif
    }
}

#if !canImport(FoundationNetworking)
    /// A `URLSessionDataTask` as a ``NetworkSessionTask``, without a retroactive conformance of
    /// the Foundation class.
    private struct URLSessionDataTaskBox: NetworkSessionTask {
        let task: URLSessionDataTask

        func resume() { task.resume() }
        func cancel() { task.cancel() }
    }
#endif
