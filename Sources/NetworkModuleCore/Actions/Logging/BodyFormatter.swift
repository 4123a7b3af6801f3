import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns a body into text for a log: JSON pretty-printed, form bodies and JSON with the values
/// of secret fields masked (``Redaction``), other text as it is, binary data as its size; cut
/// after a number of characters.
enum BodyFormatter {
    /// The body as text, at most `limit` characters followed by a note of what was cut; `nil`
    /// for an empty body.
    static func format(_ data: Data, contentType: String? = nil, limit: Int, redaction: Redaction) -> String? {
        guard !data.isEmpty else { return nil }
        let body: Data
        switch redaction.maskedBody(data, contentType: contentType) {
        case .withheld(let note): return note  // never shown, even cut: its secrets are not masked
        case .masked(let masked): body = masked
        case .unchanged: body = data
        }
        let text: String
        if let pretty = prettyJSON(body) {
            text = pretty
        } else if let utf8 = String(data: body, encoding: .utf8) {
            text = utf8
        } else {
            return "(\(data.count) bytes of binary data)"
        }
        let limit = max(0, limit)
        guard text.count > limit else { return text }
        return "\(text.prefix(limit))… (\(text.count - limit) more characters)"
    }

    /// `data`, JSON already masked, pretty-printed after its anti-XSSI prefix, if any, whatever
    /// its encoding; `nil` when it is not JSON.
    private static func prettyJSON(_ data: Data) -> String? {
        guard data.count <= Redaction.largestParsedBody, Redaction.looksLikeJSON(data),
            let json = Redaction.readJSON(data),
            let pretty = try? JSONSerialization.data(
                withJSONObject: json.object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]),
            let text = String(data: pretty, encoding: .utf8)
        else { return nil }
        return json.prefix + text
    }

    /// What to write for a request's body stream, which is never read for a log (reading would
    /// consume it): `<stream of N bytes>`, or `<stream of unknown length>`; `nil` for no stream.
    static func streamNote(for request: URLRequest) -> String? {
        guard request.httpBodyStream != nil else { return nil }
        return request.knownBodyLength.map { "<stream of \($0) bytes>" } ?? "<stream of unknown length>"
    }

    /// `data` for a command to send again: the bytes as they are, unless it is JSON or a form
    /// holding a secret field, whose value is then masked, or a body that could not be masked,
    /// which is replaced by a note saying so.
    static func redactedForCommand(_ data: Data, contentType: String?, redaction: Redaction) -> Data {
        redaction.writableBody(data, contentType: contentType)
    }
}
