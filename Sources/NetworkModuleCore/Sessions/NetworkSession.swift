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
/// Tests use a fake (`NetworkModuleTesting`), and session decorators wrap one session in another;
/// a session of your own is a few lines (docs/transfers.md, "A session of your own").
///
/// An implementation calls `completionHandler` exactly once per resumed task, from any thread;
/// after `cancel()` it may call it with a cancellation error or not at all (the request is
/// already complete as cancelled). The module decodes and runs the actions' hooks inside
/// `completionHandler`, so do not call it on a serial queue other tasks' callbacks wait on.
///
/// On a session of your own the module still downloads to files, streams and reports progress,
/// once the body has arrived whole; only a redirect policy other than ``RedirectPolicy/follow``
/// needs the framework's transport (such a request fails unsent, saying so).
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

    /// Stops sharing the calls now in flight: their callers still get their answer, once, and a
    /// request made from now on makes a call of its own. How ``CachedSession/removeAll()``
    /// (sign-out) keeps a later request from being answered by an earlier call, with the previous
    /// user's cookies. ``DeduplicatedSession`` lets go of its calls; a decorator
    /// forwards; any other session has nothing to do (the default).
    func stopSharingCallsInFlight()

    /// The framework's transport this session sends on, however deep the decorators; `nil` for
    /// any other session (the default). How ``BackgroundTransfers`` applies the transport's
    /// settings, credential header names and `serverTrust` to its own `URLSession`: a cache or a
    /// recorder in front of the transport must not turn pinning off.
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
