import Foundation

/// Why a request could not be built or was rejected before it was sent.
public enum InvalidRequestReason: Equatable, Sendable {
    /// The base URL has no scheme or host, or has a query or fragment. Carries the base URL.
    case invalidBaseURL(String)
    /// The path does not make a valid URL. Carries the path.
    case invalidPath(String)
    /// The method is not a valid HTTP token: letters, digits, `!#$%&'*+-.^_|~` and the backtick.
    case invalidMethod(String)
    /// A header name is empty or has characters other than those of an HTTP token.
    case invalidHeaderName(String)
    /// A header value contains CR, LF, NUL or another control character. Carries the
    /// header's name; the value is left out, as it may be a secret.
    case invalidHeaderValue(name: String)
    /// The body could not be encoded. Carries the encoder's description of the problem.
    case bodyEncodingFailed(String)
    /// The timeout is not a positive, finite number of seconds.
    case invalidTimeout(TimeInterval)
    /// The request has no URL.
    case missingURL
}
