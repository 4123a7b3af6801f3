import Foundation

/// An HTTP request method, spelled exactly as it goes on the wire.
///
/// The common methods are static members (`.get`, `.post`, …) with uppercase values.
/// Any other method token can be used too: `HTTPMethod(rawValue: "PURGE")` or the
/// string literal `"PURGE"`. Methods are case-sensitive (RFC 9110, section 9.1), so the
/// value is sent exactly as given; the request builder rejects a value that is not a valid
/// method token.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method token sent on the request line, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its wire token, for example `"PURGE"`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from a string literal, for example `let method: HTTPMethod = "PURGE"`.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The wire token, for example `"GET"`.
    public var description: String { rawValue }

    /// `GET`: read a resource.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`: like `GET`, without the body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`: submit data; not idempotent.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: modify a resource in part; not idempotent.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`: ask which methods a resource supports.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`: a loop-back test of the request path.
    public static let trace = HTTPMethod(rawValue: "TRACE")

    /// Whether sending the request twice has the same effect as sending it once
    /// (RFC 9110, section 9.2.2): `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` and `TRACE`.
    ///
    /// Retry policies use this to decide which requests are safe to send again.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
        default: false
        }
    }
}
