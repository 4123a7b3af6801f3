/// The class of an HTTP status code (RFC 9110 section 15), behind the `isSuccess`,
/// `isRedirect`, `isClientError` and `isServerError` of responses, and the last three of errors.
enum StatusClass {
    static func isSuccess(_ code: Int) -> Bool { AcceptableStatusCodes.successful.contains(code) }
    static func isRedirect(_ code: Int) -> Bool { (300..<400).contains(code) }
    static func isClientError(_ code: Int) -> Bool { (400..<500).contains(code) }
    static func isServerError(_ code: Int) -> Bool { (500..<600).contains(code) }
}

extension NetworkResponse {
    /// Whether the status is 2xx.
    public var isSuccess: Bool { StatusClass.isSuccess(statusCode) }
    /// Whether the status is 3xx (a redirect the session did not follow, or `304 Not Modified`).
    public var isRedirect: Bool { StatusClass.isRedirect(statusCode) }
    /// Whether the status is 4xx (accepted by the request's ``NetworkRequest/acceptableStatusCodes``).
    public var isClientError: Bool { StatusClass.isClientError(statusCode) }
    /// Whether the status is 5xx (accepted by the request's ``NetworkRequest/acceptableStatusCodes``).
    public var isServerError: Bool { StatusClass.isServerError(statusCode) }
}

extension NetworkError {
    /// Whether this is an HTTP status error with a 3xx status; `false` for errors without a status.
    public var isRedirect: Bool { statusCode.map(StatusClass.isRedirect) ?? false }
    /// Whether this is an HTTP status error with a 4xx status (``unauthorized(_:)``,
    /// ``notFound(_:)``, ``clientError(_:)``, …); `false` for errors without a status.
    public var isClientError: Bool { statusCode.map(StatusClass.isClientError) ?? false }
    /// Whether this is an HTTP status error with a 5xx status; `false` for errors without a status.
    public var isServerError: Bool { statusCode.map(StatusClass.isServerError) ?? false }
}
