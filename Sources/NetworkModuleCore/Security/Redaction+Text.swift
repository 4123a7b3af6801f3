import Foundation

/// Masking secrets in text that is not a URL, a header or a body the framework can parse (an
/// error's description, a `userInfo` dump with a failing URL), and in the header values that carry
/// URLs (`Location`, `Content-Location`, `Link`, `Refresh`). Every text the framework writes down
/// goes through here: ``NetworkError``'s and ``TransportFailure``'s descriptions, and
/// ``loggable(_:)-(any Error)``, the one way the logging action and HAR recording write an error.
extension Redaction {
    /// `error` as text to write down (a log line, a HAR entry's `_error`), with every secret in
    /// it masked: the description of the ``NetworkError`` it is or maps to (a `URLError` as a
    /// transport error, another error as ``NetworkError/underlying(_:)``), masked by this
    /// redaction too. Never `"\(error)"`, whose `userInfo` holds the failing URL in clear.
    package func loggable(_ error: any Error) -> String {
        var error = NetworkError(error)
        // An invalid header name may be a value passed where the name goes (a swapped argument:
        // `Bearer …`): it is masked, as a value is. The caller's own error still names it.
        if case .invalidRequest(.invalidHeaderName) = error { error = .invalidRequest(.invalidHeaderName(Self.mask)) }
        return error.masked(with: self)
    }

    /// `text`, free text, with what looks like a secret masked, without parsing it as anything:
    /// - the password of every `scheme://user:password@` and `//user:password@` in it;
    /// - the value of every `name=value` whose name is a secret field (in a query, a fragment, a
    ///   form, a `userInfo` or property-list dump alike: `name = value;`), white space around
    ///   the `=` or not, quoted (`name="…"`, `name='…'`) or not; a name of several keys
    ///   (`user[password]`, `user.password`) is a secret's when one of its keys is;
    /// - the value of every `"name": value` (JSON, escaped JSON, a Swift dictionary's
    ///   description) and of every `name: value` (a Swift value's description:
    ///   `RefreshFailed(refreshToken: "…")`, the whole of `Optional(…)`, `[…]` or a nested
    ///   value) whose name is one;
    /// - after a secret header's name (`Authorization: …`, `Authorization=…`), the rest of the line.
    ///
    /// An unquoted value runs to the next `&`, `#`, white space or `"`, so a value is masked
    /// whole even when the text around it is not a URL: it may mask a little more than the
    /// secret, never less. One pass over the text, whatever it holds.
    package func redactedText(_ text: String) -> String {
        redactedText(text, readingEscapedValues: true)
    }

    /// `text` masked as free text; `readingEscapedValues` when a value that holds an escaped
    /// `=` is also read decoded (``maskedNestedValue(_:)``). Off inside that reading, which
    /// decodes the whole value itself: reading each `=` of it again would go as deep as the
    /// text has `=`s.
    private func redactedText(_ text: String, readingEscapedValues: Bool) -> String {
        guard text.contains("=") || text.contains(":") else { return text }
        let bytes = Array(text.utf8)
        let tokenRequest = Self.mentionsGrantType(bytes)
        var masked: [Range<Int>] = []
        var replaced: [(Range<Int>, String)] = []
        var nextEscapedEquals = readingEscapedValues ? Self.escapedEquals(in: bytes, from: 0) : bytes.count
        var valueEnd = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var value: Range<Int>?
            if let authority = Self.authorityStart(in: bytes, at: index) {
                if let password = Self.passwordRange(in: bytes, authorityStart: authority) { masked.append(password) }
                index = authority
                continue
            }
            if byte == UInt8(ascii: "="), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") {
                // `name => value`, as Ruby, Perl and PHP print a map (`"password" => "…"`,
                // `[password] => …`).
                let name =
                    Self.quotedNameRange(in: bytes, beforeColon: index) ?? Self.nameRange(in: bytes, before: index)
                if !name.isEmpty {
                    value = secretValue(named: bytes[name], in: bytes, after: index + 1, tokenRequest: tokenRequest) {
                        Self.valueRange(in: bytes, afterEquals: index + 1)
                    }
                }
            } else if byte == UInt8(ascii: "=") {
                let name = Self.nameRange(in: bytes, before: index)
                if !name.isEmpty {
                    value = secretValue(named: bytes[name], in: bytes, after: index, tokenRequest: tokenRequest) {
                        Self.valueRange(in: bytes, afterEquals: index)
                    }
                    if value == nil, readingEscapedValues, nextEscapedEquals < bytes.count {
                        // A value that is not a secret may hold one escaped (a return URL): read
                        // only when it holds an escaped `=`, which no plain value does. Both
                        // positions only move forward, so the pass stays linear.
                        let start = index + 1
                        if nextEscapedEquals < start { nextEscapedEquals = Self.escapedEquals(in: bytes, from: start) }
                        if valueEnd < start {
                            valueEnd = start
                            while valueEnd < bytes.count, !Self.endsValue(bytes[valueEnd]) { valueEnd += 1 }
                        }
                        if nextEscapedEquals < valueEnd {
                            // Read whole, as written and decoded: what it holds is masked there,
                            // so the scan goes on after it, and reads each value once.
                            if let nested = maskedNestedValue(String(decoding: bytes[start..<valueEnd], as: UTF8.self))
                            {
                                replaced.append((start..<valueEnd, nested))
                            }
                            index = max(index + 1, valueEnd)
                            continue
                        }
                    }
                }
            } else if byte == UInt8(ascii: ":") {
                if let name = Self.quotedNameRange(in: bytes, beforeColon: index) {
                    value = secretValue(named: bytes[name], in: bytes, after: index, tokenRequest: tokenRequest) {
                        Self.jsonValueRange(in: bytes, afterColon: index)
                    }
                } else if let name = Self.labelRange(in: bytes, beforeColon: index) {
                    // A label with no blank after its colon is a header line's (`Authorization:…`),
                    // or a URL's scheme or a time: only a secret header's counts.
                    let blankAfter = index + 1 < bytes.count && Self.isBlank(bytes[index + 1])
                    if blankAfter || isSecret(header: String(decoding: bytes[name], as: UTF8.self)) {
                        value = secretValue(named: bytes[name], in: bytes, after: index, tokenRequest: tokenRequest) {
                            Self.fieldValueRange(in: bytes, afterColon: index)
                        }
                    }
                }
            }
            if let value, !value.isEmpty {
                masked.append(value)
                // Values never overlap: going on after this one keeps the pass linear
                // (`password=password=…` is read once, not once per `=`).
                index = max(index + 1, value.upperBound)
            } else {
                index += 1
            }
        }
        guard !masked.isEmpty || !replaced.isEmpty else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var position = 0
        // Ranges that overlap (a password that holds `name=`, then the query after it) are
        // masked as one: the union, never only the first. A range with text of its own (an
        // escaped value masked inside) keeps it unless another range overlaps it.
        var pending: (range: Range<Int>, text: String?)?
        func flush() {
            guard let current = pending else { return }
            result += bytes[position..<current.range.lowerBound]
            result += Array((current.text ?? Self.mask).utf8)
            position = current.range.upperBound
        }
        let edits =
            masked.map { (range: $0, text: String?.none) } + replaced.map { (range: $0.0, text: Optional($0.1)) }
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            if let current = pending, edit.range.lowerBound < current.range.upperBound {
                pending = (current.range.lowerBound..<max(current.range.upperBound, edit.range.upperBound), nil)
                continue
            }
            flush()
            pending = edit
        }
        flush()
        result += bytes[position...]
        return String(decoding: result, as: UTF8.self)
    }

    /// Where the first `%3D` (an escaped `=`, once escaped or more: `%253D`) at or after `start`
    /// is; the end of `bytes` when there is none.
    private static func escapedEquals(in bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), bytes[index + 1] == UInt8(ascii: "3"),
                bytes[index + 2] | 0x20 == UInt8(ascii: "d")
            {
                return index
            }
            index += 1
        }
        return bytes.count
    }

    /// The range to mask after the separator at `separator` when `name` is a secret's: the rest
    /// of the line for a secret header, `fieldValue()` for a secret field; `nil` otherwise.
    private func secretValue(
        named name: ArraySlice<UInt8>, in bytes: [UInt8], after separator: Int, tokenRequest: Bool,
        fieldValue: () -> Range<Int>?
    ) -> Range<Int>? {
        var raw = String(decoding: name, as: UTF8.self)
        if raw.contains("\\u") { raw = Self.unescapingUnicode(raw) }
        let decoded = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw
        if isSecret(header: decoded) { return Self.lineRange(in: bytes, after: separator) }
        return isSecret(field: decoded, inTokenRequest: tokenRequest) ? fieldValue() : nil
    }

    /// `name` with its JSON escapes `\\uXXXX` read (a key written `\\u0070assword`).
    private static func unescapingUnicode(_ name: String) -> String {
        var result = ""
        var rest = Substring(name)
        while let escape = rest.range(of: "\\u") {
            result += rest[..<escape.lowerBound]
            let digits = rest[escape.upperBound...].prefix(4)
            if digits.count == 4, let code = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(code) {
                result.unicodeScalars.append(scalar)
                rest = rest[digits.endIndex...]
            } else {
                result += rest[escape]
                rest = rest[escape.upperBound...]
            }
        }
        return result + rest
    }

    /// `text` masked as free text, or, when it is JSON (a JSON-encoded payload, a form field
    /// holding JSON), as JSON is masked: keys escaped as `\u0070assword` are read too.
    func redactedEmbeddedText(_ text: String) -> String {
        redactedEmbeddedText(text, readingEscapedValues: true)
    }

    private func redactedEmbeddedText(_ text: String, readingEscapedValues: Bool) -> String {
        if let first = text.utf8.first(where: { !Self.isSpace($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            text.utf8.count <= Self.largestParsedBody, let json = Self.readJSON(Data(text.utf8))
        {
            switch maskedJSONValue(json.object) {
            case .unchanged: return text
            case .masked(let data): return json.prefix + String(decoding: data, as: UTF8.self)
            case .withheld: return Self.mask
            }
        }
        return redactedText(text, readingEscapedValues: readingEscapedValues)
    }

    /// `value`, a query item's or form field's value as written (percent-encoded), masked: a
    /// value that is not a secret itself may still hold one (a return URL with its own
    /// `access_token`, JSON with a `password`), read as written and percent-decoded, up to three
    /// times (a return URL inside a return URL). The masked value, percent-encoded (the mask
    /// alone when the secret was escaped more than once), or `nil` when it holds no secret.
    func maskedNestedValue(_ value: String) -> String? {
        let read = { self.redactedEmbeddedText($0, readingEscapedValues: false) }
        let masked = read(value)
        guard let level = Self.firstSecretLevel(in: masked, using: read) else {
            return masked == value ? nil : masked
        }
        // A secret still escaped once is masked where it stands, if nothing is escaped deeper;
        // one escaped more than once, or beneath another, takes the whole value.
        guard level == 1, let decoded = Self.decodedOnce(masked) else { return Self.mask }
        let maskedDecoded = read(decoded)
        guard Self.firstSecretLevel(in: maskedDecoded, using: read) == nil else { return Self.mask }
        return maskedDecoded.addingPercentEncoding(withAllowedCharacters: Self.fieldValueAllowed) ?? Self.mask
    }

    /// `text` percent-decoded once (`+` as a space), or `nil` when nothing in it is escaped.
    private static func decodedOnce(_ text: String) -> String? {
        guard text.contains("%") || text.contains("+"),
            let decoded = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding, decoded != text
        else { return nil }
        return decoded
    }

    /// How many times `text` must be decoded, up to three, before `mask` finds a secret in it;
    /// `nil` when none does.
    private static func firstSecretLevel(in text: String, using mask: (String) -> String) -> Int? {
        var current = text
        for level in 1...3 {
            guard let decoded = decodedOnce(current) else { return nil }
            if mask(decoded) != decoded { return level }
            current = decoded
        }
        return nil
    }

    /// What a query item's or form field's value may hold unescaped.
    private static let fieldValueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))

    /// Whether the text names `grant_type` anywhere (an OAuth token request or response, where
    /// `code` is a secret too).
    private static func mentionsGrantType(_ bytes: [UInt8]) -> Bool {
        let lowered = String(decoding: bytes, as: UTF8.self).lowercased()
        return lowered.contains("grant_type") || lowered.contains("grant-type") || lowered.contains("granttype")
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    /// A space or a tab: what may stand around `=` and after `:` on one line.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    private static func isQuote(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    /// Where the authority starts when a URL's `//` is at `index`: after `scheme://`, or after a
    /// scheme-relative `//` that starts a word (`redirected to //user:password@host`).
    private static func authorityStart(in bytes: [UInt8], at index: Int) -> Int? {
        guard bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") else {
            return nil
        }
        guard index > 0 else { return index + 2 }
        let before = bytes[index - 1]
        return before == UInt8(ascii: ":") || isSpace(before) || isQuote(before) || "=(<,;[{".utf8.contains(before)
            ? index + 2 : nil
    }

    /// Bytes that end a name read backwards from its `=`. Not brackets or dots: a name of
    /// several keys (`user[password]`, `user.password`) is read whole, and key by key.
    private static func endsName(_ byte: UInt8) -> Bool {
        isSpace(byte) || "?&#;,:=\"'({</|".utf8.contains(byte)
    }

    /// Bytes that end an unquoted value: what a query value cannot hold unescaped, a double
    /// quote and white space. Not `'`, `<` or `>`: a value that holds them (an RFC 8187
    /// `UTF-8''…`, a path that failed to build) is masked to its end all the same.
    private static func endsValue(_ byte: UInt8) -> Bool {
        isSpace(byte) || "&#\"".utf8.contains(byte)
    }

    /// The name before `=` at `equals`, with blanks between them (`password = …`).
    private static func nameRange(in bytes: [UInt8], before equals: Int) -> Range<Int> {
        var end = equals
        while end > 0, isBlank(bytes[end - 1]) { end -= 1 }
        var start = end
        while start > 0, !endsName(bytes[start - 1]) { start -= 1 }
        return start..<end
    }

    /// The value after `=` at `equals`: after blanks, a quoted value's characters or an unquoted
    /// value's.
    private static func valueRange(in bytes: [UInt8], afterEquals equals: Int) -> Range<Int> {
        var start = equals + 1
        while start < bytes.count, isBlank(bytes[start]) { start += 1 }
        if start < bytes.count, isQuote(bytes[start]) { return quotedRange(in: bytes, openingAt: start) }
        var end = start
        while end < bytes.count, !endsValue(bytes[end]) { end += 1 }
        return start..<end
    }

    /// The characters of the quoted text opening at `open` (its quote, `"` or `'`), to the
    /// matching quote not escaped by `\`, or to the end of the text.
    private static func quotedRange(in bytes: [UInt8], openingAt open: Int) -> Range<Int> {
        var end = open + 1
        while end < bytes.count, bytes[end] != bytes[open] {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        return (open + 1)..<min(end, bytes.count)
    }

    /// The characters of the escaped string (`\"…\"`, JSON inside a quoted string) whose `\"`
    /// opens at `open`, to the next `\"`, or to the end of the text.
    private static func escapedQuotedRange(in bytes: [UInt8], openingAt open: Int) -> Range<Int> {
        var end = open + 2
        while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "\\") && bytes[end + 1] == UInt8(ascii: "\"")) {
            end += 1
        }
        return (open + 2)..<(end + 1 < bytes.count ? end : bytes.count)
    }

    /// The password of `user:password@` at the start of an authority, if there is one.
    private static func passwordRange(in bytes: [UInt8], authorityStart: Int) -> Range<Int>? {
        var end = authorityStart
        while end < bytes.count, !isSpace(bytes[end]), !"/?#\"'<>`".utf8.contains(bytes[end]) { end += 1 }
        guard let at = bytes[authorityStart..<end].lastIndex(of: UInt8(ascii: "@")),
            let colon = bytes[authorityStart..<at].firstIndex(of: UInt8(ascii: ":")), colon + 1 < at
        else { return nil }
        return (colon + 1)..<at
    }

    /// The name of `"name"` followed by white space and the `:` at `colon`, as in JSON; of
    /// `\"name\"` too, as JSON inside a quoted string writes it.
    private static func quotedNameRange(in bytes: [UInt8], beforeColon colon: Int) -> Range<Int>? {
        var close = colon - 1
        while close >= 0, isSpace(bytes[close]) { close -= 1 }
        guard close > 0, isQuote(bytes[close]) else { return nil }
        let escaped = bytes[close - 1] == UInt8(ascii: "\\")
        let nameEnd = escaped ? close - 1 : close
        guard let open = bytes[..<nameEnd].lastIndex(of: bytes[close]) else {
            // Its opening quote cut off (a message that quotes JSON from the middle:
            // `access_token":"…"`, `user[password]":"…"`): the name before the closing quote,
            // read as a `name=`'s is.
            let name = nameRange(in: bytes, before: nameEnd)
            return name.isEmpty ? nil : name
        }
        guard open + 1 < nameEnd else { return nil }
        return (open + 1)..<nameEnd
    }

    /// The value after a JSON name's `:`: a string's characters (escaped or not), or a number,
    /// a literal or a whole nested value.
    private static func jsonValueRange(in bytes: [UInt8], afterColon colon: Int) -> Range<Int>? {
        var start = colon + 1
        while start < bytes.count, isSpace(bytes[start]) { start += 1 }
        guard start < bytes.count else { return nil }
        if isQuote(bytes[start]) { return quotedRange(in: bytes, openingAt: start) }
        if bytes[start] == UInt8(ascii: "\\"), start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "\"") {
            return escapedQuotedRange(in: bytes, openingAt: start)
        }
        return groupRange(in: bytes, from: start)
    }

    /// From `start`, a value as a description writes it: up to white space, `,` or `;`, or the
    /// bracket that closes the group it stands in, whatever groups (`Optional(…)`, `[…]`,
    /// `Module.(context).Token(…)`) and quoted strings it holds.
    private static func groupRange(in bytes: [UInt8], from start: Int) -> Range<Int> {
        var depth = 0
        var end = start
        scan: while end < bytes.count {
            let byte = bytes[end]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                end = quotedRange(in: bytes, openingAt: end).upperBound + 1
                continue scan
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                guard depth > 0 else { break scan }
                depth -= 1
            case UInt8(ascii: ","), UInt8(ascii: ";"):
                if depth == 0 { break scan }
            default:
                if depth == 0, isSpace(byte) { break scan }
            }
            end += 1
        }
        return start..<min(end, bytes.count)
    }

    /// The unquoted label before the `:` at `colon`, as a Swift value's description (`token: "…"`)
    /// and a header line (`Authorization: Bearer …`) write it.
    private static func labelRange(in bytes: [UInt8], beforeColon colon: Int) -> Range<Int>? {
        var start = colon
        while start > 0, isASCIIKeyByte(bytes[start - 1]) { start -= 1 }
        return start < colon ? start..<colon : nil
    }

    /// The rest of the line after the separator at `separator` and the blanks after it: a
    /// header's value (`Digest username="…", response="…"` included), or a quoted one's
    /// characters.
    private static func lineRange(in bytes: [UInt8], after separator: Int) -> Range<Int> {
        var start = separator + 1
        while start < bytes.count, isBlank(bytes[start]) { start += 1 }
        if start < bytes.count, isQuote(bytes[start]) {
            let quoted = quotedRange(in: bytes, openingAt: start)
            // A quote that only opens the line's first parameter (`theme="dark"; session=…`)
            // does not end the value: the line does.
            let after = quoted.upperBound + 1
            if after >= bytes.count || bytes[after] == 0x0A || bytes[after] == 0x0D || ",}]".utf8.contains(bytes[after])
            {
                return quoted
            }
        }
        var end = start
        while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
        return start..<end
    }

    /// The value after a label's `:` at `colon`, as a Swift value's description writes it: a
    /// quoted string's characters, or a whole value (`Optional("…")`, `["…"]`, `Token(value: …)`).
    private static func fieldValueRange(in bytes: [UInt8], afterColon colon: Int) -> Range<Int> {
        var start = colon + 1
        while start < bytes.count, isBlank(bytes[start]) { start += 1 }
        if start < bytes.count, isQuote(bytes[start]) { return quotedRange(in: bytes, openingAt: start) }
        return groupRange(in: bytes, from: start)
    }

    // MARK: - Headers that carry URLs

    /// `text`, a URL (absolute or relative), with its secrets masked; as it was when it holds
    /// no secret, and the mask when it cannot be read as a URL (what cannot be parsed cannot be
    /// shown to hold no secret).
    func redactedURLText(_ text: Substring) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return String(text) }
        guard let url = URL(string: trimmed) else { return Self.mask }
        guard trimmed.contains("?") || trimmed.contains("@") || trimmed.contains("#") else { return String(text) }
        // Compared as URLs: Foundation may escape what it read (`café`, `[]`), which changes
        // the text but masks nothing.
        let masked = redacted(url)
        return masked == url ? String(text) : masked.absoluteString
    }

    /// A `Link` value (`<url>; rel="next", <url>; rel="last"`, RFC 8288) with the URL in each
    /// `<…>` masked, and the parameters between them masked as free text. A value that is not a
    /// list of `<…>` (text before the first `<`, a `<` never closed) is masked from there on.
    func redactedLinks(_ value: String) -> String {
        guard let first = value.firstIndex(of: "<"), value[..<first].allSatisfy(\.isWhitespace) else {
            return value.allSatisfy(\.isWhitespace) ? value : Self.mask
        }
        var result = ""
        var rest = value[...]
        while !rest.isEmpty {
            guard let open = rest.firstIndex(of: "<") else {
                result += redactedText(String(rest))
                return result
            }
            result += redactedText(String(rest[..<open])) + "<"
            let inside = rest[rest.index(after: open)...]
            guard let close = inside.firstIndex(of: ">") else { return result + Self.mask }
            result += redactedURLText(inside[..<close]) + ">"
            rest = inside[inside.index(after: close)...]
        }
        return result
    }

    /// A `Refresh` value (`5; url=https://…`) with its URL masked. It is read as HTML's "shared
    /// declarative refresh steps" read it: a time, then `;` or `,` or white space, then
    /// optionally `url` and `=` (any case, white space around `=`), then the URL, in `'` or `"`
    /// quotes or none. A value that cannot be read that way is masked whole, and so is text
    /// after a closing quote.
    func redactedRefresh(_ value: String) -> String {
        let scalars = Array(value.unicodeScalars)
        var position = 0
        func skipWhitespace() {
            while position < scalars.count, Self.isHTMLWhitespace(scalars[position]) { position += 1 }
        }
        skipWhitespace()
        let timeStart = position
        while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
        guard position > timeStart || (position < scalars.count && scalars[position] == ".") else { return Self.mask }
        while position < scalars.count, ("0"..."9").contains(scalars[position]) || scalars[position] == "." {
            position += 1
        }
        guard position < scalars.count else { return value }
        guard Self.isHTMLWhitespace(scalars[position]) || scalars[position] == ";" || scalars[position] == ","
        else { return Self.mask }
        skipWhitespace()
        if position < scalars.count, scalars[position] == ";" || scalars[position] == "," {
            position += 1
            skipWhitespace()
        }
        // `url` (any case), white space, `=`, white space, as the steps read them: each part
        // that is there is skipped, and the URL starts where the first one missing would be.
        func skip(_ letter: Unicode.Scalar) -> Bool {
            guard position < scalars.count, scalars[position].properties.lowercaseMapping == String(letter) else {
                return false
            }
            position += 1
            return true
        }
        if skip("u"), skip("r"), skip("l") {
            skipWhitespace()
            if skip("=") { skipWhitespace() }
        }
        var quote: Unicode.Scalar?
        if position < scalars.count, scalars[position] == "'" || scalars[position] == "\"" {
            quote = scalars[position]
            position += 1
        }
        let prefix = String(String.UnicodeScalarView(scalars[..<position]))
        let rest = scalars[position...]
        guard let quote, let close = rest.firstIndex(of: quote) else {
            return prefix + redactedURLText(String(String.UnicodeScalarView(rest))[...])
        }
        let url = redactedURLText(String(String.UnicodeScalarView(rest[..<close]))[...])
        let after = String(String.UnicodeScalarView(rest[(close + 1)...]))
        return prefix + url + String(quote) + (after.allSatisfy(\.isWhitespace) ? after : Self.mask)
    }

    /// ASCII white space as HTML defines it: tab, line feed, form feed, carriage return, space.
    private static func isHTMLWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\u{0C}" || scalar == "\r"
    }
}
