import Foundation

/// What the server sent with a status the request does not accept: the status code, the
/// headers and the body bytes, so that the server's own error description can be read.
public struct HTTPErrorResponse: Equatable, Sendable {
    /// The HTTP status code, for example `404`.
    public let statusCode: Int
    /// The response headers, looked up case-insensitively.
    public let headers: HTTPHeaders
    /// The body bytes; empty if the server sent none.
    public let body: Data
    /// The URL of the response, if known.
    public let url: URL?

    /// Creates an HTTP error response.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Whether two responses say the same: the same status code and the same body. The headers
    /// and the URL are not compared, so that a test can expect an error by what the server said:
    /// `#expect(throws: NetworkError.serverError(HTTPErrorResponse(statusCode: 500)))` matches a
    /// `500` with an empty body from any URL. Compare ``headers`` or ``url`` yourself where they
    /// matter.
    public static func == (lhs: HTTPErrorResponse, rhs: HTTPErrorResponse) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.body == rhs.body
    }

    /// Decodes the body into `type`, for servers that describe their errors in JSON.
    ///
    /// ```swift
    /// if case .failure(.clientError(let response)) = result {
    ///     let apiError = try response.decodeBody(as: APIError.self)
    ///     show(apiError.message)
    /// }
    /// ```
    /// - Throws: ``NetworkError/noResponseData`` for an empty body,
    ///   ``NetworkError/decodingFailed(_:)`` when the body does not decode.
    public func decodeBody<Body: Decodable>(as type: Body.Type, decoder: JSONDecoder = JSONDecoder())
        throws(NetworkError) -> Body
    {
        try ResponseDecoding.decode(type, from: body, decoder: decoder)
    }

    /// Decodes the body into `type` with `decoder`, for servers that describe their errors in
    /// another format (pass the module's ``NetworkModule/decoder``, say).
    ///
    /// - Throws: ``NetworkError/noResponseData`` for an empty body,
    ///   ``NetworkError/decodingFailed(_:)`` when the body does not decode.
    public func decodeBody<Body: Decodable>(as type: Body.Type, decoder: any ResponseDecoder)
        throws(NetworkError) -> Body
    {
        try ResponseDecoding.decode(type, from: body, decoder: decoder)
    }

    /// The body as UTF-8 text, or `nil` if it is not valid UTF-8.
    public var bodyText: String? {
        String(data: body, encoding: .utf8)
    }
}
