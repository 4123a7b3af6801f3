import Foundation

/// Where an attempt went, as a span reports it: the URL with its secrets masked, the server and
/// the port. Worked out once per answered attempt, from the `URL` already parsed, and shared by
/// the attempt's span and its request's.
struct SpanTarget {
    /// The URL, secret query values and password masked as logs mask them.
    let url: String
    /// The host; `nil` for a URL without one.
    let serverAddress: String?
    /// The port, the scheme's default when the URL names none; `nil` when unknown.
    let serverPort: Int?

    init(url: URL, redaction: Redaction) {
        self.url = redaction.loggable(url)
        self.serverAddress = url.host
        self.serverPort = url.port ?? URL.defaultPort(forScheme: url.scheme)
    }
}
