import Foundation

/// Percent-encoding for the parts of a URL and for form bodies, byte by byte over UTF-8,
/// so the result is the same on every platform and Foundation version.
enum PercentEncoding {
    /// RFC 3986 for query names and values: everything but the unreserved characters
    /// (`A-Z a-z 0-9 - . _ ~`) is encoded, including `+`, `&`, `=`, `#`, `/`, `?` and space.
    static func queryComponent(_ string: String) -> String {
        var output = ""
        appendQueryComponent(string[...], to: &output)
        return output
    }

    /// Appends `text` encoded as a query name or value (see ``queryComponent(_:)``).
    static func appendQueryComponent(_ text: Substring, to output: inout String) {
        append(text, keeping: isUnreserved, spaceAsPlus: false, to: &output)
    }

    /// `application/x-www-form-urlencoded` (WHATWG URL standard): letters, digits and
    /// `*-._` are kept, a space becomes `+`, everything else is encoded.
    static func formURLEncoded(_ string: String) -> String {
        var output = ""
        append(string[...], keeping: isFormSafe, spaceAsPlus: true, to: &output)
        return output
    }

    /// A path, query or fragment given by a caller as URL text: characters that may appear
    /// there are kept, a `%` followed by two hex digits is kept as an escape, and anything
    /// else (space, non-ASCII, a lone `%`, `"`, …) is encoded.
    static func urlText(_ string: String, allowing isAllowed: (UInt8) -> Bool) -> String {
        var output = ""
        appendURLText(string[...], allowing: isAllowed, to: &output)
        return output
    }

    /// Appends `text` encoded as URL text (see ``urlText(_:allowing:)``). Text that needs no
    /// encoding, the usual case, is appended as it is, without copying it byte by byte.
    static func appendURLText(_ text: Substring, allowing isAllowed: (UInt8) -> Bool, to output: inout String) {
        let utf8 = text.utf8
        if utf8.allSatisfy(isAllowed) {
            output.append(contentsOf: text)
            return
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count * 3)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let first = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                first != utf8.endIndex, let second = utf8.index(first, offsetBy: 1, limitedBy: utf8.endIndex),
                second != utf8.endIndex, isHexDigit(utf8[first]), isHexDigit(utf8[second])
            {
                bytes.append(contentsOf: [byte, utf8[first], utf8[second]])
                index = utf8.index(after: second)
                continue
            }
            if isAllowed(byte) && byte != UInt8(ascii: "%") {
                bytes.append(byte)
            } else {
                appendEscape(byte, to: &bytes)
            }
            index = utf8.index(after: index)
        }
        output.append(String(decoding: bytes, as: UTF8.self))
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

    private static func append(
        _ text: Substring, keeping isKept: (UInt8) -> Bool, spaceAsPlus: Bool, to output: inout String
    ) {
        let utf8 = text.utf8
        if utf8.allSatisfy(isKept) {
            output.append(contentsOf: text)
            return
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isKept(byte) {
                bytes.append(byte)
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                bytes.append(UInt8(ascii: "+"))
            } else {
                appendEscape(byte, to: &bytes)
            }
        }
        output.append(String(decoding: bytes, as: UTF8.self))
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
