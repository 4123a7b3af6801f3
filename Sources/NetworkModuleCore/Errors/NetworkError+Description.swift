import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension NetworkError: LocalizedError, CustomStringConvertible {
    /// What happened and what to check, in one or two sentences.
    public var errorDescription: String? { description }

    /// What happened and what to check, in one or two sentences.
    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            return "The request could not be built, so nothing was sent: \(reason.explanation)"
        case .unauthorized(let response):
            return "\(response.summary): the server needs valid credentials. Check that the request sets "
                + "requiresAuthentication and that an authentication action supplies a current token."
        case .forbidden(let response):
            return "\(response.summary): the credentials are valid but not allowed to do this."
        case .notFound(let response):
            return "\(response.summary): check the base URL and the request's path."
        case .clientError(let response):
            return "\(response.summary): the server rejected the request; its body may say why."
        case .serverError(let response):
            return "\(response.summary): the server failed; trying again later may succeed."
        case .unacceptableStatusCode(let response):
            return "\(response.summary), which the request's acceptableStatusCodes do not include."
        case .notConnectedToInternet:
            return "The device is not connected to the internet."
        case .timedOut:
            return "The request timed out. Check the server, or raise the request's timeout."
        case .cannotFindHost:
            return "The host name could not be resolved. Check the base URL's host and DNS."
        case .cannotConnectToHost:
            return "No connection could be made to the host. Check that the server is running on the "
                + "URL's host and port."
        case .networkConnectionLost:
            return "The connection was lost while the request was in flight."
        case .secureConnectionFailed(let code):
            return "The TLS connection failed (URLError code \(code.rawValue)). Check the server's "
                + "certificate, or the certificate pinning configured for it."
        case .transportError(let code):
            return "The request failed in transport (URLError code \(code.rawValue))."
        case .cancelled:
            return "The request was cancelled."
        case .responseTooLarge(let limit):
            return "The response body was larger than the limit of \(limit) bytes, so it was not read. Raise "
                + "the transport's maximumResponseSize if such responses are expected."
        case .invalidResponse:
            return "The session returned no response, or a response that is not HTTP."
        case .noResponseData:
            return "A response body was expected but the server sent none. For endpoints that may "
                + "answer 204 No Content, decode with decodeIfPresent."
        case .decodingFailed(let failure):
            return "The response could not be decoded: \(failure). Check the type against the server's JSON."
        case .actionFailed(let failure):
            return "The action \(failure.actionName) failed the request: \(failure.message)"
        }
    }
}

extension HTTPErrorResponse {
    /// "HTTP 404 from https://…".
    fileprivate var summary: String {
        "HTTP \(statusCode)" + (url.map { " from \($0.absoluteString)" } ?? "")
    }
}

extension InvalidRequestReason {
    fileprivate var explanation: String {
        switch self {
        case .invalidBaseURL(let url):
            return "the base URL \"\(url)\" needs a scheme and a host, and no query or fragment."
        case .invalidPath(let path):
            return "the path \"\(path)\" does not make a valid URL."
        case .invalidMethod(let method):
            return "the method \"\(method)\" is not a valid HTTP method token."
        case .invalidHeaderName(let name):
            return "the header name \"\(name)\" is empty or has characters not allowed in a header name."
        case .invalidHeaderValue(let name):
            return "the value of header \"\(name)\" contains a line break or another control character."
        case .bodyEncodingFailed(let message):
            return "the body could not be encoded (\(message))."
        case .invalidTimeout(let timeout):
            return "the timeout \(timeout) is not a positive number of seconds."
        case .missingURL:
            return "the URLRequest has no URL."
        }
    }
}
