import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `200` response kept by ``CachedSession``, with what it needs to tell whether it is
/// still fresh and to revalidate it.
struct CachedResponse {
    let data: Data
    let response: HTTPURLResponse
    /// When it was stored or last revalidated.
    var storedAt: Date
    /// Seconds it stays fresh after `storedAt`; 0 when it must be revalidated every time.
    var lifetime: TimeInterval
    /// The validators sent back as `If-None-Match` and `If-Modified-Since`.
    var entityTag: String?
    var lastModified: String?

    /// The response to keep, or `nil` if it must not be kept: not a `200`, `no-store`,
    /// `Vary: *`, or neither fresh for any time nor revalidatable.
    ///
    /// - Parameter defaultLifetime: the lifetime of a response without `max-age`.
    init?(data: Data?, response: HTTPURLResponse, storedAt: Date, defaultLifetime: TimeInterval) {
        guard response.statusCode == 200, let data else { return nil }
        let directives = CacheControl(cacheControl: response.value(forHTTPHeaderField: "Cache-Control"))
        guard !directives.noStore, response.value(forHTTPHeaderField: "Vary")?.contains("*") != true else {
            return nil
        }
        self.data = data
        self.response = response
        self.storedAt = storedAt
        self.entityTag = response.value(forHTTPHeaderField: "ETag")
        self.lastModified = response.value(forHTTPHeaderField: "Last-Modified")
        self.lifetime = Self.lifetime(of: response, directives: directives, defaultLifetime: defaultLifetime)
        guard lifetime > 0 || hasValidators else { return nil }
    }

    /// Whether the server can be asked if it changed.
    var hasValidators: Bool { entityTag != nil || lastModified != nil }

    /// Seconds since it was stored or last revalidated.
    func age(at now: Date) -> TimeInterval {
        now.timeIntervalSince(storedAt)
    }

    /// Whether it may be served without asking the server, to a request that accepts
    /// responses up to `maximumAge` seconds old (any age if `nil`).
    func isFresh(at now: Date, maximumAge: Int?) -> Bool {
        let age = age(at: now)
        if let maximumAge, age > TimeInterval(maximumAge) { return false }
        return age < lifetime
    }

    /// `request` asking the server to answer `304 Not Modified` if this response is current.
    func conditionalRequest(for request: URLRequest) -> URLRequest {
        var conditional = request
        if let entityTag { conditional.setValue(entityTag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        return conditional
    }

    /// This response, fresh again after the server answered `304 Not Modified` at `now`. The
    /// 304's `Cache-Control`, `ETag` and `Last-Modified` replace the stored ones.
    func revalidated(by notModified: HTTPURLResponse, at now: Date, defaultLifetime: TimeInterval) -> CachedResponse {
        var refreshed = self
        refreshed.storedAt = now
        if notModified.value(forHTTPHeaderField: "Cache-Control") != nil {
            let directives = CacheControl(cacheControl: notModified.value(forHTTPHeaderField: "Cache-Control"))
            refreshed.lifetime = Self.lifetime(
                of: notModified, directives: directives, defaultLifetime: defaultLifetime)
        }
        if let entityTag = notModified.value(forHTTPHeaderField: "ETag") { refreshed.entityTag = entityTag }
        if let lastModified = notModified.value(forHTTPHeaderField: "Last-Modified") {
            refreshed.lastModified = lastModified
        }
        return refreshed
    }

    /// `max-age` less the response's `Age`; 0 for `no-cache`; `defaultLifetime` when the
    /// response says nothing.
    private static func lifetime(
        of response: HTTPURLResponse, directives: CacheControl, defaultLifetime: TimeInterval
    ) -> TimeInterval {
        if directives.noCache { return 0 }
        guard let maxAge = directives.maxAge else { return defaultLifetime }
        let age = response.value(forHTTPHeaderField: "Age").flatMap { Int($0) } ?? 0
        return TimeInterval(max(0, maxAge - max(0, age)))
    }
}
