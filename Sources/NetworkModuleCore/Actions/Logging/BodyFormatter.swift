import Foundation

/// Turns a body into text for a log: JSON pretty-printed, text as it is, binary data as its
/// size; cut after a number of characters.
enum BodyFormatter {
    /// Bodies larger than this are not parsed as JSON, only cut: pretty-printing a huge body
    /// to show its first lines would waste time on every request.
    private static let largestPrettyPrinted = 1 << 20

    /// The body as text, at most `limit` characters followed by a note of what was cut; `nil`
    /// for an empty body.
    static func format(_ data: Data, limit: Int) -> String? {
        guard !data.isEmpty else { return nil }
        let text: String
        if let pretty = prettyJSON(data) {
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

    private static func prettyJSON(_ data: Data) -> String? {
        guard data.count <= largestPrettyPrinted, let first = data.first(where: { !isWhitespace($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let pretty = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(data: pretty, encoding: .utf8)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
