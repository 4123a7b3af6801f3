import Foundation

/// Masking secrets inside bodies: JSON objects (keys at any depth) and form bodies
/// (`application/x-www-form-urlencoded`), by the fields and headers of a ``Redaction``.
extension Redaction {
    /// JSON bodies larger than this are not parsed: masking a huge body would cost every
    /// request that is written down. They are left out of what is written, never written in
    /// clear (see ``writableBody(_:contentType:)``).
    package static let largestParsedBody = 1 << 20

    /// What masking did to a body.
    package enum MaskedBody: Equatable {
        /// Nothing to mask: no secret in JSON, a form or other text, or a body that is not text; write it as it is.
        case unchanged
        /// The body with every secret value masked.
        case masked(Data)
        /// A body that may hold secrets and could not be masked (JSON too large to parse, JSON
        /// or a form that cannot be read): never written; the text says why, to write instead.
        case withheld(String)
    }

    /// What to write of `body` in a log, a command or a recording: the body, the body with its
    /// secrets masked, or a note that says why it was left out. Never the body in clear when
    /// it could hold a secret that was not masked.
    package func writableBody(_ body: Data, contentType: String?) -> Data {
        switch maskedBody(body, contentType: contentType) {
        case .unchanged: body
        case .masked(let masked): masked
        case .withheld(let note): Data(note.utf8)
        }
    }

    /// `body` with every secret value masked (see ``MaskedBody``). JSON, read as
    /// `JSONSerialization` reads it (UTF-8, -16 or -32, with or without a byte-order mark) and
    /// after an anti-XSSI prefix (`)]}'`, `while(1);`), is re-encoded compactly with sorted keys,
    /// in UTF-8 after that prefix; a form, of any size, keeps its bytes but the masked values. A
    /// body whose type says JSON is masked or withheld whatever its first byte: never written as
    /// it is unless it was read and holds no secret.
    package func maskedBody(_ body: Data, contentType: String?) -> MaskedBody {
        guard !body.isEmpty else { return .unchanged }
        let declaredJSON = Self.isJSON(contentType)
        if declaredJSON || Self.looksLikeJSON(body) {
            guard body.count <= Self.largestParsedBody else {
                return .withheld("(\(body.count) bytes of JSON left out: too large to mask)")
            }
            guard let json = Self.readJSON(body) else {
                // Not one JSON value: newline-delimited JSON, masked line by line, or text that
                // starts with a bracket, masked as free text; unless it says it is JSON.
                guard declaredJSON else {
                    return maskedJSONLines(body) ?? Self.text(of: body).map(maskedText) ?? .unchanged
                }
                return .withheld("(\(body.count) bytes of invalid JSON left out: its secrets cannot be masked)")
            }
            switch maskedJSONValue(json.object) {
            case .unchanged: return .unchanged
            case .masked(let data): return .masked(Data(json.prefix.utf8) + data)
            case .withheld: return .withheld("(\(body.count) bytes of JSON left out: its secrets could not be masked)")
            }
        }
        let isForm = Self.isForm(contentType)
        guard let text = Self.text(of: body) else {
            return isForm ? .withheld("(\(body.count) bytes of a form that is not UTF-8 left out)") : .unchanged
        }
        guard isForm || (contentType == nil && Self.looksLikeForm(text)) else { return maskedText(text) }
        return maskedFormFields(text[...]).map { .masked(Data($0.utf8)) } ?? .unchanged
    }

    /// `body` as text: UTF-8, or UTF-16 or UTF-32 told by a byte-order mark or by its zero bytes
    /// (as JSON's encoding is told), without the mark; `nil` when it is not text in any of them
    /// (an image).
    private static func text(of body: Data) -> String? {
        var (encoding, markLength) = jsonEncoding(body)
        // Without a mark, zero bytes say UTF-16 or UTF-32 only if they stand where ASCII text in
        // that encoding has them all along the start, not in one place (`\0password=…` is UTF-8).
        if markLength == 0, encoding != .utf8, !zeroBytesFit(body, encoding) { encoding = .utf8 }
        return String(data: body.dropFirst(markLength), encoding: encoding)
    }

    /// Whether, in the first 64 bytes of `body`, every byte that ASCII text in `encoding` has
    /// as zero is zero.
    private static func zeroBytesFit(_ body: Data, _ encoding: String.Encoding) -> Bool {
        let (width, zeroOffsets): (Int, [Int])
        switch encoding {
        case .utf16BigEndian: (width, zeroOffsets) = (2, [0])
        case .utf16LittleEndian: (width, zeroOffsets) = (2, [1])
        case .utf32BigEndian: (width, zeroOffsets) = (4, [0, 1, 2])
        case .utf32LittleEndian: (width, zeroOffsets) = (4, [1, 2, 3])
        default: return true
        }
        let head = Array(body.prefix(64))
        return stride(from: 0, to: head.count - width + 1, by: width).allSatisfy { unit in
            zeroOffsets.allSatisfy { head[unit + $0] == 0 }
        }
    }

    /// `text`, a body that is neither JSON nor a form, masked as free text (see
    /// ``redactedText(_:)``), written in UTF-8 when anything was masked.
    private func maskedText(_ text: String) -> MaskedBody {
        let masked = redactedText(text)
        return masked == text ? .unchanged : .masked(Data(masked.utf8))
    }

    /// `body` read as newline-delimited JSON (NDJSON, JSON Lines): each line that is not blank
    /// one JSON value, masked as JSON, the lines and their endings kept. `nil` when a line is
    /// not JSON or the body not UTF-8.
    private func maskedJSONLines(_ body: Data) -> MaskedBody? {
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        var changed = false
        var lines: [String] = []
        // Split by scalars: as characters, `\r\n` is one, and no `\n` would be found in it.
        for scalars in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(String.UnicodeScalarView(scalars))
            let crlf = scalars.last == "\r"
            let content = crlf ? String(String.UnicodeScalarView(scalars.dropLast())) : line
            guard !content.allSatisfy(\.isWhitespace) else {
                lines.append(line)
                continue
            }
            guard let json = Self.readJSON(Data(content.utf8)) else { return nil }
            switch maskedJSONValue(json.object) {
            case .unchanged: lines.append(line)
            case .masked(let data):
                changed = true
                lines.append(json.prefix + String(decoding: data, as: UTF8.self) + (crlf ? "\r" : ""))
            case .withheld(let note): return .withheld(note)
            }
        }
        return changed ? .masked(Data(lines.joined(separator: "\n").utf8)) : .unchanged
    }

    /// `object` (from `JSONSerialization`) with its secrets masked (see ``maskedJSON(_:changed:)``),
    /// written compactly with sorted keys; withheld when it cannot be written.
    func maskedJSONValue(_ object: Any) -> MaskedBody {
        var changed = false
        let masked = maskedJSON(object, changed: &changed)
        guard changed else { return .unchanged }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: masked, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
        else { return .withheld("(JSON left out: its secrets could not be masked)") }
        return .masked(data)
    }

    /// `object` (from `JSONSerialization`) with the value of every key that names a secret
    /// field or header replaced by the mask, at any depth, and the secrets strings hold (URLs,
    /// JSON, `name=value` text) masked; `changed` is set when anything was.
    package func maskedJSON(_ object: Any, changed: inout Bool) -> Any {
        if let dictionary = object as? [String: Any] {
            let tokenRequest = Self.isTokenRequest(dictionary.keys)
            var masked: [String: Any] = [:]
            for (key, value) in dictionary {
                // A key may hold a secret itself (a map keyed by URL, a header line as a key).
                let maskedKey = key.contains("=") || key.contains(":") ? redactedText(key) : key
                if maskedKey != key { changed = true }
                if isSecret(field: key, inTokenRequest: tokenRequest) || isSecret(header: key) {
                    masked[maskedKey] = Self.mask
                    changed = true
                } else {
                    masked[maskedKey] = maskedJSON(value, changed: &changed)
                }
            }
            return masked
        }
        if let array = object as? [Any] { return array.map { maskedJSON($0, changed: &changed) } }
        if let text = object as? String, text.contains("=") || text.contains(":") {
            // A string may hold secrets of its own: a URL (an echo of the request, a next-page
            // link), JSON encoded into a string, `name=value` pairs, masked where they stand,
            // the rest of the text kept as it is.
            let masked = redactedEmbeddedText(text)
            if masked != text {
                changed = true
                return masked
            }
        }
        return object
    }

    /// Form fields (`name=value&…`, a form body or a URL's fragment) with the values of secret
    /// fields masked, and the secrets other values hold (see ``maskedNestedValue(_:)``), or `nil`
    /// if there is none. A byte-order mark before the first name is not part of it.
    func maskedFormFields(_ text: Substring) -> String? {
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = parts.first.map(String.init) ?? ""
            let name = rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName
            let unmarked = name.hasPrefix("\u{FEFF}") ? String(name.dropFirst()) : name
            return (rawName: rawName, name: unmarked, value: parts.count > 1 ? String(parts[1]) : nil)
        }
        let tokenRequest = Self.isTokenRequest(pairs.map(\.name))
        var changed = false
        let masked = pairs.map { pair -> String in
            guard let value = pair.value else { return pair.rawName }
            if isSecret(field: pair.name, inTokenRequest: tokenRequest) {
                changed = true
                return "\(pair.rawName)=\(Self.mask)"
            }
            guard let nested = maskedNestedValue(value) else { return "\(pair.rawName)=\(value)" }
            changed = true
            return "\(pair.rawName)=\(nested)"
        }
        return changed ? masked.joined(separator: "&") : nil
    }

    /// The media type of a `Content-Type` value, lowercased, without parameters or white space.
    private static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return essence.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Whether the type says JSON: `application/json` (and types that start so), `text/json`,
    /// and any `…+json`.
    private static func isJSON(_ contentType: String?) -> Bool {
        guard let type = mediaType(contentType) else { return false }
        return type.hasPrefix("application/json") || type == "text/json" || type.contains("+json")
    }

    private static func isForm(_ contentType: String?) -> Bool {
        mediaType(contentType) == "application/x-www-form-urlencoded"
    }

    /// Whether `text` reads as a form body: `name=value` pairs joined by `&`, no white space.
    private static func looksLikeForm(_ text: String) -> Bool {
        guard text.contains("="), !text.contains(where: { $0.isWhitespace }) else { return false }
        return text.split(separator: "&").allSatisfy { pair in
            guard let equals = pair.firstIndex(of: "=") else { return false }
            return equals != pair.startIndex
        }
    }

    // MARK: - Reading JSON as JSONSerialization does

    /// The prefixes servers put before JSON so that a `<script>` tag cannot run it (anti-XSSI),
    /// longest first; a `,` and white space may follow.
    private static let antiXSSIPrefixes = [")]}'", ")]}", "while(1);", "while (1);", "for(;;);", "for (;;);", "{}&&"]

    /// How JSON text is encoded (RFC 8259 §8.1, RFC 4627 §3): a byte-order mark says so, and
    /// without one the pattern of zero bytes in the first four does (JSON starts with ASCII).
    static func jsonEncoding(_ data: Data) -> (encoding: String.Encoding, markLength: Int) {
        let head = Array(data.prefix(4))
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BigEndian, 4) }
        if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LittleEndian, 4) }
        if head.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        if head.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        if head.count == 4, head[0] == 0, head[1] == 0, head[2] == 0 { return (.utf32BigEndian, 0) }
        if head.count == 4, head[1] == 0, head[2] == 0, head[3] == 0 { return (.utf32LittleEndian, 0) }
        if head.count >= 2, head[0] == 0 { return (.utf16BigEndian, 0) }
        if head.count >= 2, head[1] == 0 { return (.utf16LittleEndian, 0) }
        return (.utf8, 0)
    }

    /// The first `limit` code units of `data` after its byte-order mark, as numbers (the Unicode
    /// scalar of each ASCII character), in the encoding ``jsonEncoding(_:)`` finds.
    private static func leadingCodeUnits(of data: Data, limit: Int) -> [UInt32] {
        let (encoding, markLength) = jsonEncoding(data)
        let width: Int
        switch encoding {
        case .utf16BigEndian, .utf16LittleEndian: width = 2
        case .utf32BigEndian, .utf32LittleEndian: width = 4
        default: width = 1
        }
        let bigEndian = encoding == .utf16BigEndian || encoding == .utf32BigEndian
        var units: [UInt32] = []
        var index = data.startIndex + markLength
        while units.count < limit, data.endIndex - index >= width {
            var unit: UInt32 = 0
            for offset in 0..<width {
                unit = unit << 8 | UInt32(data[index + (bigEndian ? offset : width - 1 - offset)])
            }
            units.append(unit)
            index += width
        }
        return units
    }

    private static func isJSONWhitespace(_ unit: UInt32) -> Bool {
        unit == 0x20 || unit == 0x0A || unit == 0x0D || unit == 0x09
    }

    /// Whether `data` starts, after a byte-order mark, white space and an anti-XSSI prefix, with
    /// `{` or `[`, in any encoding `JSONSerialization` reads.
    package static func looksLikeJSON(_ data: Data) -> Bool {
        let units = leadingCodeUnits(of: data, limit: 512)
        var index = units.firstIndex { !isJSONWhitespace($0) } ?? units.endIndex
        let rest = units[index...]
        if let prefix = antiXSSIPrefixes.first(where: { rest.starts(with: $0.unicodeScalars.map(\.value)) }) {
            index += prefix.unicodeScalars.count
            if index < units.endIndex, units[index] == UInt32(UInt8(ascii: ",")) { index += 1 }
            while index < units.endIndex, isJSONWhitespace(units[index]) { index += 1 }
        }
        guard index < units.endIndex else { return false }
        return units[index] == UInt32(UInt8(ascii: "{")) || units[index] == UInt32(UInt8(ascii: "["))
    }

    /// `data` read as JSON: the anti-XSSI prefix before it (with the white space around it; empty
    /// when there is none) and the value; `nil` when it is not JSON in an encoding
    /// `JSONSerialization` reads, after such a prefix.
    package static func readJSON(_ data: Data) -> (prefix: String, object: Any)? {
        let (encoding, markLength) = jsonEncoding(data)
        if encoding == .utf8, markLength == 0,
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        {
            return ("", object)
        }
        guard var text = String(data: data.dropFirst(markLength), encoding: encoding) else { return nil }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var start = text.unicodeScalars.firstIndex { !isJSONWhitespace($0.value) } ?? text.unicodeScalars.endIndex
        let rest = text.unicodeScalars[start...]
        if let prefix = antiXSSIPrefixes.first(where: { rest.starts(with: $0.unicodeScalars) }) {
            start = text.unicodeScalars.index(start, offsetBy: prefix.unicodeScalars.count)
            if start < text.unicodeScalars.endIndex, text.unicodeScalars[start] == "," {
                start = text.unicodeScalars.index(after: start)
            }
            while start < text.unicodeScalars.endIndex, isJSONWhitespace(text.unicodeScalars[start].value) {
                start = text.unicodeScalars.index(after: start)
            }
        }
        let json = Data(String(text.unicodeScalars[start...]).utf8)
        guard let object = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) else {
            return nil
        }
        return (String(text.unicodeScalars[..<start]), object)
    }
}
