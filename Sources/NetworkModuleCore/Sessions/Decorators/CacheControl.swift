import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `Cache-Control` directives ``CachedSession`` acts on (RFC 9111, section 5.2, and RFC
/// 5861's `stale-while-revalidate` and `stale-if-error`), of a request or a response. Unknown
/// directives, and `s-maxage` and `proxy-revalidate` (for shared caches), are ignored. Seconds
/// are ASCII digits only, at most 2^31 (section 1.2.2); a malformed `max-age` or `max-stale` is
/// `0`, the conservative reading (section 4.2.1). When a directive appears twice, the first wins.
struct CacheControl: Equatable {
    /// `no-store`: do not keep the response at all (on a request: and do not answer from the cache).
    var noStore = false
    /// `no-cache` (or a request's `Pragma: no-cache`): do not use a stored response without
    /// checking with the server first. A response's `no-cache="field"` counts as `no-cache`.
    var noCache = false
    /// `max-age=N`: seconds the response stays fresh; on a request, the oldest response the
    /// caller accepts.
    var maxAge: TimeInterval?
    /// A request's `max-stale[=N]`: how many seconds past its freshness a response may be;
    /// `.infinity` when no value is given.
    var maxStale: TimeInterval?
    /// A request's `min-fresh=N`: the response must stay fresh for at least N more seconds.
    var minFresh: TimeInterval?
    /// A request's `only-if-cached`: answer from the cache or with `504`, never from the network.
    var onlyIfCached = false
    /// A request's `URLRequest.CachePolicy` of the "reload" kind: fetch without using or
    /// revalidating a stored response, and store the answer.
    var reload = false
    /// A response's `must-revalidate`: never served stale, even to a request with `max-stale`.
    var mustRevalidate = false
    /// A response's `public`.
    var isPublic = false
    /// A response's `s-maxage`: ignored for freshness, but it allows storing a response to a
    /// request with `Authorization` (section 3.5).
    var hasSharedMaxAge = false
    /// A response's `stale-while-revalidate=N` (RFC 5861, section 3): for N seconds past its
    /// freshness, it may answer at once while the cache revalidates it in the background.
    var staleWhileRevalidate: TimeInterval?
    /// `stale-if-error=N` (RFC 5861, section 4), on a response or a request: for N seconds
    /// past its freshness, it may answer when the server cannot (a transport error, or `500`,
    /// `502`, `503` or `504`).
    var staleIfError: TimeInterval?

    /// No directives.
    static let none = CacheControl()

    /// The directives of a `Cache-Control` value and a `Pragma` value, either of which may be
    /// absent. `Pragma: no-cache` counts only when there is no `Cache-Control` (section 5.4).
    init(cacheControl: String? = nil, pragma: String? = nil) {
        if let cacheControl {
            for directive in cacheControl.split(separator: ",") {
                read(directive)
            }
        }
        if cacheControl == nil, let pragma, Self.trimmed(pragma[...]).lowercased() == "no-cache" {
            noCache = true
        }
    }

    /// The directives `policy` stands for, added to these: the reload policies fetch without
    /// the cache, `.reloadRevalidatingCacheData` is `no-cache`, `.returnCacheDataElseLoad` is
    /// `max-stale`, and `.returnCacheDataDontLoad` is `max-stale` with `only-if-cached`.
    mutating func add(_ policy: URLRequest.CachePolicy) {
        switch policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            reload = true
        case .reloadRevalidatingCacheData:
            noCache = true
        case .returnCacheDataElseLoad:
            maxStale = .infinity
        case .returnCacheDataDontLoad:
            maxStale = .infinity
            onlyIfCached = true
        default:  // .useProtocolCachePolicy: the headers say it all
            break
        }
    }

    private mutating func read(_ directive: Substring) {
        let parts = directive.split(separator: "=", maxSplits: 1)
        guard let rawName = parts.first else { return }
        let argument = parts.count == 2 ? parts[1] : nil
        switch Self.trimmed(rawName).lowercased() {
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "must-revalidate": mustRevalidate = true
        case "public": isPublic = true
        case "s-maxage": hasSharedMaxAge = true
        case "only-if-cached": onlyIfCached = true
        case "max-age": maxAge = maxAge ?? Self.seconds(argument) ?? 0
        case "max-stale": maxStale = maxStale ?? (argument == nil ? .infinity : Self.seconds(argument) ?? 0)
        case "min-fresh": minFresh = minFresh ?? Self.seconds(argument)
        case "stale-while-revalidate": staleWhileRevalidate = staleWhileRevalidate ?? Self.seconds(argument)
        case "stale-if-error": staleIfError = staleIfError ?? Self.seconds(argument)
        default: break
        }
    }

    /// The delta-seconds in `text` (quotes allowed), at most 2^31 (``HeaderNumber``); `nil` if
    /// it is absent or not a number.
    static func seconds(_ text: Substring?) -> TimeInterval? {
        guard let text else { return nil }
        var value = trimmed(text)
        if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
        return HeaderNumber.deltaSeconds(value).map(TimeInterval.init)
    }

    /// `text` without the spaces and tabs around it.
    static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
