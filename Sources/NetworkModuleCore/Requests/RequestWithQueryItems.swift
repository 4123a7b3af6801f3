import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request with query items added after its own: what
/// ``NetworkRequest/addingQueryItems(_:)`` returns.
///
/// Everything but the query is the base request's, and a typed base stays typed, with the same
/// response and decoder:
///
/// ```swift
/// let request = SearchNotes(term: "swift").addingQueryItems([URLQueryItem(name: "page", value: "2")])
/// let notes = try await module.send(request)   // SearchNotes.Response
/// ```
public struct RequestWithQueryItems<Base: NetworkRequest>: NetworkRequest {
    /// The request the items were added to.
    public let base: Base
    /// The added items, sent after the base request's ``NetworkRequest/queryItems``.
    public let addedQueryItems: [URLQueryItem]

    /// The base request with `items` added after its own query items.
    public init(_ base: Base, adding items: [URLQueryItem]) {
        self.base = base
        self.addedQueryItems = items
    }

    /// The base request's path.
    public var path: String { base.path }
    /// The base request's method.
    public var method: HTTPMethod { base.method }
    /// The base request's query items, then the added ones.
    public var queryItems: [URLQueryItem] { base.queryItems + addedQueryItems }
    /// The base request's headers.
    public var headers: HTTPHeaders { base.headers }
    /// The base request's body.
    public var body: RequestBody? { base.body }
    /// The base request's timeout.
    public var timeout: TimeInterval? { base.timeout }
    /// The base request's cache policy.
    public var cachePolicy: URLRequest.CachePolicy? { base.cachePolicy }
    /// The base request's acceptable status codes.
    public var acceptableStatusCodes: AcceptableStatusCodes { base.acceptableStatusCodes }
    /// Whether the base request requires authentication.
    public var requiresAuthentication: Bool { base.requiresAuthentication }
    /// The base request's retry policy.
    public var retryPolicy: RetryPolicy? { base.retryPolicy }
    /// The base request's redirect policy.
    public var redirectPolicy: RedirectPolicy? { base.redirectPolicy }
}

extension RequestWithQueryItems: TypedRequest where Base: TypedRequest {
    /// The base request's decoder.
    public var decoder: (any ResponseDecoder)? { base.decoder }

    /// Decodes as the base request does.
    public func decodeResponse(_ response: NetworkResponse, decoder: any ResponseDecoder) throws(NetworkError)
        -> Base.Response
    {
        try base.decodeResponse(response, decoder: decoder)
    }
}

extension NetworkRequest {
    /// This request with `items` added after its own query items, percent-encoded like them:
    /// for a page number or a filter that the request type does not know.
    ///
    /// ```swift
    /// module.perform(request: ListNotes().addingQueryItems([URLQueryItem(name: "page", value: "2")])) { result in show(result) }
    /// ```
    public func addingQueryItems(_ items: [URLQueryItem]) -> RequestWithQueryItems<Self> {
        RequestWithQueryItems(self, adding: items)
    }
}
