import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which header and query values are secrets, and how they are masked wherever the framework
/// writes requests down: log lines, `curl` commands, recorded traffic.
///
/// By default `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` are masked.
/// Add the names your API uses for secrets:
///
/// ```swift
/// let redaction = Redaction.default.adding(headers: ["X-API-Key"], queryItems: ["token"])
/// ```
public struct Redaction: Sendable, Equatable {
    /// What replaces a secret value.
    public static let mask = "REDACTED"

    /// Masks `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public static let `default` = Redaction(
        headerNames: ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"], queryItemNames: [])

    /// Header names whose values are masked, compared ignoring case.
    public let headerNames: Set<String>
    /// Query item names whose values are masked, compared exactly.
    public let queryItemNames: Set<String>

    /// Creates a redaction of exactly these header and query item names.
    public init(headerNames: Set<String>, queryItemNames: Set<String>) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.queryItemNames = queryItemNames
    }

    /// This redaction with more header and query item names.
    public func adding(headers: Set<String> = [], queryItems: Set<String> = []) -> Redaction {
        Redaction(headerNames: headerNames.union(headers), queryItemNames: queryItemNames.union(queryItems))
    }

    /// Whether the header `name` holds a secret.
    public func isSecret(header name: String) -> Bool {
        headerNames.contains(name.lowercased())
    }

    /// `value`, or the mask if header `name` holds a secret.
    public func value(_ value: String, forHeader name: String) -> String {
        isSecret(header: name) ? Self.mask : value
    }

    /// `headers` with secret values masked, in the same order.
    public func redacted(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.map { ($0.name, value($0.value, forHeader: $0.name)) })
    }

    /// `url` with its password (`https://user:password@host`) and the values of secret query
    /// items masked; the rest is left as it was. A URL with neither is returned at once.
    public func redacted(_ url: URL) -> URL {
        let hasPassword = url.password != nil
        let mayHaveSecretQuery = !queryItemNames.isEmpty && url.query != nil
        guard hasPassword || mayHaveSecretQuery,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return url }
        if hasPassword { components.percentEncodedPassword = Self.mask }
        if mayHaveSecretQuery, let items = components.percentEncodedQueryItems,
            items.contains(where: { isSecret(queryItem: $0.name) })
        {
            components.percentEncodedQueryItems = items.map { item in
                isSecret(queryItem: item.name) ? URLQueryItem(name: item.name, value: Self.mask) : item
            }
        }
        return components.url ?? url
    }

    private func isSecret(queryItem encodedName: String) -> Bool {
        queryItemNames.contains(encodedName.removingPercentEncoding ?? encodedName)
    }
}
