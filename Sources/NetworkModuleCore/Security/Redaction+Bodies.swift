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
        /// Nothing to mask: neither JSON nor a form, or one with no secret; write it as it is.
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

    /// `body` with every secret value masked (see ``MaskedBody``). JSON is re-encoded compactly
    /// with sorted keys; a form, of any size, keeps its bytes except the masked values.
    package func maskedBody(_ body: Data, contentType: String?) -> MaskedBody {
        guard !body.isEmpty else { return .unchanged }
        if Self.looksLikeJSON(body) {
            guard body.count <= Self.largestParsedBody else {
                return .withheld("(\(body.count) bytes of JSON left out: too large to mask)")
            }
            guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
                // Not JSON after all (text that starts with a bracket), unless it says it is.
                guard Self.isJSON(contentType) else { return .unchanged }
                return .withheld("(\(body.count) bytes of invalid JSON left out: its secrets cannot be masked)")
            }
            var changed = false
            let masked = maskedJSON(object, changed: &changed)
            guard changed else { return .unchanged }
            guard
                let data = try? JSONSerialization.data(
                    withJSONObject: masked, options: [.sortedKeys, .withoutEscapingSlashes])
            else { return .withheld("(\(body.count) bytes of JSON left out: its secrets could not be masked)") }
            return .masked(data)
        }
        let isForm = Self.isForm(contentType)
        guard let text = String(data: body, encoding: .utf8) else {
            return isForm ? .withheld("(\(body.count) bytes of a form that is not UTF-8 left out)") : .unchanged
        }
        guard isForm || (contentType == nil && Self.looksLikeForm(text)), let masked = redactedForm(text) else {
            return .unchanged
        }
        return .masked(Data(masked.utf8))
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

    private static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        return type.hasPrefix("application/json") || type.contains("+json")
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
