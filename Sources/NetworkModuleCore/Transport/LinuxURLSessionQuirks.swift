import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What swift-corelibs-foundation's `URLSession` does differently from Apple's, and how the
/// framework evens it out. Both `URLSession`'s own conformance and ``URLSessionTransport``
/// use these, so the answers are the same whichever session a module runs on.
enum LinuxURLSessionQuirks {
    /// Whether the platform's `URLSession` needs the adjustments below.
    #if canImport(FoundationNetworking)
        static let apply = true
    #else
        static let apply = false
    #endif

    /// Maps libcurl-specific errors of a request sent to `url` to the codes Apple's `URLSession`
    /// reports: a connection closed before the whole body arrived is `.networkConnectionLost`
    /// (Linux: `.unknown`, "transfer closed with N bytes remaining"); a response libcurl cannot
    /// read as HTTP/1.x is `.badServerResponse` (see ``isAboutTheResponse(_:sentTo:)``); broken
    /// framing, bodies and heads get the code Apple reports (see ``serverFaultCode(for:)``), and
    /// TLS failures (Linux: `.unknown` with libcurl's message) get a TLS code: see
    /// ``tlsErrorCode(for:)``. The `userInfo`, with libcurl's message as the localized
    /// description, is kept.
    static func normalized(_ error: any Error, sentTo url: URL?) -> any Error {
        guard apply, let urlError = error as? URLError else { return error }
        let message = (urlError as NSError).localizedDescription
        if urlError.code == .unknown && message.contains("transfer closed with") {
            return URLError(.networkConnectionLost, userInfo: urlError.userInfo)
        }
        if isAboutTheResponse(urlError, sentTo: url) {
            return URLError(.badServerResponse, userInfo: urlError.userInfo)
        }
        if urlError.code == .unknown, let code = serverFaultCode(for: message) ?? tlsErrorCode(for: message) {
            return URLError(code, userInfo: urlError.userInfo)
        }
        return error
    }

    /// Whether `error`, an `.unsupportedURL`, is about the response rather than the URL: Linux
    /// reports a status line libcurl cannot read ("Received HTTP/0.9", "Unsupported HTTP version
    /// in response" for `HTTP/1.1 abc OK`, "Unsupported response code" for `2000`) with the code
    /// of a URL it refuses. A URL it supports (http or https, with a host) was sent, so the fault
    /// is the server's, whatever libcurl's message says.
    static func isAboutTheResponse(_ error: URLError, sentTo url: URL?) -> Bool {
        guard error.code == .unsupportedURL, let url, let host = url.host, !host.isEmpty else { return false }
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    /// The code Apple's `URLSession` reports for the broken response libcurl describes as
    /// `message` (as a `URLError.unknown` on Linux), or `nil` if the message is not about one:
    /// - a body that cannot be decompressed ("Error while processing content unencoding: …",
    ///   bad gzip, deflate or brotli data): `.cannotDecodeContentData`;
    /// - broken framing: a malformed chunk size ("Illegal or missing hexadecimal sequence in
    ///   chunked-encoding", and libcurl's other chunk errors), an invalid `Content-Length`
    ///   ("Invalid Content-Length: value", a negative one among them): `.badServerResponse`;
    /// - a response head libcurl or swift-corelibs-foundation cannot hold: a header larger than
    ///   libcurl's 100 KiB limit (libcurl 7.x says "Out of memory"; later versions "Too large
    ///   response headers") or one Foundation cannot read ("Failed writing header", for
    ///   example a header value that is not UTF-8, such as Latin-1 obs-text, which Apple's
    ///   `URLSession` accepts): `.cannotParseResponse`.
    static func serverFaultCode(for message: String) -> URLError.Code? {
        let lowercased = message.lowercased()
        if lowercased.contains("content unencoding") || lowercased.contains("content decoding") {
            return .cannotDecodeContentData
        }
        if lowercased.contains("chunked-encoding") || lowercased.contains("chunk")
            || lowercased.contains("invalid content-length")
        {
            return .badServerResponse
        }
        if lowercased == "out of memory" || lowercased.contains("too large response headers")
            || lowercased.contains("failed writing header") || lowercased.contains("header size")
        {
            return .cannotParseResponse
        }
        return nil
    }

    /// The code Apple's `URLSession` reports for the TLS failure libcurl describes as
    /// `message`, or `nil` if the message is not about TLS. libcurl (OpenSSL) says, for example,
    /// "SSL certificate problem: self-signed certificate", "SSL certificate problem: certificate
    /// has expired", "SSL: no alternative certificate subject name matches target host name
    /// 'x'", or "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to x:443".
    static func tlsErrorCode(for message: String) -> URLError.Code? {
        let lowercased = message.lowercased()
        if lowercased.hasPrefix("ssl certificate problem:") {
            if lowercased.contains("has expired") { return .serverCertificateHasBadDate }
            if lowercased.contains("not yet valid") { return .serverCertificateNotYetValid }
            return .serverCertificateUntrusted
        }
        if lowercased.contains("subject name") && lowercased.hasPrefix("ssl:") {
            return .serverCertificateUntrusted
        }
        let tlsMarkers = ["ssl_connect", "ssl routines", "ssl connect error", "tls connect error", "ssl peer", "ssl:"]
        if tlsMarkers.contains(where: lowercased.contains) {
            return .secureConnectionFailed
        }
        return nil
    }

    /// The `timeoutInterval` the framework gives swift-corelibs-foundation, which enforces it
    /// itself as a deadline for the whole response, converting it with `Int(_:)` (a trap for
    /// NaN, infinity and huge values) and truncating it to whole seconds (`0.5` becomes an
    /// immediate timeout).
    ///
    /// - `idleTimeoutEnforced`: the caller enforces `timeout` itself as an idle timeout
    ///   (``URLSessionTransport``), so Linux's own timer must not end a response that is
    ///   still receiving bytes: it is set to ``longestResponseTime``.
    /// - otherwise (a plain `URLSession`): one second past the framework's deadline, whole
    ///   seconds, at most ``longestResponseTime``, so the framework's deadline fires first and
    ///   Linux's ends a task the framework could not cancel (see ``cancelIsSafe(on:)``).
    static func outgoingTimeout(for timeout: TimeInterval, idleTimeoutEnforced: Bool) -> TimeInterval {
        guard !idleTimeoutEnforced, let delay = RequestTimeout(seconds: timeout).nanoseconds else {
            return longestResponseTime
        }
        return min(longestResponseTime, (Double(delay) / 1e9).rounded(.up) + 1)
    }

    /// The longest a response may take on Linux, whatever its timeout: 7 days, the default
    /// `timeoutIntervalForResource` of Apple's `URLSession`.
    static let longestResponseTime: TimeInterval = 7 * 24 * 60 * 60

    /// Whether `URLSessionTask.cancel()` may be called on a resumed task of `session`.
    ///
    /// On Linux, a session with a `URLCache` looks each task's cached response up on a global
    /// background queue, outside the task's serial work queue; `cancel()` then races the
    /// task's own completion, and when it loses, swift-corelibs-foundation reports the
    /// cancellation of a task it already removed from its registry and traps
    /// (`TaskRegistry.swift`: "Trying to access a behaviour for a task that in not in the
    /// registry"). Without a `URLCache` the lookup is skipped and cancelling is safe. Apple
    /// platforms: always safe.
    static func cancelIsSafe(on session: URLSession) -> Bool {
        !apply || session.configuration.urlCache == nil
    }

    /// Whether a transport pinning certificates must refuse HTTPS: the platform's `URLSession`
    /// cannot enforce pinning (swift-corelibs-foundation has no server-trust challenge).
    #if canImport(FoundationNetworking)
        static let pinningUnsupported = true
    #else
        static let pinningUnsupported = false
    #endif

    /// The error an HTTPS request to `url` fails with on a transport that pins certificates or
    /// keys where pinning cannot be enforced: it was not sent.
    static func pinningUnsupportedError(url: URL?) -> URLError {
        URLError(
            .secureConnectionFailed,
            message:
                "Pinning (URLSessionTransport serverTrust: .pinnedCertificates or .pinnedPublicKeys) is not "
                + "supported by URLSession on this platform (swift-corelibs-foundation has no server-trust challenge), so the "
                + "HTTPS request was not sent rather than sent without the pin.",
            failingURL: url)
    }
}
