import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task that is never sent: it fails with `error` when resumed, or reports cancellation if
/// cancelled first; either way once.
final class UnsentTask: NetworkSessionTask {
    let error: URLError
    /// Nothing ever runs for it.
    private let lifecycle: LockedState<SessionTaskLifecycle<Never>>

    init(error: URLError, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) {
        self.error = error
        self.lifecycle = LockedState(SessionTaskLifecycle(handler: completionHandler))
    }

    func resume() { report(error) }

    func cancel() { report(URLError(.cancelled)) }

    private func report(_ error: URLError) {
        lifecycle.withLock { $0.finish() }?.handler(nil, nil, error)
    }
}
