import Foundation

/// Masking secrets inside bodies: JSON objects (keys at any depth) and form bodies
/// (`application/x-www-form-urlencoded`), by the fields and headers of a ``Redaction``.
extension Redaction {
    /// Bodies larger than this are not parsed: masking a huge body would cost every request
    /// that is written down.
    package static let largestParsedBody = 1 << 20

    /// `body` with every secret value masked, or `nil` when it holds none (or is neither JSON
    /// nor a form, or is larger than ``largestParsedBody``). JSON is re-encoded compactly with
    /// sorted keys; a form keeps its bytes except the masked values.
    package func redactedBody(_ body: Data, contentType: String?) -> Data? {
        guard !body.isEmpty, body.count <= Self.largestParsedBody else { return nil }
        if Self.looksLikeJSON(body) {
            guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
                return nil
            }
            var changed = false
            let masked = maskedJSON(object, changed: &changed)
            guard changed else { return nil }
            return try? JSONSerialization.data(withJSONObject: masked, options: [.sortedKeys, .withoutEscapingSlashes])
        }
        guard let text = String(data: body, encoding: .utf8),
            Self.isForm(contentType) || (contentType == nil && Self.looksLikeForm(text)),
            let masked = redactedForm(text)
        else { return nil }
        return Data(masked.utf8)
    }

    /// `object` (from `JSONSerialization`) with the value of every key that names a secret
    /// field or header replaced by the mask, at any depth, and the secrets of URLs held in
    /// strings masked; `changed` is set when anything was.
    package func maskedJSON(_ object: Any, changed: inout Bool) -> Any {
        if let dictionary = object as? [String: Any] {
            let tokenRequest = Self.isTokenRequest(dictionary.keys)
            var masked: [String: Any] = [:]
            for (key, value) in dictionary {
                if isSecret(field: key, inTokenRequest: tokenRequest) || isSecret(header: key) {
                    masked[key] = Self.mask
                    changed = true
                } else {
                    masked[key] = maskedJSON(value, changed: &changed)
                }
            }
            return masked
        }
        if let array = object as? [Any] { return array.map { maskedJSON($0, changed: &changed) } }
        if let text = object as? String, text.contains("://"), text.contains("?") || text.contains("@"),
            let url = URL(string: text)
        {
            // A URL in a body (an echo of the request, a next-page link): its secret query
            // values and password are masked as in the request's own URL.
            let masked = redacted(url).absoluteString
            if masked != text {
                changed = true
                return masked
            }
        }
        return object
    }

    /// A form body with the values of secret fields masked, or `nil` if none is secret.
    private func redactedForm(_ text: String) -> String? {
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let name = rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName
            return (rawName: rawName, name: name, value: parts.count > 1 ? String(parts[1]) : nil)
        }
        let tokenRequest = Self.isTokenRequest(pairs.map(\.name))
        var changed = false
        let masked = pairs.map { pair -> String in
            guard pair.value != nil, isSecret(field: pair.name, inTokenRequest: tokenRequest) else {
                return pair.value.map { "\(pair.rawName)=\($0)" } ?? pair.rawName
            }
            changed = true
            return "\(pair.rawName)=\(Self.mask)"
        }
        return changed ? masked.joined(separator: "&") : nil
    }

    private static func isForm(_ contentType: String?) -> Bool {
        contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }

    /// Whether `text` reads as a form body: `name=value` pairs joined by `&`, no white space.
    private static func looksLikeForm(_ text: String) -> Bool {
        guard text.contains("="), !text.contains(where: { $0.isWhitespace }) else { return false }
        return text.split(separator: "&").allSatisfy { pair in
            guard let equals = pair.firstIndex(of: "=") else { return false }
            return equals != pair.startIndex
        }
    }

    /// Whether `data` starts, after white space, with `{` or `[`.
    package static func looksLikeJSON(_ data: Data) -> Bool {
        guard let first = data.first(where: { !(0x20 == $0 || 0x0A == $0 || 0x0D == $0 || 0x09 == $0) }) else {
            return false
        }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}
