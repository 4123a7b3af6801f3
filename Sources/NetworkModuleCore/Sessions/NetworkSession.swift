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

    /// Creates a task that sends `request` when resumed, treats the redirects it meets as
    /// `redirectPolicy` says, and reports the outcome to `completionHandler`.
    ///
    /// The module calls this method for every request. Its default implementation calls
    /// ``dataTask(with:completionHandler:)`` for ``RedirectPolicy/follow``; for any other
    /// policy it returns a task that sends nothing and fails with `URLError.unsupportedURL`,
    /// whose message says that the session cannot apply the policy, so that a policy is never
    /// silently ignored. A session that can apply policies (a transport, or a decorator that
    /// passes the policy on to the session it wraps) implements this method.
    func dataTask(
        with request: URLRequest, redirectPolicy: RedirectPolicy,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask

    /// Creates a task that sends `request` when resumed, as `transfer` says: with its redirect
    /// policy, its body written where ``SessionTransfer/destination`` says, and its progress
    /// reported to ``SessionTransfer/progress``.
    ///
    /// The module calls this method for downloads, streams and requests with a progress handler.
    /// Its default implementation runs ``dataTask(with:redirectPolicy:completionHandler:)`` and,
    /// when the body has arrived whole, writes it where the transfer says (a stream gets it as one
    /// chunk) and reports the final progress: right for fakes and for sessions that hold bodies in memory anyway, such as the
    /// decorators. ``URLSessionTransport`` implements it, streaming bodies to disk and reporting
    /// progress as the bytes move.
    func transferTask(
        with request: URLRequest, transfer: SessionTransfer,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask
}

extension NetworkSession {
    /// ``dataTask(with:completionHandler:)`` for ``RedirectPolicy/follow``; for any other policy,
    /// a task that sends nothing and fails with `URLError.unsupportedURL` (see the
    /// requirement).
    public func dataTask(
        with request: URLRequest, redirectPolicy: RedirectPolicy,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        if redirectPolicy.isFollow {
            return dataTask(with: request, completionHandler: completionHandler)
        }
        return UnsentTask(
            error: RedirectPolicy.unsupportedError(by: "\(type(of: self))", url: request.url),
            completionHandler: completionHandler)
    }

    /// ``dataTask(with:redirectPolicy:completionHandler:)``, with the body written where
    /// `transfer` says and the final progress reported once it has arrived whole (see the
    /// requirement).
    public func transferTask(
        with request: URLRequest, transfer: SessionTransfer,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        BufferedTransfer.task(on: self, with: request, transfer: transfer, completionHandler: completionHandler)
    }
}
