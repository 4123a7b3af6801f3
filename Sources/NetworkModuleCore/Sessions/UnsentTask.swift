import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task that is never sent: it fails with `error` when resumed, or reports cancellation if
/// cancelled first; either way once.
final class UnsentTask: NetworkSessionTask {
    let error: URLError
    /// The completion handler until the outcome is reported, then `nil`.
    let completionHandler: LockedState<(@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?>

    init(error: URLError, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) {
        self.error = error
        self.completionHandler = LockedState(completionHandler)
    }

    func resume() { report(error) }

    func cancel() { report(URLError(.cancelled)) }

    private func report(_ error: URLError) {
        let handler = completionHandler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        handler?(nil, nil, error)
    }
}
