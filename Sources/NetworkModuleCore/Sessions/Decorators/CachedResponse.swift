import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `200` response kept by ``CachedSession``, with what RFC 9111 needs to tell whether it
/// may answer a request and to revalidate it. Everything is worked out once, when it is
/// stored, so that answering from it costs a subtraction and a few comparisons.
struct CachedResponse {
    let data: Data
    let response: HTTPURLResponse
    /// When the response was received (section 4.2.3's `response_time`).
    let receivedAt: Date
    /// Its age when it was received: the larger of the age its `Date` shows and its `Age`
    /// plus the time the request took (section 4.2.3's `corrected_initial_age`).
    let initialAge: TimeInterval
    /// How long it stays fresh, counted from age 0 (section 4.2.1); 0 when it has no
    /// freshness information and no heuristic applies.
    let lifetime: TimeInterval
    /// `no-cache`: never used without revalidation.
    let noCache: Bool
    /// `must-revalidate`: never used stale.
    let mustRevalidate: Bool
    /// `stale-while-revalidate=N`: seconds past its freshness it may answer while revalidated.
    let staleWhileRevalidate: TimeInterval?
    /// `stale-if-error=N`: seconds past its freshness it may answer when the server cannot.
    let staleIfError: TimeInterval?
    /// The validators sent back as `If-None-Match` and `If-Modified-Since`.
    let entityTag: String?
    let lastModified: String?
    /// The request headers its `Vary` names, lowercased, with the values the request that
    /// got it had (`nil`: absent); empty when it has no `Vary`.
    let variance: [(name: String, value: String?)]

    /// The longest freshness a heuristic gives (section 4.2.2): a day.
    static let maximumHeuristicLifetime: TimeInterval = 86_400
    /// Header fields a `304` does not update (section 3.2): they describe the stored body.
    private static let fieldsKeptOnRevalidation: Set<String> = [
        "content-length", "content-encoding", "content-type", "content-range", "transfer-encoding", "connection",
        "keep-alive",
    ]

    /// The response to `request` (sent at `sentAt`) to keep, or `nil` if it must not or need not
    /// be kept: not a `200`, not for the request's own URL (the cache never saw the redirects on
    /// the way), `no-store`, `Vary: *`, `Authorization` the response does not allow to store
    /// (section 3.5), or neither fresh for any time nor revalidatable.
    init?(data: Data?, response: HTTPURLResponse, request: URLRequest, sentAt: Date, receivedAt: Date) {
        guard response.statusCode == 200, let data, Self.answers(request, response) else { return nil }
        let directives = CacheControl(cacheControl: response.value(forHTTPHeaderField: "Cache-Control"))
        guard !directives.noStore, let variance = Self.variance(of: response, request: request) else { return nil }
        if request.value(forHTTPHeaderField: "Authorization") != nil,
            !(directives.mustRevalidate || directives.isPublic || directives.hasSharedMaxAge)
        {
            return nil
        }
        self.data = data
        self.response = response
        self.receivedAt = receivedAt
        self.variance = variance
        self.noCache = directives.noCache
        self.mustRevalidate = directives.mustRevalidate
        self.staleWhileRevalidate = directives.staleWhileRevalidate
        self.staleIfError = directives.staleIfError
        self.entityTag = response.value(forHTTPHeaderField: "ETag")
        self.lastModified = response.value(forHTTPHeaderField: "Last-Modified")
        let date = response.value(forHTTPHeaderField: "Date").flatMap { HTTPDate.parse($0, now: receivedAt) }
        let dateValue = date ?? receivedAt
        let ageValue = response.value(forHTTPHeaderField: "Age").flatMap { CacheControl.seconds($0[...]) } ?? 0
        let apparentAge = max(0, receivedAt.timeIntervalSince(dateValue))
        let correctedAgeValue = ageValue + max(0, receivedAt.timeIntervalSince(sentAt))
        self.initialAge = max(apparentAge, correctedAgeValue)
        self.lifetime = Self.lifetime(of: response, directives: directives, dateValue: dateValue, now: receivedAt)
        guard (lifetime > initialAge && !noCache) || hasValidators else { return nil }
    }

    /// Whether `response` answers `request`'s own URL (RFC 9111, section 2: a response is stored
    /// under the URI of the request it answers), rather than the target of a redirect.
    private static func answers(_ request: URLRequest, _ response: HTTPURLResponse) -> Bool {
        guard let requested = request.url?.absoluteURL, let answered = response.url?.absoluteURL else { return false }
        return requested.absoluteString == answered.absoluteString
    }

    /// Whether the server can be asked if it changed.
    var hasValidators: Bool { entityTag != nil || lastModified != nil }

    /// Its age at `now` (section 4.2.3's `current_age`).
    func age(at now: Date) -> TimeInterval {
        initialAge + max(0, now.timeIntervalSince(receivedAt))
    }

    /// Whether it may answer a request with `directives` at `now` without asking the server
    /// (section 4.2 and the request directives of section 5.2.1).
    func isUsable(at now: Date, for directives: CacheControl) -> Bool {
        if noCache || directives.noCache || directives.reload { return false }
        let age = age(at: now)
        if let maxAge = directives.maxAge, age > maxAge { return false }
        let freshnessLeft = lifetime - age
        if let minFresh = directives.minFresh, freshnessLeft < minFresh { return false }
        if freshnessLeft > 0 { return true }
        guard !mustRevalidate, let maxStale = directives.maxStale else { return false }
        return -freshnessLeft <= maxStale
    }

    /// Whether it may answer at once, stale, while the cache revalidates it in the background
    /// (RFC 5861, section 3), for a request that does not want it fresh.
    func isUsableWhileRevalidating(at now: Date, for directives: CacheControl) -> Bool {
        guard let window = staleWhileRevalidate, !noCache, !mustRevalidate, !directives.noCache, !directives.reload,
            directives.minFresh == nil
        else { return false }
        let age = age(at: now)
        if let maxAge = directives.maxAge, age > maxAge { return false }
        return age - lifetime <= window
    }

    /// Whether it may answer, stale, a request the server failed (RFC 5861, section 4; RFC 9111,
    /// section 4.2.4): within the larger `stale-if-error` of the response and the request.
    func isUsableOnError(at now: Date, for directives: CacheControl) -> Bool {
        guard !noCache, !mustRevalidate, !directives.reload else { return false }
        let window = max(staleIfError ?? -.infinity, directives.staleIfError ?? -.infinity)
        return age(at: now) - lifetime <= window
    }

    /// How a stored response answers a request, as its `Cache-Status` says (RFC 9211).
    enum Use {
        /// Without a call: fresh, or stale as the request's `max-stale` allows.
        case hit
        /// Without waiting, stale, while a background request revalidates it.
        case staleWhileRevalidate
        /// Stale, because the server answered with `status` (`nil`: no answer at all).
        case staleIfError(status: Int?)
        /// After the server answered `304 Not Modified`.
        case revalidated
    }

    /// The response to hand the caller for `use` at `now`: the stored one with `Age` (RFC 9111,
    /// section 5.1) and this cache's `Cache-Status` entry (``CacheStatus``), as a
    /// ``CacheStatus/Answer``, the mark that the entry is this cache's own.
    func served(at now: Date, as use: Use) -> HTTPURLResponse {
        let age = age(at: now)
        let freshnessLeft = lifetime - age
        let ttl =
            freshnessLeft > 0
            ? HeaderNumber.wholeSeconds(freshnessLeft) : min(-1, HeaderNumber.wholeSeconds(freshnessLeft))
        let parameters =
            switch use {
            case .hit: "hit"
            case .staleWhileRevalidate: "hit; detail=stale-while-revalidate"
            case .staleIfError(let status?): "fwd=stale; fwd-status=\(status); detail=stale-if-error"
            case .staleIfError(nil): "fwd=stale; detail=stale-if-error"
            case .revalidated: "fwd=stale; fwd-status=304; stored"
            }
        var fields = HTTPHeaders(response.allHeaderFields)
        fields["Age"] = String(max(0, HeaderNumber.wholeSeconds(age)))
        fields["Cache-Status"] = CacheStatus.appending(to: fields["Cache-Status"], parameters: parameters, ttl: ttl)
        guard let url = response.url,
            let served = CacheStatus.Answer(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields.dictionary)
        else { return response }
        return served
    }

    /// Whether `request` has the values this response's `Vary` names (section 4.1).
    func matchesVariance(of request: URLRequest) -> Bool {
        variance.allSatisfy { request.value(forHTTPHeaderField: $0.name) == $0.value }
    }

    /// `request` asking the server to answer `304 Not Modified` if this response is current.
    func conditionalRequest(for request: URLRequest) -> URLRequest {
        var conditional = request
        if let entityTag { conditional.setValue(entityTag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        return conditional
    }

    /// This response after the server answered `304 Not Modified` (section 4.3.4): its
    /// header fields updated from the 304's (section 3.2), and fresh again from then. `nil`
    /// when the updated response may no longer be kept (the 304 says `no-store`, say).
    func revalidated(by notModified: HTTPURLResponse, request: URLRequest, sentAt: Date, receivedAt: Date)
        -> CachedResponse?
    {
        var fields = HTTPHeaders(response.allHeaderFields)
        // `Date` and `Age` describe a message: the refreshed response's are the 304's (one
        // without them was generated when received, RFC 9110, section 6.6.1), never the stored ones.
        fields["Date"] = nil
        fields["Age"] = nil
        for field in HTTPHeaders(notModified.allHeaderFields)
        where !Self.fieldsKeptOnRevalidation.contains(field.name.lowercased()) {
            fields[field.name] = field.value
        }
        let updated =
            response.url.flatMap {
                HTTPURLResponse(url: $0, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields.dictionary)
            } ?? response
        return CachedResponse(data: data, response: updated, request: request, sentAt: sentAt, receivedAt: receivedAt)
    }

    /// The lowercased names `Vary` lists with `request`'s values for them; `nil` for `Vary: *`,
    /// which no later request matches.
    private static func variance(of response: HTTPURLResponse, request: URLRequest) -> [(String, String?)]? {
        guard let vary = response.value(forHTTPHeaderField: "Vary") else { return [] }
        var variance: [(String, String?)] = []
        for rawName in vary.split(separator: ",") {
            let name = CacheControl.trimmed(rawName).lowercased()
            if name == "*" { return nil }
            if !name.isEmpty { variance.append((name, request.value(forHTTPHeaderField: name))) }
        }
        return variance
    }

    /// The freshness lifetime (section 4.2.1): `max-age` (a private cache ignores
    /// `s-maxage`), else `Expires` less `Date` (an invalid `Expires` means already expired),
    /// else 10% of the time since `Last-Modified`, at most a day (section 4.2.2: a `200` is
    /// heuristically cacheable), else 0.
    private static func lifetime(
        of response: HTTPURLResponse, directives: CacheControl, dateValue: Date, now: Date
    ) -> TimeInterval {
        if let maxAge = directives.maxAge { return maxAge }
        if let expires = response.value(forHTTPHeaderField: "Expires") {
            guard let expiry = HTTPDate.parse(expires, now: now) else { return 0 }
            return max(0, expiry.timeIntervalSince(dateValue))
        }
        if let lastModified = response.value(forHTTPHeaderField: "Last-Modified"),
            let modified = HTTPDate.parse(lastModified, now: now)
        {
            return min(max(0, dateValue.timeIntervalSince(modified)) / 10, maximumHeuristicLifetime)
        }
        return 0
    }
}
