import Foundation

/// Percent-encoding for the parts of a URL and for form bodies, byte by byte over UTF-8, so the
/// result is the same on every platform and Foundation version. Every request's URL passes here:
/// text that needs no encoding (the usual case) is checked over its own storage and appended.
enum PercentEncoding {
    /// RFC 3986 unreserved characters: `A-Z a-z 0-9 - . _ ~`.
    static let unreserved = ASCIISet.alphanumerics.union(ASCIISet("-._~"))
    /// Characters allowed in a path: unreserved, sub-delims, `:`, `@` and `/`. Not `%`:
    /// ``appendURLText(_:allowing:to:)`` keeps a `%` only as the start of a valid escape.
    static let pathCharacters = unreserved.union(ASCIISet("!$&'()*+,;=:@/"))
    /// Characters allowed in a query or fragment: those of a path, and `?`.
    static let queryCharacters = pathCharacters.union(ASCIISet("?"))
    /// `application/x-www-form-urlencoded` (WHATWG URL standard) keeps letters, digits and
    /// `*-._`.
    private static let formCharacters = ASCIISet.alphanumerics.union(ASCIISet("*-._"))

    /// Appends `text` encoded as a query name or value, RFC 3986: everything but the
    /// unreserved characters is encoded, including `+`, `&`, `=`, `#`, `/`, `?` and space.
    static func appendQueryComponent(_ text: Substring, to output: inout String) {
        append(text, keeping: unreserved, keepsEscapes: false, spaceAsPlus: false, to: &output)
    }

    /// Appends `items` as `name=value` pairs joined by `&`, each name and value encoded by
    /// ``appendQueryComponent(_:to:)``; the first pair follows `separator` (`?`, `&` or nothing).
    /// An item with a `nil` value is a bare name.
    static func appendQueryItems(_ items: [URLQueryItem], after separator: String, to output: inout String) {
        var separator = separator
        for item in items {
            output.append(separator)
            separator = "&"
            appendQueryComponent(item.name[...], to: &output)
            if let value = item.value {
                output.append("=")
                appendQueryComponent(value[...], to: &output)
            }
        }
    }

    /// `application/x-www-form-urlencoded` (WHATWG URL standard): letters, digits and
    /// `*-._` are kept, a space becomes `+`, everything else is encoded.
    static func formURLEncoded(_ string: String) -> String {
        var output = ""
        append(string[...], keeping: formCharacters, keepsEscapes: false, spaceAsPlus: true, to: &output)
        return output
    }

    /// A path, query or fragment given by a caller as URL text: characters that may appear
    /// there are kept, a `%` followed by two hex digits is kept as an escape, and anything
    /// else (space, non-ASCII, a lone `%`, `"`, …) is encoded.
    static func urlText(_ string: String, allowing allowed: ASCIISet) -> String {
        var output = ""
        appendURLText(string[...], allowing: allowed, to: &output)
        return output
    }

    /// Appends `text` encoded as URL text (see ``urlText(_:allowing:)``).
    static func appendURLText(_ text: Substring, allowing allowed: ASCIISet, to output: inout String) {
        append(text, keeping: allowed, keepsEscapes: true, spaceAsPlus: false, to: &output)
    }

    /// Appends `text` with every byte outside `kept` escaped; with `keepsEscapes`, a `%` and two
    /// hex digits stay as they are; with `spaceAsPlus`, a space becomes `+`.
    private static func append(
        _ text: Substring, keeping kept: ASCIISet, keepsEscapes: Bool, spaceAsPlus: Bool, to output: inout String
    ) {
        if kept.containsAll(text) {
            output.append(contentsOf: text)
            return
        }
        var text = text
        output.append(
            text.withUTF8 { encoded($0, keeping: kept, keepsEscapes: keepsEscapes, spaceAsPlus: spaceAsPlus) })
    }

    private static func encoded(
        _ bytes: UnsafeBufferPointer<UInt8>, keeping kept: ASCIISet, keepsEscapes: Bool, spaceAsPlus: Bool
    ) -> String {
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 3)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if keepsEscapes, byte == UInt8(ascii: "%"), bytes.count - index > 2, isHexDigit(bytes[index + 1]),
                isHexDigit(bytes[index + 2])
            {
                output.append(contentsOf: bytes[index...(index + 2)])
                index += 3
                continue
            }
            if kept.contains(byte) && byte != UInt8(ascii: "%") {
                output.append(byte)
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The uppercase hex digit for `value` (0 to 15).
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static let hexDigits = ASCIISet("0123456789ABCDEFabcdef")

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        hexDigits.contains(byte)
    }
}
