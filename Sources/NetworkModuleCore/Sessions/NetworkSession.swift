import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The completion handler of ``NetworkSession/dataTask(with:completionHandler:)``, as the
/// framework stores and calls it.
package typealias SessionCompletionHandler = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

/// The one seam between the framework and the transport.
///
/// ``URLSessionTransport`` is the framework's implementation; ``DefaultNetworkModule`` also
/// takes a plain `URLSession`, which it wraps (`URLSession` itself does not conform, so that
/// users' own `URLSession.shared.dataTask(with:completionHandler:)` calls stay unambiguous).
/// Tests use a fake (see `NetworkModuleTesting`), and session decorators wrap one session in
/// another. One requirement: a fake is a few lines (see `docs/transfers.md`, "A session of
/// your own"). An implementation must call `completionHandler` exactly once per task that is
/// resumed, from any thread; after `cancel()` it may call it
/// with a cancellation error or not at all, as the framework has already completed the
/// request as cancelled. The module runs the actions' hooks and `performAndDecode`'s decoding
/// inside `completionHandler`, so call it where it may take a while: not on a serial queue
/// that other tasks' callbacks wait on (the framework's own sessions call it off `URLSession`'s
/// delegate queue).
///
/// On a session of your own the module still downloads to files, streams and reports progress,
/// from the body once it has arrived whole; only a redirect policy other than
/// ``RedirectPolicy/follow`` needs the framework's transport (such a request fails without being
/// sent, saying so). The framework's transport and decorators stream bodies as they arrive.
public protocol NetworkSession: Sendable {
    /// Creates a task that sends `request` when resumed and reports the outcome to
    /// `completionHandler`.
    func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask
}

/// A session that applies a ``TransferOptions`` itself: its redirect policy, its destination and
/// its progress. The framework's transport, its decorators and the testing library's sessions
/// are; a user's session need not be (see ``NetworkSession/transferring``).
package protocol TransferringSession: NetworkSession {
    /// Creates a task that sends `request` when resumed, as `transfer` says, and reports the
    /// outcome to `completionHandler`.
    func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask

    /// Stops sharing the calls now in flight: the callers already waiting for such a call still
    /// get its answer, once, and a request made from now on never joins it, but makes a call of
    /// its own. How ``CachedSession/removeAll()`` (sign-out) makes sure that no request made after
    /// it is answered by a call made before it, with the previous user's cookies. A session that
    /// shares calls (``DeduplicatedSession``) lets go of them; a decorator forwards it to the
    /// session it wraps; any other session has nothing to do (the default).
    func stopSharingCallsInFlight()

    /// The framework's transport that this session sends on: the transport itself, or the one a
    /// decorator wraps, however deep; `nil` for any other session (the default). How a part of
    /// the framework that makes its own `URLSession` (``BackgroundTransfers``) applies the
    /// transport's settings, its credential header names and its `serverTrust`, to that session
    /// too: a cache or a recorder in front of the transport must not turn pinning off. Each
    /// decorator says what it wraps, as it does for ``stopSharingCallsInFlight()``; a session of
    /// the app's own cannot, so what it sends on stays unknown.
    var underlyingTransport: URLSessionTransport? { get }
}

extension TransferringSession {
    /// Nothing to do: a session that neither shares calls nor wraps a session.
    package func stopSharingCallsInFlight() {}

    /// None: a session that neither is the transport nor wraps a session.
    package var underlyingTransport: URLSessionTransport? { nil }

    /// Creates a task that sends `request` when resumed as a plain transfer: redirects followed,
    /// the body in memory, nobody told of progress. How every framework session answers
    /// ``NetworkSession/dataTask(with:completionHandler:)``: it has one way to send.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        transferTask(with: request, transfer: TransferOptions(), completionHandler: completionHandler)
    }
}

extension NetworkSession {
    /// This session as the framework sends on it: itself when it is a ``TransferringSession``;
    /// otherwise wrapped in a ``BufferedSession``, which applies transfers to the body once it has
    /// arrived whole. Worked out once, where a module or a decorator is made, not per request.
    package var transferring: any TransferringSession {
        (self as? any TransferringSession) ?? BufferedSession(base: self, name: "\(type(of: self))")
    }
}
