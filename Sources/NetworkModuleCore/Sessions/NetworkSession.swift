import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one seam between the framework and the transport.
///
/// ``URLSessionTransport`` is the framework's implementation; ``DefaultNetworkModule`` also
/// takes a plain `URLSession`, which it wraps (`URLSession` itself does not conform, so that
/// users' own `URLSession.shared.dataTask(with:completionHandler:)` calls stay unambiguous).
/// Tests use a fake (see `NetworkModuleTesting`), and session decorators wrap one session in
/// another. An implementation must call `completionHandler`
/// exactly once per task that is resumed, from any thread; after `cancel()` it may call it
/// with a cancellation error or not at all, as the framework has already completed the
/// request as cancelled. The module runs the actions' hooks and `performAndDecode`'s decoding
/// inside `completionHandler`, so call it where it may take a while: not on a serial queue
/// that other tasks' callbacks wait on (the framework's own sessions call it off `URLSession`'s
/// delegate queue).
public protocol NetworkSession: Sendable {
    /// Creates a task that sends `request` when resumed and reports the outcome to
    /// `completionHandler`.
    func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask
}

/// A task created by a ``NetworkSession``: enough to start and stop it, so that fakes need
/// no `URLSessionDataTask` subclass.
public protocol NetworkSessionTask: Sendable {
    /// Starts the task. Does nothing if the task was cancelled or already started.
    func resume()
    /// Cancels the task.
    ///
    /// Safe at any moment, and the framework relies on it: before `resume()` (the task then
    /// never starts, and lets go of its completion handler; the decorators cancel a task they
    /// no longer want instead of leaving it unresumed), while it runs, after it completed,
    /// and more than once.
    func cancel()
}
