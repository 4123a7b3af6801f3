import Foundation

/// An error that is neither a `URLError` nor a ``NetworkError``, as a session (a custom one,
/// a decorator or a fake) reported it: its domain, code and message, and the error itself.
///
/// ```swift
/// if case .underlying(let underlying) = error, underlying.domain == "com.example.vpn" {
///     print(underlying.code, underlying.message)
/// }
/// ```
public struct UnderlyingError: Equatable, Sendable, CustomStringConvertible {
    /// The error's domain, as `NSError` reports it: `"com.example.vpn"`, or the type name of
    /// a Swift error.
    public let domain: String
    /// The error's code, as `NSError` reports it.
    public let code: Int
    /// The error's description: its `NSLocalizedDescriptionKey`, its `errorDescription` as a
    /// `LocalizedError`, or else its `String(describing:)`.
    public let message: String
    /// The error itself, when this was made from one, to cast back to your own error type.
    /// Not part of equality.
    public let error: (any Error)?

    /// Creates an underlying error, for sessions, fakes and mappers that build errors themselves.
    public init(domain: String, code: Int, message: String, error: (any Error)? = nil) {
        self.domain = domain
        self.code = code
        self.message = message
        self.error = error
    }

    /// The domain, code and message of `error`, and `error` itself.
    public init(_ error: any Error) {
        let nsError = error as NSError
        let message =
            (nsError.userInfo[NSLocalizedDescriptionKey] as? String)
            ?? (error as? LocalizedError)?.errorDescription
            ?? String(describing: error)
        self.init(domain: nsError.domain, code: nsError.code, message: message, error: error)
    }

    /// Two underlying errors are equal when their domains, codes and messages are.
    public static func == (lhs: UnderlyingError, rhs: UnderlyingError) -> Bool {
        lhs.domain == rhs.domain && lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// `"<domain> error <code>: <message>"`.
    public var description: String { "\(domain) error \(code): \(message)" }
}
