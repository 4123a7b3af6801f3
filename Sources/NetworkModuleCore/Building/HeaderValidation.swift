import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Checks header fields before anything reaches the wire.
///
/// `URLSession` on Linux sends CR and LF inside header names and values as they are,
/// which lets a value such as `"x\r\nX-Admin: 1"` inject a header (or a whole request).
/// Every header is checked here: from the builder, from actions, and from a raw
/// `URLRequest` passed to `perform(urlRequest:)`.
enum HeaderValidation {
    /// Throws ``NetworkError/invalidRequest(_:)`` if `name` is not an RFC 9110 token or
    /// `value` contains CR, LF, NUL or another control character (horizontal tab is allowed).
    static func validate(name: String, value: String) throws(NetworkError) {
        guard isToken(name) else {
            throw .invalidRequest(.invalidHeaderName(name))
        }
        guard isFieldValue(value) else {
            throw .invalidRequest(.invalidHeaderValue(name: name))
        }
    }

    /// Validates every header field of `request`.
    static func validate(_ request: URLRequest) throws(NetworkError) {
        guard let fields = request.allHTTPHeaderFields else { return }
        for (name, value) in fields { try validate(name: name, value: value) }
    }

    /// Whether `token` is a valid RFC 9110 token, as method names and header names must be.
    static func isToken(_ token: String) -> Bool {
        !token.isEmpty && tokenCharacters.containsAll(token)
    }

    /// RFC 9110 `tchar`: letters, digits and ``!#$%&'*+-.^_`|~``.
    static let tokenCharacters = ASCIISet.alphanumerics.union(ASCIISet("!#$%&'*+-.^_`|~"))

    /// Whether `value` holds no control character but horizontal tab: no CR, LF, NUL or DEL.
    /// Bytes from 128 up (UTF-8, obs-text) are allowed.
    private static func isFieldValue(_ value: String) -> Bool {
        !value.utf8.contains { byte in (byte < 0x20 && byte != 0x09) || byte == 0x7F }
    }
}
