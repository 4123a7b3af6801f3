import Foundation

extension URL {
    /// This URL with its scheme in lowercase, the canonical form (RFC 3986 §3.1): schemes are
    /// case-insensitive, and Linux's `URLSession` refuses `HTTP://`. The URL itself when its
    /// scheme is lowercase already, or it has none; nothing else in it changes.
    var withLowercaseScheme: URL {
        guard let scheme, scheme != scheme.lowercased() else { return self }
        let text = absoluteString
        guard text.hasPrefix(scheme) else { return self }
        return URL(string: scheme.lowercased() + text.dropFirst(scheme.count)) ?? self
    }
}
