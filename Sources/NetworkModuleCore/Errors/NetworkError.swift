import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything that can go wrong with a request, with what a caller needs to act on it.
///
/// - HTTP status errors carry an ``HTTPErrorResponse``: status code, headers and body bytes,
///   so a server's error JSON can be decoded with ``HTTPErrorResponse/decodeBody(as:decoder:)``.
/// - Transport errors keep their `URLError` code (``urlErrorCode``).
/// - Decoding errors say which type, key and path failed (``DecodingFailure``).
/// - ``isRetryable`` says whether sending the same request again may succeed.
public enum NetworkError: Error, Equatable, Sendable {
    /// The request could not be built or was rejected before sending; nothing was sent.
    case invalidRequest(InvalidRequestReason)

    /// The server answered 401 Unauthorized.
    case unauthorized(HTTPErrorResponse)
    /// The server answered 403 Forbidden.
    case forbidden(HTTPErrorResponse)
    /// The server answered 404 Not Found.
    case notFound(HTTPErrorResponse)
    /// The server answered another 4xx status.
    case clientError(HTTPErrorResponse)
    /// The server answered a 5xx status.
    case serverError(HTTPErrorResponse)
    /// The server answered a status outside the request's acceptable codes that is not 4xx
    /// or 5xx (for example a 3xx that was not followed, or a 2xx the request does not accept).
    case unacceptableStatusCode(HTTPErrorResponse)

    /// The device is offline (`URLError.notConnectedToInternet`).
    case notConnectedToInternet
    /// The request timed out (`URLError.timedOut`).
    case timedOut
    /// The host name could not be resolved (`URLError.cannotFindHost`, `.dnsLookupFailed`).
    case cannotFindHost
    /// No connection could be made to the host (`URLError.cannotConnectToHost`).
    case cannotConnectToHost
    /// The connection was lost while the request was in flight
    /// (`URLError.networkConnectionLost`).
    case networkConnectionLost
    /// TLS failed: a certificate was untrusted, expired or rejected, or the handshake failed.
    case secureConnectionFailed(URLError.Code)
    /// Another transport failure, with its `URLError` code.
    case transportError(URLError.Code)

    /// The request was cancelled by its caller.
    case cancelled

    /// The response body was larger than the session's limit, in bytes, and was not read to
    /// the end (see ``URLSessionTransport/maximumResponseSize``).
    case responseTooLarge(limit: Int)

    /// The session answered with no response, or with one that is not an HTTP response.
    case invalidResponse
    /// A body was to be decoded, but the server sent none.
    case noResponseData
    /// The body could not be decoded into the expected type.
    case decodingFailed(DecodingFailure)
    /// An action failed the request.
    case actionFailed(ActionFailure)

    /// Maps a `URLError` to the matching case; `URLError.cancelled` becomes ``cancelled``.
    public init(_ urlError: URLError) {
        self.init(urlErrorCode: urlError.code)
    }

    /// Maps a `URLError` code to the matching case.
    public init(urlErrorCode code: URLError.Code) {
        switch code {
        case .cancelled: self = .cancelled
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: self = .notConnectedToInternet
        case .timedOut: self = .timedOut
        case .cannotFindHost, .dnsLookupFailed: self = .cannotFindHost
        case .cannotConnectToHost: self = .cannotConnectToHost
        case .networkConnectionLost: self = .networkConnectionLost
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
            .clientCertificateRejected, .clientCertificateRequired:
            self = .secureConnectionFailed(code)
        default: self = .transportError(code)
        }
    }

    /// Maps any error a session reports: a `URLError` (or an `NSError` in its domain) by its
    /// code, a ``NetworkError`` as it is, anything else as `.transportError(.unknown)`.
    init(sessionError error: any Error) {
        if let networkError = error as? NetworkError {
            self = networkError
        } else if let urlError = error as? URLError {
            self.init(urlError)
        } else {
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain {
                #if canImport(FoundationNetworking)
                    // swift-corelibs-foundation's initializer is failable; Apple's is not.
                    self.init(urlErrorCode: URLError.Code(rawValue: nsError.code) ?? .unknown)
                #else
                    self.init(urlErrorCode: URLError.Code(rawValue: nsError.code))
                #endif
            } else {
                self = .transportError(.unknown)
            }
        }
    }

    /// Maps an HTTP status that the request does not accept to the matching case.
    init(response: HTTPErrorResponse) {
        switch response.statusCode {
        case 401: self = .unauthorized(response)
        case 403: self = .forbidden(response)
        case 404: self = .notFound(response)
        case 400..<500: self = .clientError(response)
        case 500..<600: self = .serverError(response)
        default: self = .unacceptableStatusCode(response)
        }
    }

    /// The server's response, for HTTP status errors; `nil` otherwise.
    public var httpErrorResponse: HTTPErrorResponse? {
        switch self {
        case .unauthorized(let response), .forbidden(let response), .notFound(let response),
            .clientError(let response), .serverError(let response), .unacceptableStatusCode(let response):
            response
        default: nil
        }
    }

    /// The HTTP status code, for HTTP status errors; `nil` otherwise.
    public var statusCode: Int? { httpErrorResponse?.statusCode }

    /// The `URLError` code, for transport errors and cancellation; `nil` otherwise.
    public var urlErrorCode: URLError.Code? {
        switch self {
        case .notConnectedToInternet: .notConnectedToInternet
        case .timedOut: .timedOut
        case .cannotFindHost: .cannotFindHost
        case .cannotConnectToHost: .cannotConnectToHost
        case .networkConnectionLost: .networkConnectionLost
        case .secureConnectionFailed(let code), .transportError(let code): code
        case .cancelled: .cancelled
        default: nil
        }
    }

    /// Whether sending the same request again may succeed: transient transport failures
    /// (timed out, connection lost, not connected, cannot connect) and the statuses 408, 429,
    /// 500, 502, 503 and 504. Retry policies also check that the method is idempotent.
    public var isRetryable: Bool {
        switch self {
        case .timedOut, .networkConnectionLost, .notConnectedToInternet, .cannotConnectToHost:
            true
        default:
            statusCode.map { [408, 429, 500, 502, 503, 504].contains($0) } ?? false
        }
    }

    /// Decodes the body of an HTTP status error into `type`, for servers that describe their
    /// errors in JSON; `nil` if this is not an HTTP status error or the body does not decode.
    ///
    /// ```swift
    /// if let apiError = error.decodedBody(as: APIError.self) { show(apiError.message) }
    /// ```
    public func decodedBody<Body: Decodable>(as type: Body.Type, decoder: JSONDecoder = JSONDecoder()) -> Body? {
        try? httpErrorResponse?.decodeBody(as: type, decoder: decoder)
    }
}
