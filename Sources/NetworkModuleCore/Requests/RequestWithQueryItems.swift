import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request with query items added after its own: what `addingQueryItems(_:)` returns, behind
/// an opaque type. Everything but the query is the base request's, and a typed base stays typed,
/// with the same response and decoder.
struct RequestWithQueryItems<Base: NetworkRequest>: NetworkRequest {
    /// The request the items were added to.
    let base: Base
    /// The added items, sent after the base request's ``NetworkRequest/queryItems``.
    let addedQueryItems: [URLQueryItem]

    /// The base request with `items` added after its own query items.
    init(_ base: Base, adding items: [URLQueryItem]) {
        self.base = base
        self.addedQueryItems = items
    }

    /// The base request's path.
    var path: String { base.path }
    /// The base request's method.
    var method: HTTPMethod { base.method }
    /// The base request's query items, then the added ones.
    var queryItems: [URLQueryItem] { base.queryItems + addedQueryItems }
    /// The base request's headers.
    var headers: HTTPHeaders { base.headers }
    /// The base request's body.
    var body: RequestBody? { base.body }
    /// The base request's timeout.
    var timeout: TimeInterval? { base.timeout }
    /// The base request's cache policy.
    var cachePolicy: URLRequest.CachePolicy? { base.cachePolicy }
    /// The base request's acceptable status codes.
    var acceptableStatusCodes: AcceptableStatusCodes { base.acceptableStatusCodes }
    /// Whether the base request requires authentication.
    var requiresAuthentication: Bool { base.requiresAuthentication }
    /// The base request's retry policy.
    var retryPolicy: RetryPolicy? { base.retryPolicy }
    /// The base request's redirect policy.
    var redirectPolicy: RedirectPolicy? { base.redirectPolicy }
}

extension RequestWithQueryItems: TypedRequest where Base: TypedRequest {
    /// The base request's decoder.
    var decoder: (any ResponseDecoder)? { base.decoder }

    /// Decodes as the base request does.
    func decodeResponse(_ response: NetworkResponse, decoder: any ResponseDecoder) throws(NetworkError)
        -> Base.Response
    {
        try base.decodeResponse(response, decoder: decoder)
    }
}

extension NetworkRequest {
    /// This request with `items` added after its own query items, percent-encoded like them:
    /// for a page number or a filter that the request type does not know. Everything else is
    /// this request's.
    ///
    /// ```swift
    /// module.perform(request: ListNotes().addingQueryItems([URLQueryItem(name: "page", value: "2")])) { result in show(result) }
    /// ```
    public func addingQueryItems(_ items: [URLQueryItem]) -> some NetworkRequest {
        RequestWithQueryItems(self, adding: items)
    }
}

extension TypedRequest {
    /// This request with `items` added after its own query items, as for any
    /// ``NetworkRequest``; it stays typed, with the same response and decoder.
    ///
    /// ```swift
    /// let request = SearchNotes(term: "swift").addingQueryItems([URLQueryItem(name: "page", value: "2")])
    /// let notes = try await module.send(request)   // SearchNotes.Response
    /// ```
    public func addingQueryItems(_ items: [URLQueryItem]) -> some TypedRequest<Response> {
        RequestWithQueryItems(self, adding: items)
    }
}
