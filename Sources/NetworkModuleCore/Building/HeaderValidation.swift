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
        value.utf8.withContiguousStorageIfAvailable(isFieldValue) ?? isFieldValue(value.utf8)
    }

    /// Every header field of every request passes here, so the bytes are scanned eight at a
    /// time; the bytes from the first word that holds a control character (a tab, say) and the
    /// last few are checked one by one.
    private static func isFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while bytes.count - offset >= 8 {
            // Assembled byte by byte, which the optimizer turns into one load: the standard
            // library's unaligned load needs a runtime symbol that iOS 13 lacks.
            var word: UInt64 = 0
            for index in 0..<8 { word |= UInt64(bytes[offset + index]) << (8 * index) }
            if hasControlCharacter(word) { break }
            offset += 8
        }
        return isFieldValue(bytes[offset...])
    }

    private static func isFieldValue(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes where byte < 0x20 || byte == 0x7F {
            if byte != 0x09 { return false }
        }
        return true
    }

    /// Whether any byte of `word` is below 0x20 or is 0x7F. The lowest such byte borrows into
    /// its own top bit when 0x20 is taken from every byte (a DEL: when 1 is taken from the zero
    /// that XOR with 0x7F makes of it); a word without one borrows nowhere, and its bytes from
    /// 0x80 up, whose top bits are already set, are masked out by `~word`.
    static func hasControlCharacter(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let belowSpace = (word &- ones &* 0x20) & ~word & highBits
        let delete = word ^ (ones &* 0x7F)
        let isDelete = (delete &- ones) & ~delete & highBits
        return belowSpace | isDelete != 0
    }
}
