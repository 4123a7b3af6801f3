import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an action knows about the request it is working on.
public struct ActionContext: Sendable {
    /// The request description, or `nil` for `perform(urlRequest:)`.
    public let networkRequest: (any NetworkRequest)?
    /// The attempt, counting from 1; a retry increments it.
    public let attempt: Int
    /// The base URL of the module's request builder, if it has one. Credentials belong only
    /// to requests for this URL's origin.
    public let baseURL: URL?
    /// The origin of ``baseURL``, worked out once per module rather than on every check.
    let baseOrigin: Origin?
    /// The request as it was sent in this attempt; `nil` during preparation.
    public let sentRequest: URLRequest?
    /// Seconds since `perform` was called.
    public let elapsed: TimeInterval
    /// Identifies one `perform` call: the same for every attempt and every hook of that request,
    /// different for every other request. Lets an action keep state per request.
    public let requestID: UUID
    /// The request's place among the module's requests: 1 for the first `perform` call of the
    /// module, 2 for the second, and so on; the same on every attempt. Numbers follow the order
    /// in which the calls started, whichever threads they came from.
    public let sequenceNumber: Int
    /// Seconds spent in preparation so far, over all attempts (for example waiting for a token).
    public let preparationTime: TimeInterval
    /// Seconds between handing the request to the session and its answer, over all attempts
    /// answered so far.
    public let timeInFlight: TimeInterval
    /// Body bytes sent so far, over all attempts: `httpBody`'s bytes, and a body stream's
    /// length when it is known (a file's size, a stream's stated length, its `Content-Length`);
    /// headers are not counted.
    public let bytesSent: Int
    /// Body bytes received so far, over all attempts, error responses included.
    public let bytesReceived: Int
    /// What the session observed of the last attempt answered, for the built-in actions that
    /// read it (tracing, metrics); `nil` for the others.
    let recorder: AttemptRecorder?

    /// The method of the request: as sent in this attempt, else as described, else `GET`.
    var method: String {
        sentRequest?.httpMethod ?? networkRequest?.method.rawValue ?? "GET"
    }

    /// Whether `url` has the same origin (scheme, host and port) as ``baseURL``; `false`
    /// when there is no base URL. Credentials should be attached only when this is `true`.
    public func isSameOrigin(as url: URL?) -> Bool {
        guard let url, let baseOrigin else { return false }
        // Fast path: most URLs start with the base's own "scheme://host[:port]" text.
        if baseOrigin.isPrefix(of: url.absoluteString) { return true }
        guard let origin = Origin(url) else { return false }
        return origin == baseOrigin
    }
}

// In an extension, so that the module's contexts use the memberwise initializer, with the base
// URL's origin worked out once.
extension ActionContext {
    /// Creates a context for testing an action on its own; the module makes its own contexts.
    ///
    /// The timings and byte counts are zero, ``requestID`` is a new identifier and
    /// ``sequenceNumber`` is 1.
    ///
    /// - Parameters:
    ///   - networkRequest: The request description, or `nil` as for `perform(urlRequest:)`.
    ///   - attempt: The attempt, counting from 1.
    ///   - baseURL: The base URL whose origin ``isSameOrigin(as:)`` compares with.
    ///   - sentRequest: The request as sent in this attempt; `nil` as during preparation.
    public init(
        networkRequest: (any NetworkRequest)?, attempt: Int = 1, baseURL: URL? = nil, sentRequest: URLRequest? = nil
    ) {
        self.init(
            networkRequest: networkRequest, attempt: attempt, baseURL: baseURL,
            baseOrigin: baseURL.flatMap(Origin.init), sentRequest: sentRequest, elapsed: 0, requestID: UUID(),
            sequenceNumber: 1, preparationTime: 0, timeInFlight: 0, bytesSent: 0, bytesReceived: 0, recorder: nil)
    }
}

/// The origin of a URL (RFC 6454): scheme, host and port, with default ports filled in.
/// Scheme and host compare ignoring ASCII case, without building lowercased copies (this runs
/// for every request an authentication action sees).
struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int?
    /// "scheme://host" or "scheme://host:port" as the URL spelled it, in UTF-8, for the fast
    /// prefix check.
    private let spelledPrefix: [UInt8]?

    init?(_ url: URL) {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        self.scheme = scheme
        self.host = host
        self.port =
            url.port
            ?? (scheme.caseInsensitiveEquals("https") ? 443 : scheme.caseInsensitiveEquals("http") ? 80 : nil)
        let prefix = scheme + "://" + host + (url.port.map { ":\($0)" } ?? "")
        // Only a URL without user info or an IP-literal host spells its origin this plainly.
        self.spelledPrefix =
            url.user == nil && !host.contains(":") && url.absoluteString.hasPrefix(prefix) ? Array(prefix.utf8) : nil
    }

    /// Whether `urlText` starts with exactly this origin's spelled prefix, followed by the end,
    /// `/`, `?` or `#`: then it has this origin. A `false` proves nothing; compare origins then.
    func isPrefix(of urlText: String) -> Bool {
        guard let prefix = spelledPrefix else { return false }
        var text = urlText
        return text.withUTF8 { text in
            guard text.count >= prefix.count, text.prefix(prefix.count).elementsEqual(prefix) else { return false }
            guard text.count > prefix.count else { return true }
            let next = text[prefix.count]
            return next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
        }
    }

    static func == (lhs: Origin, rhs: Origin) -> Bool {
        lhs.port == rhs.port && lhs.scheme.caseInsensitiveEquals(rhs.scheme) && lhs.host.caseInsensitiveEquals(rhs.host)
    }
}
