import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything that can go wrong with a request, with what a caller needs to act on it.
///
/// - HTTP status errors carry an ``HTTPErrorResponse``: status code, headers and body bytes,
///   so a server's error JSON can be decoded with ``HTTPErrorResponse/decodeBody(as:decoder:)-(_,JSONDecoder)``.
/// - Transport errors carry a ``TransportFailure``: the `URLError`'s code (``urlErrorCode``),
///   the failing URL and the session's message.
/// - Any other error a session reports is kept as it is (``underlying(_:)``), to cast back to
///   your own error type.
/// - Decoding errors say which type, key and path failed (``DecodingFailure``).
/// - ``isRetryable`` says whether sending the same request again may succeed.
///
/// ## Equality
/// Two errors are equal when they are the same case with the same status response (its status
/// code and body: see ``HTTPErrorResponse/==(_:_:)``), reason or failure; for the transport
/// cases, what counts is the case and, for ``secureConnectionFailed(_:)-enum.case`` and
/// ``transportError(_:)-enum.case``, the code.
/// The failing URL and the message describe one occurrence (and differ between platforms), so
/// they are not part of equality: `error == .timedOut` holds for every time-out, and
/// `error == .transportError(.badServerResponse)` for every such failure. The same goes for
/// ``underlying(_:)``: its domain and code count, not its message.
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

    /// The device is offline (`URLError.notConnectedToInternet`, `.dataNotAllowed`,
    /// `.internationalRoamingOff`), with the session's code, failing URL and message.
    case notConnectedToInternet(TransportFailure)
    /// The request timed out (`URLError.timedOut`), with the session's failing URL and message.
    case timedOut(TransportFailure)
    /// The host name could not be resolved (`URLError.cannotFindHost`, `.dnsLookupFailed`),
    /// with the session's code, failing URL and message.
    case cannotFindHost(TransportFailure)
    /// No connection could be made to the host (`URLError.cannotConnectToHost`), with the
    /// session's failing URL and message.
    case cannotConnectToHost(TransportFailure)
    /// The connection was lost while the request was in flight
    /// (`URLError.networkConnectionLost`), with the session's failing URL and message.
    case networkConnectionLost(TransportFailure)
    /// TLS failed: a certificate was untrusted, expired or rejected, or the handshake failed
    /// (or, on Linux, certificate pinning was asked for). The failure's code says which, its
    /// message says why.
    case secureConnectionFailed(TransportFailure)
    /// Another transport failure, with its `URLError` code, failing URL and message.
    case transportError(TransportFailure)
    /// The session reported an error that is neither a `URLError` nor a ``NetworkError`` (a custom
    /// session's or a fake's): the error itself, to cast back to your own type; its domain and code
    /// are those of `error as NSError`. Also what a second task's `next()` on a ``ResponseStream``
    /// throws while another task waits for a chunk of it (a mistake in the calling code).
    case underlying(any Error)

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
    /// An action failed the request with an error that is not a ``NetworkError``: the action's
    /// type name (`"TokenAction"`, say), so that the failing action can be found, and the error
    /// it reported, to cast back to your own type.
    case actionFailed(action: String, error: any Error)

    // MARK: - The transport cases with only a code

    /// ``notConnectedToInternet(_:)`` with no failing URL or message: `error == .notConnectedToInternet`,
    /// or an error built by hand.
    public static var notConnectedToInternet: NetworkError {
        .notConnectedToInternet(TransportFailure(code: .notConnectedToInternet))
    }
    /// ``timedOut(_:)`` with no failing URL or message: `error == .timedOut`, or an error built by hand.
    public static var timedOut: NetworkError { .timedOut(TransportFailure(code: .timedOut)) }
    /// ``cannotFindHost(_:)`` with no failing URL or message: `error == .cannotFindHost`, or an
    /// error built by hand.
    public static var cannotFindHost: NetworkError { .cannotFindHost(TransportFailure(code: .cannotFindHost)) }
    /// ``cannotConnectToHost(_:)`` with no failing URL or message: `error == .cannotConnectToHost`,
    /// or an error built by hand.
    public static var cannotConnectToHost: NetworkError {
        .cannotConnectToHost(TransportFailure(code: .cannotConnectToHost))
    }
    /// ``networkConnectionLost(_:)`` with no failing URL or message: `error == .networkConnectionLost`,
    /// or an error built by hand.
    public static var networkConnectionLost: NetworkError {
        .networkConnectionLost(TransportFailure(code: .networkConnectionLost))
    }
    /// ``secureConnectionFailed(_:)-enum.case`` with only a code:
    /// `error == .secureConnectionFailed(.serverCertificateUntrusted)`.
    public static func secureConnectionFailed(_ code: URLError.Code) -> NetworkError {
        .secureConnectionFailed(TransportFailure(code: code))
    }
    /// ``transportError(_:)-enum.case`` with only a code: `error == .transportError(.badServerResponse)`.
    public static func transportError(_ code: URLError.Code) -> NetworkError {
        .transportError(TransportFailure(code: code))
    }

    // MARK: - Making errors

    /// Maps a `URLError` to the matching case, keeping its code, failing URL and message;
    /// `URLError.cancelled` becomes ``cancelled``.
    init(_ urlError: URLError) {
        self.init(transportFailure: TransportFailure(urlError))
    }

    /// Maps any error, as the module maps what a session reports, for code that builds errors
    /// itself (custom sessions, fakes, mappers):
    /// - a ``NetworkError`` as it is;
    /// - a `URLError`, or an `NSError` in `NSURLErrorDomain`, by its code, keeping its failing
    ///   URL and message;
    /// - Swift's `CancellationError` as ``cancelled``;
    /// - anything else as ``underlying(_:)``, as it is.
    ///
    /// ```swift
    /// let error = NetworkError(NSError(domain: "com.example.vpn", code: 420))
    /// // .underlying(the NSError), whose domain and code count for equality
    /// ```
    public init(_ error: any Error) {
        if let networkError = error as? NetworkError {
            self = networkError
        } else if let urlError = error as? URLError {
            self.init(urlError)
        } else if error is CancellationError {
            self = .cancelled
        } else {
            let nsError = error as NSError
            guard nsError.domain == NSURLErrorDomain else {
                self = .underlying(error)
                return
            }
            #if canImport(FoundationNetworking)
                // swift-corelibs-foundation's initializer is failable; Apple's is not.
                let code = URLError.Code(rawValue: nsError.code) ?? .unknown
            #else
                let code = URLError.Code(rawValue: nsError.code)
            #endif
            self.init(transportFailure: TransportFailure(code: code, userInfo: nsError.userInfo))
        }
    }

    /// The error for an HTTP response whose status the request does not accept, with its
    /// headers, URL and `body`: 401 is ``unauthorized(_:)``, 403 ``forbidden(_:)``, 404
    /// ``notFound(_:)``, another 4xx ``clientError(_:)``, a 5xx ``serverError(_:)``, and any
    /// other status (a 2xx or 3xx, whatever the number) ``unacceptableStatusCode(_:)``.
    public init(response: HTTPURLResponse, body: Data = Data()) {
        self.init(
            response: HTTPErrorResponse(
                statusCode: response.statusCode, headers: HTTPHeaders(response.allHeaderFields), body: body,
                url: response.url))
    }

    /// The error for `statusCode`, with the headers, body and URL given, mapped as
    /// ``init(response:body:)`` maps a response: `NetworkError(statusCode: 404)` is
    /// ``notFound(_:)``. Any `Int` is accepted.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.init(response: HTTPErrorResponse(statusCode: statusCode, headers: headers, body: body, url: url))
    }

    /// The error for an ``HTTPErrorResponse``, mapped by its status as
    /// ``init(response:body:)`` maps a response.
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

    /// The error an action reports: a ``NetworkError`` as it is, anything else wrapped in
    /// ``actionFailed(action:error:)`` with the action's type name.
    init(actionError error: any Error, action: any NetworkModuleAction) {
        if let networkError = error as? NetworkError {
            self = networkError
        } else {
            self = .actionFailed(action: String(describing: type(of: action)), error: error)
        }
    }

    /// Maps a transport failure to the case for its code.
    init(transportFailure failure: TransportFailure) {
        switch failure.code {
        case .cancelled: self = .cancelled
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: self = .notConnectedToInternet(failure)
        case .timedOut: self = .timedOut(failure)
        case .cannotFindHost, .dnsLookupFailed: self = .cannotFindHost(failure)
        case .cannotConnectToHost: self = .cannotConnectToHost(failure)
        case .networkConnectionLost: self = .networkConnectionLost(failure)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
            .clientCertificateRejected, .clientCertificateRequired:
            self = .secureConnectionFailed(failure)
        default: self = .transportError(failure)
        }
    }

    // MARK: - Reading errors

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

    /// The session's code, failing URL and message, for the transport cases; `nil` otherwise.
    public var transportFailure: TransportFailure? {
        switch self {
        case .notConnectedToInternet(let failure), .timedOut(let failure), .cannotFindHost(let failure),
            .cannotConnectToHost(let failure), .networkConnectionLost(let failure),
            .secureConnectionFailed(let failure), .transportError(let failure):
            failure
        default: nil
        }
    }

    /// The `URLError` code the session reported, for transport errors (for example
    /// `.dataNotAllowed` for ``notConnectedToInternet(_:)``), and `.cancelled` for
    /// ``cancelled``; `nil` otherwise.
    public var urlErrorCode: URLError.Code? {
        if case .cancelled = self { return .cancelled }
        return transportFailure?.code
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

    /// Whether the request failed for lack of network, rather than because of the server (what
    /// ``RetryPolicy/waitingForNetwork(on:upTo:)`` waits on): by the code alone, so that every way
    /// a session reports one failure (Apple's, libcurl's on Linux, the framing check) agrees.
    var isConnectivityFailure: Bool {
        urlErrorCode.map(Self.isLackOfNetwork) ?? false
    }

    /// The one place that decides whether a failure with `code` is for lack of network: no
    /// connection (and the codes that say why there is none), or one lost on the way (on Linux
    /// also a body cut short, libcurl's "transfer closed with N bytes remaining to read").
    static func isLackOfNetwork(_ code: URLError.Code) -> Bool {
        switch code {
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive,
            .networkConnectionLost:
            true
        default:
            false
        }
    }

    // MARK: - Equality

    /// Whether two errors are the same failure: the same case with equal payloads, except that
    /// a transport failure's failing URL and message, and an underlying error's message, are not
    /// compared (see "Equality" above).
    public static func == (lhs: NetworkError, rhs: NetworkError) -> Bool {
        // A switch over `lhs` with no default: a new case does not compile until it is compared.
        switch lhs {
        case .invalidRequest(let left): if case .invalidRequest(let right) = rhs { return left == right }
        case .unauthorized(let left): if case .unauthorized(let right) = rhs { return left == right }
        case .forbidden(let left): if case .forbidden(let right) = rhs { return left == right }
        case .notFound(let left): if case .notFound(let right) = rhs { return left == right }
        case .clientError(let left): if case .clientError(let right) = rhs { return left == right }
        case .serverError(let left): if case .serverError(let right) = rhs { return left == right }
        case .unacceptableStatusCode(let left):
            if case .unacceptableStatusCode(let right) = rhs { return left == right }
        case .notConnectedToInternet: if case .notConnectedToInternet = rhs { return true }
        case .timedOut: if case .timedOut = rhs { return true }
        case .cannotFindHost: if case .cannotFindHost = rhs { return true }
        case .cannotConnectToHost: if case .cannotConnectToHost = rhs { return true }
        case .networkConnectionLost: if case .networkConnectionLost = rhs { return true }
        case .secureConnectionFailed(let left):
            if case .secureConnectionFailed(let right) = rhs { return left.code == right.code }
        case .transportError(let left): if case .transportError(let right) = rhs { return left.code == right.code }
        case .underlying(let left):
            if case .underlying(let right) = rhs { return Self.sameDomainAndCode(left, right) }
        case .cancelled: if case .cancelled = rhs { return true }
        case .responseTooLarge(let left): if case .responseTooLarge(let right) = rhs { return left == right }
        case .invalidResponse: if case .invalidResponse = rhs { return true }
        case .noResponseData: if case .noResponseData = rhs { return true }
        case .decodingFailed(let left): if case .decodingFailed(let right) = rhs { return left == right }
        case .actionFailed(let leftAction, let left):
            if case .actionFailed(let rightAction, let right) = rhs {
                return leftAction == rightAction && Self.sameDomainAndCode(left, right)
            }
        }
        return false
    }

    /// Whether two errors have the same domain and code as `NSError`s: how ``underlying(_:)`` and
    /// ``actionFailed(action:error:)`` compare the errors they carry.
    private static func sameDomainAndCode(_ left: any Error, _ right: any Error) -> Bool {
        let (left, right) = (left as NSError, right as NSError)
        return left.domain == right.domain && left.code == right.code
    }
}
