import Foundation

extension URL {
    /// This URL with its scheme in lowercase, the canonical form (RFC 3986 §3.1): schemes are
    /// case-insensitive, and Linux's `URLSession` refuses `HTTP://`. `nil` when there is nothing
    /// to change (the scheme is lowercase already, or there is none), so that the common case
    /// costs one look at the scheme and no new URL; nothing else in the URL changes.
    var withLowercaseScheme: URL? {
        // A scheme is ASCII (RFC 3986 §3.1): a capital letter is all there is to find, with no
        // lowercased copy made for the common case.
        guard let scheme, scheme.utf8.contains(where: ASCIISet.uppercaseLetters.contains) else { return nil }
        let text = absoluteString
        guard text.hasPrefix(scheme) else { return nil }
        return URL(string: scheme.lowercased() + text.dropFirst(scheme.count))
    }

    /// The port a URL of `scheme` goes to when it names none: 443 for `https` and `wss`, 80 for
    /// `http` and `ws`, in any case; `nil` for other schemes.
    static func defaultPort(forScheme scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "https", "wss": 443
        case "http", "ws": 80
        default: nil
        }
    }
}
