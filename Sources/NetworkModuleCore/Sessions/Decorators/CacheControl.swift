import Foundation

/// The `Cache-Control` directives ``CachedSession`` acts on, read from a request or a
/// response. Unknown directives are ignored, and so is a malformed `max-age`.
struct CacheControl: Equatable {
    /// `no-store`: do not keep the response at all.
    var noStore = false
    /// `no-cache` (or `Pragma: no-cache`): do not use a stored response without checking with
    /// the server first.
    var noCache = false
    /// `max-age=N`: seconds the response stays fresh (on a request: the oldest response the
    /// caller accepts).
    var maxAge: Int?

    /// No directives.
    static let none = CacheControl()

    /// The directives of a `Cache-Control` value and a `Pragma` value, either of which may be absent.
    init(cacheControl: String? = nil, pragma: String? = nil) {
        if let cacheControl {
            for directive in cacheControl.split(separator: ",") {
                read(directive)
            }
        }
        if cacheControl == nil, let pragma, Self.trimmed(pragma[...]).lowercased() == "no-cache" {
            noCache = true
        }
    }

    private mutating func read(_ directive: Substring) {
        let parts = directive.split(separator: "=", maxSplits: 1)
        guard let rawName = parts.first else { return }
        switch Self.trimmed(rawName).lowercased() {
        case "no-store":
            noStore = true
        case "no-cache":
            noCache = true
        case "max-age":
            guard parts.count == 2 else { return }
            var value = Self.trimmed(parts[1])
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            if let seconds = Int(value), seconds >= 0 { maxAge = seconds }
        default:
            break
        }
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
