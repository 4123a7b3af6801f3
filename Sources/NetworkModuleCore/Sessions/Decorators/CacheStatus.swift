import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `Cache-Status` header field (RFC 9211) as ``CachedSession`` writes it and
/// ``NetworkResponse/isStale`` reads it: one entry per cache, the one nearest the origin first.
/// This cache's says how the stored response answered (`hit`, or `fwd=stale` when the server was
/// asked) and its `ttl`, the freshness left in whole seconds (negative when stale). A server may
/// send an entry of this cache's name, so only an ``Answer`` counts, which no server can make.
enum CacheStatus {
    /// The name this cache gives itself.
    static let cacheName = "NetworkModule"

    /// The response ``CachedSession`` hands out when it answers from memory: its class alone
    /// says that its ``cacheName`` entry is this cache's. A copy made elsewhere (a replayed
    /// recording) is a plain `HTTPURLResponse`, and reads as not stale.
    final class Answer: HTTPURLResponse, @unchecked Sendable {
        // @unchecked Sendable is safe with no lock: restated as Swift requires of a subclass of
        // an `@unchecked Sendable` class; `Answer` adds no state to the immutable response.
    }

    /// Whether `response` is this cache's answer and its entry says it was stale.
    static func isStale(_ response: HTTPURLResponse) -> Bool {
        response is Answer && isStale(HTTPHeaders(response.allHeaderFields)["Cache-Status"])
    }

    /// `existing` (the entries of caches nearer the origin, if any) with this cache's entry
    /// appended: `parameters` and `ttl`.
    static func appending(to existing: String?, parameters: String, ttl: Int) -> String {
        let entry = "\(cacheName); \(parameters); ttl=\(ttl)"
        guard let existing, !existing.isEmpty else { return entry }
        return existing + ", " + entry
    }

    /// Whether this cache's entry in `value` (the last, if there are several) has a negative
    /// `ttl`; `false` without one.
    static func isStale(_ value: String?) -> Bool {
        guard let value else { return false }
        let ours = value.split(separator: ",").last { entry in
            CacheControl.trimmed(entry.split(separator: ";").first ?? "") == cacheName[...]
        }
        guard let ours else { return false }
        for parameter in ours.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            if parts.count == 2, CacheControl.trimmed(parts[0]) == "ttl" {
                return CacheControl.trimmed(parts[1]).hasPrefix("-")
            }
        }
        return false
    }
}
