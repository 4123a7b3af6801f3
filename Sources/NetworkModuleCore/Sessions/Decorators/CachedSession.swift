import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` that keeps `200` answers to `GET` requests in memory and answers
/// repeated requests from them while they are fresh, following `Cache-Control`, and
/// revalidates them with `ETag` and `Last-Modified` when they are not.
///
/// ```swift
/// let session = URLSessionTransport.shared.cached(.init(maximumBytes: 5_000_000, timeToLive: 30))
/// ```
///
/// **What is stored.** A `200` answer to a `GET`, keyed by URL and request headers (as
/// ``DeduplicatedSession`` compares them; `Cache-Control`, `Pragma` and the conditional
/// headers do not count, and neither do ``Configuration/ignoredHeaderNames``), unless the
/// response says `Cache-Control: no-store` or `Vary: *`. `Authorization` counts, so users do
/// not see each other's responses. The cache is bounded by ``Configuration/maximumEntries``
/// and by ``Configuration/maximumBytes`` of bodies: the least recently used entry goes first.
///
/// **Freshness.** A response is fresh for its `max-age` (less its `Age`), or for
/// ``Configuration/timeToLive`` when it has none; `no-cache` makes it stale at once, so it is
/// revalidated every time. `Expires` is not read. A fresh response is served without a
/// call, inside `resume()`, on the calling thread.
///
/// **Revalidation.** A stale response with an `ETag` or `Last-Modified` is revalidated: the
/// request goes out with `If-None-Match` / `If-Modified-Since`, and a `304 Not Modified` is
/// answered with the stored `200` and its body, fresh again. A stale response without
/// validators is dropped and the request goes out as it is.
///
/// **Per request.** A request with `Cache-Control: no-store` bypasses the cache, in both
/// directions. `Cache-Control: no-cache` (or `Pragma: no-cache`) or `max-age=0` revalidates
/// (or fetches) instead of using the stored response, and stores the new one;
/// `max-age=N` accepts a stored response only up to `N` seconds old. A request with its own
/// `If-None-Match`, `If-Modified-Since` or `Range` goes to the wrapped session untouched.
///
/// **Unsafe methods.** A successful `POST`, `PUT`, `PATCH` or `DELETE` removes the stored
/// responses for its URL.
///
/// Every resumed or cancelled task calls its completion handler exactly once. Thread-safe;
/// ``statistics`` counts hits, misses, revalidations and evictions.
public final class CachedSession: NetworkSession {
    /// The bounds and clock of the cache.
    public struct Configuration: Sendable {
        /// The largest total size of the stored bodies, in bytes (10 MiB by default). A
        /// response larger than this is not stored.
        public var maximumBytes: Int
        /// The largest number of stored responses (500 by default).
        public var maximumEntries: Int
        /// How long a response without `max-age` stays fresh, in seconds (60 by default).
        public var timeToLive: TimeInterval
        /// Request headers that do not make requests different (compared ignoring case);
        /// by default ``DeduplicatedSession/Configuration/defaultIgnoredHeaderNames``.
        public var ignoredHeaderNames: Set<String>
        /// The clock: tests pass their own to move time without sleeping.
        public var now: @Sendable () -> Date

        /// Creates a configuration.
        public init(
            maximumBytes: Int = 10 * 1024 * 1024,
            maximumEntries: Int = 500,
            timeToLive: TimeInterval = 60,
            ignoredHeaderNames: Set<String> = DeduplicatedSession.Configuration.defaultIgnoredHeaderNames,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.maximumBytes = maximumBytes
            self.maximumEntries = maximumEntries
            self.timeToLive = timeToLive
            self.ignoredHeaderNames = ignoredHeaderNames
            self.now = now
        }
    }

    /// A snapshot of the cache's counters and size. Requests the cache does not handle
    /// (other methods, `Cache-Control: no-store`, the caller's own conditional headers) are
    /// not counted.
    public struct Statistics: Sendable, Equatable {
        /// Requests answered from the cache without a call.
        public var hits: Int
        /// Requests that found no usable response and were sent as they were.
        public var misses: Int
        /// Conditional requests sent to revalidate a stored response.
        public var revalidations: Int
        /// Responses removed to respect ``Configuration/maximumEntries`` or
        /// ``Configuration/maximumBytes``.
        public var evictions: Int
        /// The total size of the stored bodies, in bytes.
        public var bytes: Int
        /// The number of stored responses.
        public var entries: Int

        /// Creates a snapshot, for comparing with ``CachedSession/statistics`` in tests.
        public init(hits: Int, misses: Int, revalidations: Int, evictions: Int, bytes: Int, entries: Int) {
            self.hits = hits
            self.misses = misses
            self.revalidations = revalidations
            self.evictions = evictions
            self.bytes = bytes
            self.entries = entries
        }
    }

    struct State {
        var store: LRUStore<RequestKey, CachedResponse>
        var hits = 0
        var misses = 0
        var revalidations = 0
        var evictions = 0

        /// Stores `response` for `key`, counting the evictions it causes.
        mutating func store(_ response: CachedResponse, forKey key: RequestKey) {
            evictions += store.insert(response, forKey: key, cost: response.data.count)
        }
    }

    /// The configuration the session was created with.
    public let configuration: Configuration

    let wrapped: any NetworkSession
    let state: LockedState<State>
    private let ignoredHeaderNames: Set<String>

    private static let unsafeMethods: Set<String> = ["POST", "PUT", "PATCH", "DELETE"]
    /// Read by the cache itself; a request with a conditional header or `Range` is passed through.
    private static let headersThatNeverCount = [
        "cache-control", "pragma", "if-none-match", "if-modified-since", "range",
    ]

    /// Creates a caching session around `session`.
    public init(wrapping session: some NetworkSession, configuration: Configuration = Configuration()) {
        self.wrapped = session
        self.configuration = configuration
        self.ignoredHeaderNames = Set(
            configuration.ignoredHeaderNames.map { $0.lowercased() } + Self.headersThatNeverCount)
        self.state = LockedState(
            State(store: LRUStore(maximumCount: configuration.maximumEntries, maximumCost: configuration.maximumBytes)))
    }

    /// The counters and size of the cache, now.
    public var statistics: Statistics {
        state.withLock {
            Statistics(
                hits: $0.hits, misses: $0.misses, revalidations: $0.revalidations, evictions: $0.evictions,
                bytes: $0.store.totalCost, entries: $0.store.count)
        }
    }

    /// Removes every stored response (the counters stay), for example when the user signs out.
    public func removeAll() {
        state.withLock { $0.store.removeAll() }
    }

    /// Creates a task that answers from the cache when it can and asks the wrapped session
    /// otherwise; a request the cache does not handle gets the wrapped session's own task.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        let method = request.httpMethod ?? "GET"
        guard method == "GET" else {
            guard Self.unsafeMethods.contains(method), let url = request.url else {
                return wrapped.dataTask(with: request, completionHandler: completionHandler)
            }
            return wrapped.dataTask(with: request) { [state] data, response, error in
                if let status = (response as? HTTPURLResponse)?.statusCode, (200..<400).contains(status) {
                    state.withLock { $0.store.removeAll { $0.url == url } }
                }
                completionHandler(data, response, error)
            }
        }
        var cacheControl: String?
        var pragma: String?
        var isConditional = false
        let key = RequestKey(request, ignoringHeaderNames: ignoredHeaderNames) { name, value in
            switch name {
            case "cache-control": cacheControl = value
            case "pragma": pragma = value
            case "if-none-match", "if-modified-since", "range": isConditional = true
            default: break
            }
        }
        let directives =
            cacheControl == nil && pragma == nil
            ? CacheControl.none : CacheControl(cacheControl: cacheControl, pragma: pragma)
        guard let key, !isConditional, !directives.noStore else {
            return wrapped.dataTask(with: request, completionHandler: completionHandler)
        }
        return CachedSessionTask(
            session: self, key: key, request: request, directives: directives, completionHandler: completionHandler)
    }
}

extension NetworkSession {
    /// This session, with `200` answers to `GET` requests kept in memory and reused while
    /// fresh. See ``CachedSession``.
    public func cached(_ configuration: CachedSession.Configuration = CachedSession.Configuration()) -> CachedSession {
        CachedSession(wrapping: self, configuration: configuration)
    }
}
