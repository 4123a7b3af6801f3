import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` that sends identical requests in flight at the same time only once:
/// the callers share one call of the wrapped session, and each gets its own completion with
/// the same data, response or error.
///
/// ```swift
/// let session = URLSessionTransport.shared.deduplicated()
/// ```
///
/// Two requests are identical when they have the same method, URL, body bytes, timeout, cache
/// policy and headers (names ignoring case, values exactly), apart from `ignoredHeaderNames`
/// (``defaultIgnoredHeaderNames`` by default). `Authorization` counts: requests made with
/// different credentials never share a call. Only requests whose method is in `methods` (`GET`
/// and `HEAD` by default) are shared; others, streamed bodies and transfers (downloads, requests
/// with a progress handler) go to the wrapped session as they are.
///
/// - A request joins a call only while it is in flight; after it, or after
///   ``CachedSession/removeAll()`` on a cache that wraps it (sign-out), the next makes a new call.
/// - Cancelling one caller completes it with `URLError.cancelled` at once and leaves the call
///   running for the others; when every caller has cancelled, the call is cancelled.
/// - Every resumed or cancelled task calls its completion handler exactly once.
///
/// Thread-safe. ``statistics`` counts calls and joined requests.
public final class DeduplicatedSession: NetworkSession, TransferringSession {
    /// Headers that differ on every request without changing what it asks for:
    /// `X-Request-ID`, `X-Correlation-ID`, `traceparent` and `tracestate`. Add yours with
    /// `defaultIgnoredHeaderNames.union([...])`.
    public static let defaultIgnoredHeaderNames: Set<String> = [
        "X-Request-ID", "X-Correlation-ID", "traceparent", "tracestate",
    ]

    /// A snapshot of the session's counters.
    public struct Statistics: Sendable, Equatable {
        /// Calls made to the wrapped session for requests that could be shared.
        public var calls: Int
        /// Requests that joined a call already in flight instead of making their own.
        public var joined: Int
        /// Shared calls in flight now.
        public var callsInFlight: Int
    }

    struct State {
        /// The calls a request can join, by key.
        var calls: [RequestKey: DeduplicatedCall] = [:]
        /// The calls in flight that no request can join any more (``stopSharingCallsInFlight()``):
        /// their callers still wait for them.
        var detached: Set<ObjectIdentifier> = []
        var callCount = 0
        var joinedCount = 0

        /// Takes `call`, which has just ended, out of the table, unless another call has taken
        /// its key since it was detached: that one is still in flight and stays joinable.
        mutating func end(_ call: DeduplicatedCall) {
            if calls[call.key] === call {
                calls[call.key] = nil
            } else {
                detached.remove(ObjectIdentifier(call))
            }
        }

        /// Makes every call in flight unjoinable; each stays in flight for its callers.
        mutating func detachAll() {
            for call in calls.values { detached.insert(ObjectIdentifier(call)) }
            calls.removeAll()
        }
    }

    let wrapped: any TransferringSession
    let state = LockedState(State())
    /// The shared methods, uppercase.
    let methods: Set<String>
    /// The ignored header names, lowercased.
    let ignoredHeaderNames: Set<String>

    /// Creates the session; ``NetworkSession/deduplicated(methods:ignoredHeaderNames:)`` says what
    /// each parameter is.
    init(
        wrapping session: some NetworkSession, methods: Set<HTTPMethod>, ignoredHeaderNames: Set<String>
    ) {
        self.wrapped = session.transferring
        self.methods = Set(methods.map(\.rawValue))
        self.ignoredHeaderNames = Set(ignoredHeaderNames.map { $0.lowercased() })
    }

    /// The counters, now.
    public var statistics: Statistics {
        state.withLock {
            Statistics(
                calls: $0.callCount, joined: $0.joinedCount, callsInFlight: $0.calls.count + $0.detached.count)
        }
    }

    /// Lets go of the calls in flight: their callers still get their answers, once, and the next
    /// request makes a new call even when it is identical to one of them. Then forwards to the
    /// wrapped session, so that nothing below shares them either.
    package func stopSharingCallsInFlight() {
        state.withLock { $0.detachAll() }
        wrapped.stopSharingCallsInFlight()
    }

    /// The wrapped session's.
    package var underlyingTransport: URLSessionTransport? { wrapped.underlyingTransport }

    /// Shares a call with identical requests in flight, for a plain request (redirects followed,
    /// the body in memory, no progress); anything else gets the wrapped session's own task: two
    /// callers' redirect policies cannot be told apart, and each transfer has its own file.
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        guard transfer.redirectPolicy.isFollow, !transfer.needsApplying, methods.contains(request.httpMethod ?? "GET"),
            let key = RequestKey(request, ignoringHeaderNames: ignoredHeaderNames, includingLoadOptions: true)
        else {
            return wrapped.transferTask(with: request, transfer: transfer, completionHandler: completionHandler)
        }
        return DeduplicatedSessionTask(
            session: self, key: key, request: request, recorder: transfer.recorder,
            completionHandler: completionHandler)
    }
}

extension NetworkSession {
    /// This session, with identical requests in flight at the same time sent once and
    /// shared. See ``DeduplicatedSession``.
    ///
    /// - Parameters:
    ///   - methods: the methods whose requests are shared. Share only methods that are safe to
    ///     answer once for several callers: `GET` and `HEAD` by default.
    ///   - ignoredHeaderNames: headers that do not make requests different (compared ignoring
    ///     case); ``DeduplicatedSession/defaultIgnoredHeaderNames`` by default.
    public func deduplicated(
        methods: Set<HTTPMethod> = [.get, .head],
        ignoredHeaderNames: Set<String> = DeduplicatedSession.defaultIgnoredHeaderNames
    ) -> DeduplicatedSession {
        DeduplicatedSession(wrapping: self, methods: methods, ignoredHeaderNames: ignoredHeaderNames)
    }
}
