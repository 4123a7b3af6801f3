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
        guard allBytes(of: value, satisfy: isValueByte) else {
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
        !token.isEmpty && allBytes(of: token, satisfy: isTokenCharacter)
    }

    /// Bit `b` of these two words is set when ASCII byte `b` is an RFC 9110 `tchar`:
    /// letters, digits and ``!#$%&'*+-.^_`|~``. A table, as this runs for every header byte.
    private static let tokenCharactersBelow64: UInt64 = 0x03FF_6CFA_0000_0000
    private static let tokenCharactersFrom64: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        if byte < 64 { return tokenCharactersBelow64 & (1 << UInt64(byte)) != 0 }
        if byte < 128 { return tokenCharactersFrom64 & (1 << UInt64(byte - 64)) != 0 }
        return false
    }

    private static func isValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// Whether every UTF-8 byte of `text` passes `test`: straight over the string's own storage
    /// when it has one (native strings do), which is several times faster than iterating the
    /// UTF-8 view, and this runs for every header of every request.
    private static func allBytes(of text: String, satisfy test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? text.utf8.allSatisfy(test)
    }
}
