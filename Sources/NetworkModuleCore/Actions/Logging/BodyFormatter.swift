import Foundation

/// Turns a body into text for a log: JSON pretty-printed (with the values of keys that name a
/// secret header or query item masked), text as it is, binary data as its size; cut after a
/// number of characters.
enum BodyFormatter {
    /// Bodies larger than this are not parsed as JSON, only cut: pretty-printing a huge body
    /// to show its first lines would waste time on every request.
    private static let largestPrettyPrinted = 1 << 20

    /// The body as text, at most `limit` characters followed by a note of what was cut; `nil`
    /// for an empty body.
    static func format(_ data: Data, limit: Int, redaction: Redaction) -> String? {
        guard !data.isEmpty else { return nil }
        // Not shown even cut: its secret keys could not be masked without parsing it.
        if looksLikeJSON(data), data.count > largestPrettyPrinted {
            return "(\(data.count) bytes of JSON, too large to show)"
        }
        let text: String
        if let pretty = prettyJSON(data, redaction: redaction) {
            text = pretty
        } else if let utf8 = String(data: data, encoding: .utf8) {
            text = utf8
        } else {
            return "(\(data.count) bytes of binary data)"
        }
        let limit = max(0, limit)
        guard text.count > limit else { return text }
        return "\(text.prefix(limit))… (\(text.count - limit) more characters)"
    }

    private static func prettyJSON(_ data: Data, redaction: Redaction) -> String? {
        guard data.count <= largestPrettyPrinted, looksLikeJSON(data) else { return nil }
        var changed = false
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let pretty = try? JSONSerialization.data(
                withJSONObject: masked(object, redaction: redaction, changed: &changed),
                options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(data: pretty, encoding: .utf8)
    }

    /// `data` for a command to send again: the bytes as they are, unless it is JSON holding a
    /// secret key, which is then re-encoded with that value masked.
    static func redactedForCommand(_ data: Data, redaction: Redaction) -> Data {
        guard data.count <= largestPrettyPrinted,
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return data }
        var changed = false
        let redacted = masked(object, redaction: redaction, changed: &changed)
        guard changed,
            let encoded = try? JSONSerialization.data(
                withJSONObject: redacted, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return data }
        return encoded
    }

    /// `object` with the value of every key that names a secret replaced by the mask, at any
    /// depth: an echo of the request's headers, or `{"token": …}` when `token` is a secret
    /// query item.
    private static func masked(_ object: Any, redaction: Redaction, changed: inout Bool) -> Any {
        if let dictionary = object as? [String: Any] {
            var masked: [String: Any] = [:]
            for (key, value) in dictionary {
                if redaction.isSecret(header: key) || redaction.queryItemNames.contains(key) {
                    masked[key] = Redaction.mask
                    changed = true
                } else {
                    masked[key] = self.masked(value, redaction: redaction, changed: &changed)
                }
            }
            return masked
        }
        if let array = object as? [Any] { return array.map { masked($0, redaction: redaction, changed: &changed) } }
        return object
    }

    /// Whether `data` starts, after white space, with `{` or `[`.
    private static func looksLikeJSON(_ data: Data) -> Bool {
        guard let first = data.first(where: { !isWhitespace($0) }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
