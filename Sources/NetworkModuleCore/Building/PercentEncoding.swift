import Foundation

/// Percent-encoding for the parts of a URL and for form bodies, byte by byte over UTF-8,
/// so the result is the same on every platform and Foundation version.
enum PercentEncoding {
    /// RFC 3986 for query names and values: everything but the unreserved characters
    /// (`A-Z a-z 0-9 - . _ ~`) is encoded, including `+`, `&`, `=`, `#`, `/`, `?` and space.
    static func queryComponent(_ string: String) -> String {
        encode(string, keeping: isUnreserved, spaceAsPlus: false)
    }

    /// `application/x-www-form-urlencoded` (WHATWG URL standard): letters, digits and
    /// `*-._` are kept, a space becomes `+`, everything else is encoded.
    static func formURLEncoded(_ string: String) -> String {
        encode(string, keeping: isFormSafe, spaceAsPlus: true)
    }

    /// A path, query or fragment given by a caller as URL text: characters that may appear
    /// there are kept, a `%` followed by two hex digits is kept as an escape, and anything
    /// else (space, non-ASCII, a lone `%`, `"`, …) is encoded.
    static func urlText(_ string: String, allowing isAllowed: (UInt8) -> Bool) -> String {
        let bytes = Array(string.utf8)
        if bytes.allSatisfy(isAllowed) { return string }
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 3)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2])
            {
                output.append(contentsOf: bytes[index...index + 2])
                index += 3
                continue
            }
            if isAllowed(byte) && byte != UInt8(ascii: "%") {
                output.append(byte)
            } else {
                appendEscape(byte, to: &output)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Characters allowed in a path: unreserved, sub-delims, `:`, `@` and `/`. Not `%`:
    /// ``urlText(_:allowing:)`` keeps a `%` only as the start of a valid escape.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || isSubDelimiter(byte) || byte == UInt8(ascii: ":")
            || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/")
    }

    /// Characters allowed in a query or fragment: those of a path, and `?`.
    static func isQueryCharacter(_ byte: UInt8) -> Bool {
        isPathCharacter(byte) || byte == UInt8(ascii: "?")
    }

    private static func encode(_ string: String, keeping isKept: (UInt8) -> Bool, spaceAsPlus: Bool)
        -> String
    {
        let utf8 = string.utf8
        if utf8.allSatisfy(isKept) { return string }
        var output = [UInt8]()
        output.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isKept(byte) {
                output.append(byte)
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else {
                appendEscape(byte, to: &output)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "%"))
        output.append(hexDigits[Int(byte >> 4)])
        output.append(hexDigits[Int(byte & 0x0F)])
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    private static func isFormSafe(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}
