import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A successful HTTP response: the body, the status and headers, the request that was
/// actually sent, and how long it took.
///
/// ## Equality
/// Two responses are equal when they have the same body, status code, URL, headers (names
/// compared ignoring case, in any order) and request. The ``duration`` describes one
/// occurrence, so it is not compared: a stubbed response equals the one a test expects however
/// long it took. (`HTTPURLResponse` itself compares by identity, so the response objects are
/// compared by what they hold.)
public struct NetworkResponse: Sendable, Equatable {
    /// The body; empty (never `nil`) when the server sent none.
    public let data: Data
    /// The HTTP response.
    public let httpResponse: HTTPURLResponse
    /// The request as it was sent, after every action prepared it.
    public let request: URLRequest
    /// Seconds from handing the request to the session until its response arrived.
    public let duration: TimeInterval

    /// Creates a response.
    public init(data: Data, httpResponse: HTTPURLResponse, request: URLRequest, duration: TimeInterval = 0) {
        self.data = data
        self.httpResponse = httpResponse
        self.request = request
        self.duration = duration
    }

    /// The HTTP status code.
    public var statusCode: Int { httpResponse.statusCode }

    /// The response headers, looked up case-insensitively on every platform.
    public var headers: HTTPHeaders { HTTPHeaders(httpResponse.allHeaderFields) }

    /// Whether a cache served this response stale, past its freshness lifetime: because the
    /// request accepted it (`max-stale`), while the cache revalidates it
    /// (`stale-while-revalidate`), or because the server could not answer (`stale-if-error`).
    /// Read from the `Cache-Status` entry that ``CachedSession`` adds to every response it
    /// serves from memory, whose `Age` header says how old it is; `false` for a response from the
    /// network, even one whose `Cache-Status` has an entry named `NetworkModule`: only the
    /// entry the framework's own cache wrote counts.
    public var isStale: Bool { CacheStatus.isStale(httpResponse) }

    /// Whether two responses are the same answer: equal ``data``, ``statusCode``, URL,
    /// ``headers`` and ``request``; ``duration`` is not compared (see "Equality" above).
    public static func == (lhs: NetworkResponse, rhs: NetworkResponse) -> Bool {
        lhs.data == rhs.data && lhs.statusCode == rhs.statusCode && lhs.httpResponse.url == rhs.httpResponse.url
            && lhs.headers == rhs.headers && lhs.request == rhs.request
    }

    /// Decodes the JSON body into `type`.
    ///
    /// - Throws: ``NetworkError/noResponseData`` for an empty body,
    ///   ``NetworkError/decodingFailed(_:)`` saying which key, type or path failed.
    public func decode<Body: Decodable>(_ type: Body.Type, decoder: JSONDecoder = JSONDecoder())
        throws(NetworkError) -> Body
    {
        try ResponseDecoding.decode(type, from: data, decoder: decoder)
    }

    /// Decodes the body into `type` with `decoder`: the module's ``NetworkModule/decoder``, a
    /// ``JSONResponseDecoder``, or a ``ResponseDecoder`` of your own for another format.
    ///
    /// - Throws: ``NetworkError/noResponseData`` for an empty body,
    ///   ``NetworkError/decodingFailed(_:)`` saying which key, type or path failed.
    public func decode<Body: Decodable>(_ type: Body.Type, decoder: any ResponseDecoder)
        throws(NetworkError) -> Body
    {
        try ResponseDecoding.decode(type, from: data, decoder: decoder)
    }

    /// Decodes the JSON body into `type`, or returns `nil` for an empty body (for example a
    /// `204 No Content`).
    ///
    /// - Throws: ``NetworkError/decodingFailed(_:)`` when a body is present but does not decode.
    public func decodeIfPresent<Body: Decodable>(_ type: Body.Type, decoder: JSONDecoder = JSONDecoder())
        throws(NetworkError) -> Body?
    {
        data.isEmpty ? nil : try ResponseDecoding.decode(type, from: data, decoder: decoder)
    }

    /// Decodes the body into `type` with `decoder`, or returns `nil` for an empty body.
    ///
    /// - Throws: ``NetworkError/decodingFailed(_:)`` when a body is present but does not decode.
    public func decodeIfPresent<Body: Decodable>(_ type: Body.Type, decoder: any ResponseDecoder)
        throws(NetworkError) -> Body?
    {
        data.isEmpty ? nil : try ResponseDecoding.decode(type, from: data, decoder: decoder)
    }

    /// The body as UTF-8 text.
    ///
    /// - Throws: ``NetworkError/decodingFailed(_:)`` with
    ///   ``DecodingFailure/Kind/invalidTextEncoding`` when the body is not valid UTF-8.
    public func text() throws(NetworkError) -> String {
        try ResponseDecoding.text(from: data)
    }
}
