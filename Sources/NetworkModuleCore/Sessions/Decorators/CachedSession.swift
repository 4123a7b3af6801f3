import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` that keeps `200` answers to `GET` requests in memory and answers
/// repeated requests from them as RFC 9111 allows a private cache to, and revalidates them
/// with `ETag` and `Last-Modified` when it does not.
///
/// ```swift
/// let session = URLSessionTransport.shared.cached(maximumBytes: 5_000_000)
/// ```
///
/// **What is stored.** A `200` answer to a `GET`, keyed by URL and request headers (as
/// ``DeduplicatedSession`` compares them; `Cache-Control`, `Pragma` and the conditional
/// headers do not count, and neither do `ignoredHeaderNames`), unless the response says
/// `Cache-Control: no-store` or `Vary: *`. `Authorization` counts, so users do not see each
/// other's responses, and a response to a request with `Authorization` is kept only when it says
/// `public`, `must-revalidate` or `s-maxage`. A response whose `Vary` names a header is used only
/// for requests with the same values of that header. The cache is bounded by `maximumEntries`
/// and by `maximumBytes` of bodies: the least recently used entry goes first.
///
/// **Freshness.** A response is fresh for its `max-age`, else until its `Expires` (measured
/// from its `Date`), else, with a `Last-Modified`, for 10% of the time since then (at most a
/// day), less its age (its `Age` and the time it has been stored). A response with none of
/// these is only kept to be revalidated. `no-cache` makes it stale at once, so it is
/// revalidated every time. A usable response is served without a call, inside `resume()`, on
/// the calling thread.
///
/// **Revalidation.** A stale response with an `ETag` or `Last-Modified` is revalidated: the
/// request goes out with `If-None-Match` / `If-Modified-Since`, and a `304 Not Modified` is
/// answered with the stored `200`, its header fields updated from the 304's, fresh again: its
/// age is the 304's (`Date` and `Age` are the 304's own, or the time it arrived and 0).
///
/// **Serving stale** (RFC 5861). A response with `stale-while-revalidate=N` answers at once
/// for N seconds past its freshness, while one background request revalidates it. When the
/// server fails (a transport error other than a cancellation, or a `500`, `502`, `503` or
/// `504`), a stored response within the `stale-if-error=N` of the response, or of the request
/// (a request's opt-in), answers instead. A response with `must-revalidate` or `no-cache`, and
/// a request that reloads, never get a stale response this way; a request with `only-if-cached`
/// gets the stale answer without the background request. Every response served from memory
/// carries its `Age` and a `Cache-Status` (RFC 9211), which ``NetworkResponse/isStale`` reads
/// (only on a response this cache made: a server's `Cache-Status` does not count).
///
/// **Per request.** The request's `Cache-Control` (`no-store`, `no-cache`, `max-age`,
/// `max-stale`, `min-fresh`, `only-if-cached`, `stale-if-error`), or `Pragma: no-cache` without it, and its
/// `cachePolicy`: `.reloadIgnoringLocalCacheData` fetches without using or revalidating the
/// stored response, `.reloadRevalidatingCacheData` is `no-cache`, `.returnCacheDataElseLoad`
/// is `max-stale`, and `.returnCacheDataDontLoad` is `max-stale` with `only-if-cached`, which
/// answers `504 Gateway Timeout` without a call when nothing usable is stored. A stale
/// response with `must-revalidate` is never served stale. A request with its own
/// `If-None-Match`, `If-Modified-Since` or `Range` goes to the wrapped session untouched.
///
/// **Unsafe methods.** When a request with a method other than `GET`, `HEAD`, `OPTIONS` or
/// `TRACE` succeeds (`2xx` or `3xx`), the stored responses for its URL, and for the URLs of
/// its `Location` and `Content-Location` on the same origin, are removed.
///
/// **Transfers** (downloads, requests with a progress handler) bypass the cache: they go to the
/// wrapped session as they are, so a download is never served from memory (nor half-written
/// from it) and never stored.
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

        /// Which ``removeAll()`` the cache is at: a request sent in one generation changes
        /// nothing stored in a later one (``record(_:_:forKey:request:revalidating:sentAt:receivedAt:sentIn:)``
        /// checks it), so that no answer to a request made before a sign-out is stored after it.
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

        /// Records the server's answer `http` (with `data`) to `request`, sent for `key` at
        /// `sentAt` in `generation` to revalidate `revalidating` (or to fetch, when `nil`), and
        /// returns what the caller gets for it: for a `304`, the stored response, fresh again;
        /// otherwise `nil`, meaning the answer as it came. A new `200` is stored; any other
        /// answer below `500` removes what was stored, which it replaces (RFC 9111, section
        /// 4.4). The one way an answer reaches the store: an answer to a request sent before the
        /// last ``removeAll()`` changes nothing stored (its caller still gets it).
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

    /// The wrapped session, as the decorator sends on it.
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

    /// Forwards to the wrapped session: this cache shares no calls of its own (its stored
    /// responses stay; ``removeAll()`` is what forgets them).
    package func stopSharingCallsInFlight() {
        wrapped.stopSharingCallsInFlight()
    }

    /// The wrapped session's.
    package var underlyingTransport: URLSessionTransport? { wrapped.underlyingTransport }

    /// Answers from the cache when it can, and asks the wrapped session otherwise, for a plain
    /// request (redirects followed, the body in memory, nobody told of progress). Anything else
    /// bypasses the cache, neither answered from it nor stored, and goes to the wrapped session as
    /// it is: what is stored is the end of followed redirects; a download is always written by the
    /// wrapped session (streamed to its file by a ``URLSessionTransport``) and never replayed from
    /// memory; a large body never fills the cache. An unsafe request still invalidates what it
    /// changes.
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
            return wrapped.dataTask(with: request, completionHandler: completionHandler)
        }
        return CachedSessionTask(
            session: self, key: key, request: request, directives: directives, completionHandler: completionHandler)
    }

    /// A request's directives, from its `Cache-Control` and `Pragma` fields and its cache
    /// policy: the one reading of them, whichever path the request takes (the plain `GET` reads
    /// the fields in the pass that builds its key; the others ask for them).
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
            let response = HTTPURLResponse(url: url, statusCode: 504, httpVersion: "HTTP/1.1", headerFields: nil)
        else { return .failure(URLError(.resourceUnavailable)) }
        return .response(Data(), response)
    }

    /// Revalidates `stale`, stored for `key`, with a request of the cache's own (RFC 5861,
    /// section 3), once the caller put `key` in `revalidatingInBackground` in `generation`: the
    /// caller got `stale` already, and the answer only updates what is stored. Nobody waits for
    /// it, so it is never cancelled; a failure leaves `stale` stored. After a ``removeAll()``
    /// its answer changes nothing.
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
