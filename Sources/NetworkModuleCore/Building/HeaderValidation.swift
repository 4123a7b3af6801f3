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
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else {
            throw .invalidRequest(.invalidHeaderName(name))
        }
        guard value.utf8.allSatisfy(isValueByte) else {
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
        !token.isEmpty && token.utf8.allSatisfy(isTokenCharacter)
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func isValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }
}
