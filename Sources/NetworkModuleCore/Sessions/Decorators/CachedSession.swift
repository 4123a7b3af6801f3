import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` that keeps `200` answers to `GET` requests in memory and answers
/// repeated requests from them as RFC 9111 allows a private cache to, and revalidates them
/// with `ETag` and `Last-Modified` when it does not. The Sessions guide (docs/sessions.md,
/// "Caching") tells every rule, RFC section by section.
///
/// ```swift
/// let session = URLSessionTransport.shared.cached(maximumBytes: 5_000_000)
/// ```
///
/// - **Stored**: a `200` to a `GET`, keyed by URL and request headers (as ``DeduplicatedSession``
///   compares them, less `Cache-Control`, `Pragma`, the conditional headers and
///   `ignoredHeaderNames`), unless it says `no-store` or `Vary: *`. `Authorization` counts, and
///   its response is kept only when it says `public`, `must-revalidate` or `s-maxage`. Bounded
///   by `maximumEntries` and `maximumBytes`, the least recently used entry first out.
/// - **Fresh** for its `max-age`, else until its `Expires`, else 10% of the time since its
///   `Last-Modified` (at most a day), less its age; `no-cache` makes it stale at once. A usable
///   response is served inside `resume()`, on the calling thread, without a call.
/// - **Revalidated** when stale, with `If-None-Match` / `If-Modified-Since`: a `304` is answered
///   with the stored `200`, its fields updated from the 304's, fresh again.
/// - **Served stale** (RFC 5861) within `stale-while-revalidate` while one background request
///   revalidates it, and within `stale-if-error` (the response's or the request's) when the
///   server fails; never with `must-revalidate` or `no-cache`. A response served from memory
///   carries its `Age` and a `Cache-Status`, which ``NetworkResponse/isStale`` reads.
/// - **Per request**: its `Cache-Control`, `Pragma: no-cache` and `cachePolicy` count;
///   `only-if-cached` answers `504` without a call when nothing usable is stored, and a request
///   with its own `If-None-Match`, `If-Modified-Since` or `Range` goes through untouched.
/// - **Unsafe methods** that succeed remove what is stored for their URL, and for their same-origin
///   `Location` and `Content-Location`.
/// - **Transfers** (downloads, requests with a progress handler) bypass the cache: never served
///   from memory, never stored.
///
/// Every resumed or cancelled task calls its completion handler exactly once. Thread-safe;
/// ``statistics`` counts hits, misses, revalidations and evictions.
public final class CachedSession: NetworkSession, TransferringSession {
    /// A snapshot of the cache's counters and size. Requests the cache does not handle
    /// (other methods, `Cache-Control: no-store`, the caller's own conditional headers) are
    /// not counted.
    public struct Statistics: Sendable, Equatable {
        /// Requests answered from the cache without waiting for a call (a stale answer while
        /// a background request revalidates it counts too).
        public var hits: Int
        /// Requests that found no usable response and were sent as they were (or, with
        /// `only-if-cached`, answered `504`).
        public var misses: Int
        /// Requests sent to revalidate a stored response: conditional ones, and the background
        /// ones of `stale-while-revalidate`.
        public var revalidations: Int
        /// Responses removed to respect `maximumEntries` or `maximumBytes`.
        public var evictions: Int
        /// The total size of the stored bodies, in bytes.
        public var bytes: Int
        /// The number of stored responses.
        public var entries: Int
    }

    struct State {
        var store: LRUStore<RequestKey, CachedResponse>
        var hits = 0
        var misses = 0
        var revalidations = 0
        var evictions = 0

        /// The keys a background request is revalidating (`stale-while-revalidate`): one at a
        /// time per key.
        var revalidatingInBackground: Set<RequestKey> = []

        /// Which ``removeAll()`` the cache is at: an answer to a request sent in an earlier
        /// generation (before a sign-out) stores nothing.
        var generation: UInt64 = 0

        /// Stores `response` for `key`, counting the evictions it causes.
        mutating func store(_ response: CachedResponse, forKey key: RequestKey) {
            evictions += store.insert(response, forKey: key, cost: response.data.count)
        }

        /// Forgets every stored response, and every request in flight: their answers store
        /// nothing, and a background revalidation may start again for what is stored next.
        mutating func removeAll() {
            store.removeAll()
            revalidatingInBackground.removeAll()
            generation &+= 1
        }

        /// The one way an answer reaches the store: records `http` (with `data`), the answer to
        /// `request` sent to revalidate `revalidating` (or to fetch, when `nil`), and returns the
        /// stored response, fresh again, for a `304`; otherwise `nil` (the answer as it came). A
        /// new `200` is stored; any other answer below `500` removes what it replaces (RFC 9111,
        /// section 4.4); an answer from an earlier `generation` changes nothing stored.
        mutating func record(
            _ data: Data?, _ http: HTTPURLResponse, forKey key: RequestKey, request: URLRequest,
            revalidating: CachedResponse?, sentAt: Date, receivedAt: Date, sentIn generation: UInt64
        ) -> CachedResponse? {
            let current = generation == self.generation
            if http.statusCode == 304, let stored = revalidating {
                guard
                    let refreshed = stored.revalidated(
                        by: http, request: request, sentAt: sentAt, receivedAt: receivedAt)
                else {
                    if current { store.removeValue(forKey: key) }
                    return stored
                }
                if current { store(refreshed, forKey: key) }
                return refreshed
            }
            guard current else { return nil }
            if let fresh = CachedResponse(
                data: data, response: http, request: request, sentAt: sentAt, receivedAt: receivedAt)
            {
                store(fresh, forKey: key)
            } else if http.statusCode != 304 && http.statusCode < 500 {
                store.removeValue(forKey: key)
            }
            return nil
        }
    }

    let wrapped: any TransferringSession
    /// The clock: tests pass their own to move time without sleeping.
    let now: @Sendable () -> Date
    let state: LockedState<State>
    private let ignoredHeaderNames: Set<String>

    /// Methods that change nothing on the server (RFC 9110, section 9.2.1); any other
    /// method invalidates what is stored for its URL when it succeeds.
    private static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]
    /// Read by the cache itself; a request with a conditional header or `Range` is passed through.
    private static let headersThatNeverCount = [
        "cache-control", "pragma", "if-none-match", "if-modified-since", "range",
    ]

    /// Creates the session; ``NetworkSession/cached(maximumBytes:maximumEntries:ignoredHeaderNames:now:)``
    /// says what each parameter is.
    init(
        wrapping session: some NetworkSession, maximumBytes: Int, maximumEntries: Int, ignoredHeaderNames: Set<String>,
        now: @escaping @Sendable () -> Date
    ) {
        self.wrapped = session.transferring
        self.now = now
        self.ignoredHeaderNames = Set(ignoredHeaderNames.map { $0.lowercased() } + Self.headersThatNeverCount)
        self.state = LockedState(State(store: LRUStore(maximumCount: maximumEntries, maximumCost: maximumBytes)))
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
    /// Requests already in flight, the cache's own background revalidations included, store
    /// nothing when they are answered: what was asked before stays out of the cache after. The
    /// sessions it wraps stop sharing their calls in flight (a ``DeduplicatedSession`` below
    /// lets go of them): a request made afterwards makes a call of its own, never joining one
    /// made before, so it is never answered with what was asked for the previous user.
    public func removeAll() {
        // The calls below are let go first, so that no request of the new generation can join
        // one of them, even one sent on another thread while this runs.
        wrapped.stopSharingCallsInFlight()
        state.withLock { $0.removeAll() }
    }

    /// Forwards to the wrapped session: the cache shares no calls (``removeAll()`` forgets what it stores).
    package func stopSharingCallsInFlight() { wrapped.stopSharingCallsInFlight() }

    /// The wrapped session's.
    package var underlyingTransport: URLSessionTransport? { wrapped.underlyingTransport }

    /// Answers a plain `GET` (redirects followed, the body in memory, no progress) from the cache
    /// when it can; anything else bypasses the cache (see "Transfers" above), and an unsafe
    /// request still invalidates what it changes.
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        let method = request.httpMethod ?? "GET"
        guard method == "GET", transfer.redirectPolicy.isFollow, !transfer.needsApplying else {
            // `only-if-cached` never calls the server, whatever else the request is.
            let directives = Self.directives(
                cacheControl: request.value(forHTTPHeaderField: "Cache-Control"),
                pragma: request.value(forHTTPHeaderField: "Pragma"), cachePolicy: request.cachePolicy)
            if directives.onlyIfCached {
                return UnsentTask(answer: Self.unsatisfiable(request), completionHandler: completionHandler)
            }
            return wrapped.transferTask(
                with: request, transfer: transfer,
                completionHandler: invalidating(for: request, completionHandler: completionHandler))
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
        let directives = Self.directives(cacheControl: cacheControl, pragma: pragma, cachePolicy: request.cachePolicy)
        guard let key, !isConditional, !directives.noStore else {
            // Neither answered from the cache nor stored; `only-if-cached` still never calls the
            // server (RFC 9111, section 5.2.1.7).
            guard !directives.onlyIfCached else {
                return UnsentTask(answer: Self.unsatisfiable(request), completionHandler: completionHandler)
            }
            return wrapped.transferTask(
                with: request, transfer: TransferOptions(recorder: transfer.recorder),
                completionHandler: completionHandler)
        }
        return CachedSessionTask(
            session: self, key: key, request: request, directives: directives, recorder: transfer.recorder,
            completionHandler: completionHandler)
    }

    /// A request's directives, from its `Cache-Control` and `Pragma` fields and its cache
    /// policy: the one reading of them, whichever path the request takes.
    private static func directives(
        cacheControl: String?, pragma: String?, cachePolicy: URLRequest.CachePolicy
    ) -> CacheControl {
        var directives =
            cacheControl == nil && pragma == nil
            ? CacheControl.none : CacheControl(cacheControl: cacheControl, pragma: pragma)
        if cachePolicy != .useProtocolCachePolicy { directives.add(cachePolicy) }
        return directives
    }

    /// The answer to a request that says `only-if-cached` when nothing stored can answer it:
    /// `504 Gateway Timeout`, from the cache, without a call (RFC 9111, section 5.2.1.7).
    static func unsatisfiable(_ request: URLRequest) -> UnsentTask.Answer {
        guard let url = request.url,
            let response = CacheStatus.Answer(url: url, statusCode: 504, httpVersion: "HTTP/1.1", headerFields: nil)
        else { return .failure(URLError(.resourceUnavailable)) }
        return .response(Data(), response)
    }

    /// Revalidates `stale` with a request of the cache's own (RFC 5861, section 3), once the
    /// caller put `key` in `revalidatingInBackground`: its answer only updates what is stored.
    /// Nobody waits for it, so it is never cancelled; a failure leaves `stale` stored.
    func revalidateInBackground(
        _ stale: CachedResponse, forKey key: RequestKey, request: URLRequest, at now: Date, in generation: UInt64
    ) {
        let outgoing = stale.hasValidators ? stale.conditionalRequest(for: request) : request
        let task = wrapped.transferTask(with: outgoing, transfer: TransferOptions()) { [self] data, response, error in
            let receivedAt = self.now()
            state.withLock { state in
                guard state.generation == generation else { return }
                state.revalidatingInBackground.remove(key)
                guard error == nil, let http = response as? HTTPURLResponse else { return }
                _ = state.record(
                    data, http, forKey: key, request: request, revalidating: stale.hasValidators ? stale : nil,
                    sentAt: now, receivedAt: receivedAt, sentIn: generation)
            }
        }
        task.resume()
    }

    /// `completionHandler`, preceded for a request with an unsafe method by the removal of the
    /// stored responses its success invalidates.
    private func invalidating(
        for request: URLRequest, completionHandler: @escaping SessionCompletionHandler
    ) -> SessionCompletionHandler {
        guard !Self.safeMethods.contains(request.httpMethod ?? "GET"), let url = request.url else {
            return completionHandler
        }
        return { [state] data, response, error in
            if let http = response as? HTTPURLResponse, (200..<400).contains(http.statusCode) {
                let urls = Self.invalidatedURLs(url, http)
                state.withLock { $0.store.removeAll { urls.contains($0.url) } }
            }
            completionHandler(data, response, error)
        }
    }
}

extension CachedSession {
    /// The URLs an unsafe request to `url` invalidates when it succeeds with `response`
    /// (RFC 9111, section 4.4): `url`, and its `Location` and `Content-Location` (resolved
    /// against `url`) when they have the same origin.
    private static func invalidatedURLs(_ url: URL, _ response: HTTPURLResponse) -> [URL] {
        var urls = [url]
        for name in ["Location", "Content-Location"] {
            guard let value = response.value(forHTTPHeaderField: name),
                let target = URL(string: value, relativeTo: url)?.absoluteURL,
                let origin = Origin(target), origin == Origin(url)
            else { continue }
            urls.append(target)
        }
        return urls
    }
}

extension NetworkSession {
    /// This session, with `200` answers to `GET` requests kept in memory and reused while
    /// fresh. See ``CachedSession``.
    ///
    /// - Parameters:
    ///   - maximumBytes: the largest total size of the stored bodies, in bytes (10 MiB by
    ///     default). A response larger than this is not stored.
    ///   - maximumEntries: the largest number of stored responses (500 by default).
    ///   - ignoredHeaderNames: request headers that do not make requests different (compared
    ///     ignoring case); by default ``DeduplicatedSession/defaultIgnoredHeaderNames``.
    ///   - now: the clock; tests pass their own to move time without sleeping.
    public func cached(
        maximumBytes: Int = 10 * 1024 * 1024, maximumEntries: Int = 500,
        ignoredHeaderNames: Set<String> = DeduplicatedSession.defaultIgnoredHeaderNames,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> CachedSession {
        CachedSession(
            wrapping: self, maximumBytes: maximumBytes, maximumEntries: maximumEntries,
            ignoredHeaderNames: ignoredHeaderNames, now: now)
    }
}
