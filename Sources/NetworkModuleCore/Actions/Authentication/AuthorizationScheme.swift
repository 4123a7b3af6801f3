import Foundation

/// How an ``AuthenticationAction`` writes a token into a request: which header, in which
/// format.
///
/// ```swift
/// let schemes: [AuthorizationScheme] = [
///     .bearer,                                     // Authorization: Bearer <token>
///     .basic,                                      // Authorization: Basic <base64 of "user:password">
///     .header("X-API-Key"),                        // X-API-Key: <token>
///     .header("Access-Token"),                     // Access-Token: <token> (the ancestor module's raw token)
///     .header("Authorization", prefix: "Token "),  // Authorization: Token <token>
/// ]
/// ```
///
/// The logging action masks `Authorization` by default; add a custom header's name to its
/// ``Redaction`` (`Redaction.default.adding(headers: ["X-API-Key"])`).
public struct AuthorizationScheme: Sendable {
    /// The header the token goes into.
    let headerName: String
    private let format: @Sendable (String) -> String

    /// A scheme that writes `format(token)` into the header `headerName`.
    public init(headerName: String, format: @escaping @Sendable (String) -> String) {
        self.headerName = headerName
        self.format = format
    }

    /// `Authorization: Bearer <token>` (RFC 6750).
    public static let bearer = AuthorizationScheme(headerName: "Authorization") { "Bearer \($0)" }

    /// `Authorization: Basic <credentials>` (RFC 7617), where the token is `user:password`
    /// and is sent Base64-encoded (UTF-8).
    public static let basic = AuthorizationScheme(headerName: "Authorization") {
        "Basic \(Data($0.utf8).base64EncodedString())"
    }

    /// The token, after `prefix`, in the header `name`.
    public static func header(_ name: String, prefix: String = "") -> AuthorizationScheme {
        AuthorizationScheme(headerName: name) { prefix + $0 }
    }

    /// The header value for `token`.
    func value(for token: String) -> String {
        format(token)
    }
}
