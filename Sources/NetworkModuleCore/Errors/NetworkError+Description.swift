import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension NetworkError: LocalizedError, CustomStringConvertible {
    /// What happened and what to check, in one or two sentences.
    public var errorDescription: String? { description }

    /// What happened and what to check, in one or two sentences, with the status and the URL
    /// when the error has them, and the session's own message for transport and underlying
    /// errors. Written for developers and logs, not for end users. Header values and bodies are
    /// never included, and the text is masked with ``Redaction/default`` (a URL's password and
    /// secret query and fragment values, secret `name=value` pairs in a session's message or a
    /// path that could not be built); what a session wrote is masked on its own, so the words
    /// around it never change what it shows. A transport error's failing URL is left out (it is
    /// in ``TransportFailure/failingURL``): the caller knows the URL, and a log line shows it
    /// through its own redaction, which may mask more.
    public var description: String {
        masked(with: .default)
    }

    /// The description, masked with `redaction` as well as with ``Redaction/default``: what the
    /// logging action and a HAR recording write (`Redaction.loggable(_:)`).
    ///
    /// What a session wrote (a transport error's message; another domain's name, code and
    /// message, as one text, since a secret's name may end one and its value start the next) is
    /// masked on its own, not with the framework's words around it: with them, an apostrophe in
    /// the words ("the request's") and a `':` in the message read as one quoted secret name.
    package func masked(with redaction: Redaction) -> String {
        let mask: (String) -> String = { text in
            let masked = Redaction.default.redactedText(text)
            return redaction == .default ? masked : redaction.redactedText(masked)
        }
        if case .underlying(let error) = self, !(error is ResponseStream.ConcurrentIteration) {
            let nsError = error as NSError
            let said = mask("\(nsError.domain) error \(nsError.code)): \(Self.message(of: error))")
            return "The request failed with an error that is not a URLError (\(said.asSentence) Check the "
                + "session (a custom session, decorator or fake) that reported it."
        }
        let detail = transportFailure?.message.map { " The session said: \"\(mask($0))\"" } ?? ""
        return mask(unmaskedDescription) + detail
    }

    /// The description before masking, without what a session wrote (``masked(with:)`` adds it):
    /// never written anywhere as it is.
    private var unmaskedDescription: String {
        switch self {
        case .invalidRequest(let reason):
            return "The request could not be built, so nothing was sent: \(reason.explanation)"
        case .unauthorized(let response):
            return "\(response.summary): the server needs valid credentials. Check that the request sets "
                + "requiresAuthentication and that an authentication action supplies a current token."
        case .forbidden(let response):
            return "\(response.summary): the credentials are valid but not allowed to do this. Check the "
                + "account's permissions for this resource."
        case .notFound(let response):
            return "\(response.summary): check the base URL and the request's path."
        case .clientError(let response):
            return "\(response.summary): \(response.clientErrorHint)"
        case .serverError(let response):
            return "\(response.summary): \(response.serverErrorHint)"
        case .unacceptableStatusCode(let response):
            return "\(response.summary), which the request's acceptableStatusCodes do not include. "
                + response.unacceptableStatusHint
        case .notConnectedToInternet:
            return "The device is not connected to the internet. Check the connection (Wi-Fi, cellular "
                + "data, a VPN or proxy); the request may succeed once it is back."
        case .timedOut:
            return "The request timed out: no answer came within its timeout (the builder's "
                + "defaultTimeout unless the request sets one). Check that the server is up and reachable, "
                + "or raise the timeout."
        case .cannotFindHost:
            return "The host name could not be resolved. Check the base URL's host and DNS."
        case .cannotConnectToHost:
            return "No connection could be made to the host. Check that the server is running on the "
                + "URL's host and port."
        case .networkConnectionLost:
            return "The connection was lost while the request was in flight. This is usually transient "
                + "and trying again may succeed; if it keeps happening, check the server or a proxy closing "
                + "connections."
        case .secureConnectionFailed(let failure):
            return "The TLS connection failed (\(failure.code.summary)). \(failure.code.secureConnectionHint)"
        case .transportError(let failure):
            return "The request failed in transport (\(failure.code.summary)). \(failure.code.transportHint)"
        case .underlying(let error as ResponseStream.ConcurrentIteration):
            return "A ResponseStream was iterated by two tasks at once. \(error.description)"
        case .underlying:
            return ""  // Never read: `masked(with:)` writes it, the session's words inside its own.
        case .cancelled:
            return "The request was cancelled by its caller (cancel() on its handle, or its Task's "
                + "cancellation). Usually there is nothing to show."
        case .responseTooLarge(let limit):
            return "The response body was larger than the limit of \(limit) bytes, so it was not read. Raise "
                + "the transport's maximumResponseSize if such responses are expected."
        case .invalidResponse:
            return "The session returned no response, or a response that is not HTTP. Check the session: "
                + "a custom session, decorator or fake must answer with an HTTPURLResponse or an error."
        case .noResponseData:
            return "A response body was expected but the server sent none. For endpoints that may "
                + "answer 204 No Content, decode with decodeIfPresent."
        case .decodingFailed(let failure):
            return "The response could not be decoded: \(failure). Check the type against the server's JSON."
        case .actionFailed(let action, let error):
            return "The action \(action) failed the request: \(Self.message(of: error))"
        }
    }

    /// An error's own words: its `NSLocalizedDescriptionKey`, its `errorDescription` as a
    /// `LocalizedError`, or else its `String(describing:)`.
    static func message(of error: any Error) -> String {
        ((error as NSError).userInfo[NSLocalizedDescriptionKey] as? String)
            ?? (error as? LocalizedError)?.errorDescription
            ?? String(describing: error)
    }
}

extension HTTPErrorResponse {
    /// "HTTP 404 from https://…", with a password in the URL masked.
    fileprivate var summary: String {
        "HTTP \(statusCode)" + (url.map { " from \(Redaction.default.redacted($0).absoluteString)" } ?? "")
    }

    fileprivate var clientErrorHint: String {
        switch statusCode {
        case 400, 422:
            return "the server rejected the request's content. Check its query and body; the response body "
                + "usually says which field is wrong."
        case 405:
            return "the server does not accept this method here. Check the request's method and path."
        case 406:
            return "the server cannot answer in a format the request accepts. Check the Accept header."
        case 408:
            return "the server gave up waiting for the request. Trying again may succeed."
        case 409:
            return "the request conflicts with the resource's current state. The response body usually says how."
        case 410:
            return "the resource is gone for good. Check whether the API has moved it."
        case 413:
            return "the request's body is larger than the server accepts."
        case 415:
            return "the server does not accept the body's format. Check the request's body and Content-Type."
        case 429:
            return "too many requests. Wait before trying again (the Retry-After header says how long, when "
                + "the server sends it)."
        default:
            return "the server rejected the request; its body may say why."
        }
    }

    fileprivate var serverErrorHint: String {
        switch statusCode {
        case 501:
            return "the server does not support this request. Check the request's method."
        case 502, 504:
            return "a gateway or proxy in front of the server got no valid answer from it; trying again "
                + "later may succeed."
        case 503:
            return "the server is unavailable for now; trying again later (after Retry-After, when the "
                + "server sends it) may succeed."
        default:
            return "the server failed; trying again later may succeed."
        }
    }

    fileprivate var unacceptableStatusHint: String {
        if StatusClass.isRedirect(statusCode) {
            return "It is a redirect that was not followed: check the URL (http or https, a trailing slash) "
                + "or the Location header."
        }
        if StatusClass.isSuccess(statusCode) {
            return "If this status is a success for this endpoint, add it to acceptableStatusCodes."
        }
        return "Check the request's acceptableStatusCodes."
    }
}

extension URLError.Code {

    fileprivate var secureConnectionHint: String {
        switch self {
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return "The server's certificate has expired or is not valid yet: check its dates, and the "
                + "device's clock."
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            return "The server's certificate is not trusted (self-signed, issued by an unknown authority, "
                + "or for another host name). Check the server's certificate chain, or the certificate "
                + "pinning configured for it."
        case .clientCertificateRejected, .clientCertificateRequired:
            return "The server asks for a client certificate, or rejected the one sent."
        default:
            return "Check the server's certificate, or the certificate pinning configured for it."
        }
    }

    fileprivate var transportHint: String {
        switch self {
        case .badURL, .unsupportedURL:
            return "Check the URL: its scheme must be http or https, and it must have a host."
        case .httpTooManyRedirects, .redirectToNonExistentLocation:
            return "The server's redirects loop or lead nowhere. Check the URL and the server's redirects."
        case .badServerResponse, .cannotParseResponse:
            return "The server is at fault: it sent something that is not a valid HTTP response (a bad "
                + "status line, headers or framing, such as a malformed chunk size or Content-Length). "
                + "Check the server, and that the URL's port serves HTTP (and https is not sent to a "
                + "plain HTTP port, or the reverse)."
        case .cannotDecodeContentData, .cannotDecodeRawData:
            return "The server is at fault: its body could not be decompressed as its Content-Encoding "
                + "says. Check the server's compression."
        case .requestBodyStreamExhausted:
            return "The body could not be sent again: a 307 or 308 redirect must resend it, and the session "
                + "cannot (a stream read once, or Linux's URLSession). Send the request to the new URL."
        case .userAuthenticationRequired, .userCancelledAuthentication:
            return "The server asked for authentication that was not given. Check the request's credentials."
        case .unknown:
            return "The session could not say what failed (URLError.unknown); its message, when it gives one, "
                + "may say more."
        default:
            return "Check the URL and the connection; the code says which failure it was."
        }
    }
}

extension InvalidRequestReason {
    fileprivate var explanation: String {
        switch self {
        case .invalidBaseURL(let url):
            return "the base URL \"\(url)\" needs a scheme and a host, and no query or fragment. Check the "
                + "request builder's baseURL."
        case .invalidPath(let path):
            return "the path \"\(path)\" does not make a valid URL. Check the request's path."
        case .invalidMethod(let method):
            return "the method \"\(method)\" is not a valid HTTP method token."
        case .invalidHeaderName(let name):
            return "the header name \"\(name)\" is empty or has characters not allowed in a header name. Check "
                + "the request's headers, the builder's defaultHeaders and the headers actions add."
        case .invalidHeaderValue(let name):
            return "the value of header \"\(name)\" contains a line break or another control character. "
                + "Check where the value comes from (a token read with a trailing newline is a common cause); "
                + "it is not shown here, as it may be a secret."
        case .bodyEncodingFailed(let message):
            return "the body could not be encoded (\(message)). Check the body's Encodable values: JSON "
                + "cannot hold a NaN or infinite number, for example."
        case .invalidTimeout(let timeout):
            return "the timeout \(timeout) is not a positive number of seconds. Check the request's timeout "
                + "and the builder's defaultTimeout."
        case .missingURL:
            return "the URLRequest passed to perform(urlRequest:) has no URL."
        }
    }
}

extension String {
    /// The text with a full stop added when it does not end a sentence already.
    fileprivate var asSentence: String {
        guard let last = last else { return self }
        return ".!?".contains(last) ? self : self + "."
    }
}
