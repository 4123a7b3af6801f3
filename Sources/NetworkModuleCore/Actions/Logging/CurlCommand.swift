import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request as a `curl` command that can be pasted into a POSIX shell, secrets masked (in
/// headers, the URL, and JSON and form bodies).
enum CurlCommand {
    /// The command for `request`; a body longer than `bodyLimit` characters, or not UTF-8
    /// text, is left out with a note saying so.
    static func make(for request: URLRequest, redaction: Redaction, bodyLimit: Int) -> String {
        var parts = ["curl"]
        let method = request.httpMethod ?? "GET"
        if method != "GET" { parts.append("-X \(quoted(method))") }
        parts.append(quoted(redaction.loggable(request.url)))
        for field in redaction.loggableHeaders(of: request) {
            parts.append("-H \(quoted("\(field.name): \(field.value)"))")
        }
        var note: String?
        if let body = request.httpBody.map({
            BodyFormatter.redactedForCommand(
                $0, contentType: request.value(forHTTPHeaderField: "Content-Type"), redaction: redaction)
        }),
            !body.isEmpty
        {
            if let text = String(data: body, encoding: .utf8), !text.contains("\0"), text.count <= bodyLimit {
                parts.append("--data-binary \(quoted(text))")
            } else {
                note = "# body of \(body.count) bytes not shown"
            }
        } else if let stream = BodyFormatter.streamNote(for: request) {
            note = "# body not shown: \(stream)"
        }
        let command = parts.joined(separator: " \\\n  ")
        return note.map { "\(command)\n\($0)" } ?? command
    }

    /// `value` in single quotes, where the shell expands nothing; a single quote inside is
    /// written as `'\''` (close, escaped quote, reopen).
    static func quoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
