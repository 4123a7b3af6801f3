import Foundation

/// What ``NetworkModuleAction/signing(secrets:sign:)`` adds to a request: query items,
/// headers, or both.
public struct RequestSignature: Sendable {
    /// Appended to the URL's query, in this order.
    public var queryItems: [URLQueryItem]
    /// Set on the request, replacing fields of the same name.
    public var headers: HTTPHeaders

    /// A signature of query items and headers.
    public init(queryItems: [URLQueryItem] = [], headers: HTTPHeaders = [:]) {
        self.queryItems = queryItems
        self.headers = headers
    }

    /// A signature of query items only.
    public static func queryItems(_ items: [URLQueryItem]) -> RequestSignature {
        RequestSignature(queryItems: items)
    }

    /// A signature of headers only.
    public static func headers(_ headers: HTTPHeaders) -> RequestSignature {
        RequestSignature(headers: headers)
    }
}
