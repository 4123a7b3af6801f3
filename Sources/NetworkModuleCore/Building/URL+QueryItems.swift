import Foundation

extension URL {
    /// This URL with `items` appended to its query, names and values percent-encoded as the
    /// request builder encodes them (RFC 3986), before any fragment; `nil` if the result is not
    /// a URL.
    func appendingQueryItems(_ items: [URLQueryItem]) -> URL? {
        guard !items.isEmpty else { return self }
        let text = absoluteString
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        var output = String(text[..<fragmentStart])
        let hasQuery = output.contains("?")
        let separator = hasQuery ? (output.hasSuffix("?") || output.hasSuffix("&") ? "" : "&") : "?"
        PercentEncoding.appendQueryItems(items, after: separator, to: &output)
        output.append(contentsOf: text[fragmentStart...])
        return URL(string: output)
    }
}
