import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The header names that carry credentials for the redirect handling and every ``Redaction``:
/// the fixed list, plus every header an ``AuthenticationAction`` in this process writes its token
/// into (``register(_:)``). One process-wide list, only ever added to, so that such a header
/// (`.header("X-Custom-Key")`) is stripped on a cross-origin redirect and masked everywhere,
/// through any decorator: a deliberate over-approximation (a header that held a token somewhere
/// is sent to another origin nowhere).
package enum CredentialHeaders {
    /// The names that always carry credentials, lowercased.
    static let fixed: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token",
        "x-access-token", "x-refresh-token", "x-csrf-token", "x-xsrf-token", "x-amz-security-token",
    ]

    // Grows when actions are created, read on every redirect and every masked header.
    private static let registered = LockedState(Set<String>())

    /// Records that `name` carries a credential, from now on, in the whole process.
    static func register(_ name: String) {
        let name = name.lowercased()
        guard !fixed.contains(name) else { return }
        registered.withLock { _ = $0.insert(name) }
    }

    // Header names that are no secret, but go to chosen origins only (the tracing action's).
    private static let originBound = LockedState(Set<String>())

    /// Records that `name`, no credential, must not follow a redirect to another origin either,
    /// from now on, in the whole process: masked nowhere, stripped as credentials are.
    static func registerOriginBound(_ name: String) {
        let name = name.lowercased()
        originBound.withLock { _ = $0.insert(name) }
    }

    /// Whether `name` carries a credential: a fixed name or one an action registered.
    static func contains(_ name: String) -> Bool {
        let name = name.lowercased()
        return fixed.contains(name) || registered.withLock { $0.contains(name) }
    }

    /// `request` without its credential headers (the names above and `extraNames`, lowercased)
    /// and the headers bound to their origin (``registerOriginBound(_:)``)
    /// if it goes to another origin than `originalURL`, or if either has no origin; otherwise
    /// `request` as it is. What a redirect may carry: applied to the request a redirect policy
    /// chose, so that no policy can send credentials to another origin.
    package static func strippedForRedirect(
        _ request: URLRequest, from originalURL: URL?, extraNames: Set<String> = []
    ) -> URLRequest {
        let from = originalURL.flatMap(Origin.init)
        let to = request.url.flatMap(Origin.init)
        guard from == nil || from != to else { return request }
        var stripped = request
        let bound = originBound.withLock { $0 }
        for name in names(in: request, extraNames: extraNames.union(bound)) {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        return stripped
    }

    /// The names of `request`'s header fields that carry credentials (the names above and
    /// `extraNames`, lowercased), sorted.
    static func names(in request: URLRequest, extraNames: Set<String> = []) -> [String] {
        (request.allHTTPHeaderFields ?? [:]).keys.filter { name in
            extraNames.contains(name.lowercased()) || contains(name)
        }.sorted()
    }
}
