import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `Content-Range` of a `206 Partial Content` response (RFC 9110 §14.4): `bytes 100-199/200`
/// or `bytes 100-199/*`.
struct ContentRange: Equatable {
    /// The first byte's offset.
    let start: Int64
    /// The last byte's offset.
    let end: Int64
    /// The whole representation's length; `nil` for `*`.
    let completeLength: Int64?

    /// Parses `value`; `nil` for anything but a well-formed byte range with `start <= end` (and
    /// `end` below a known complete length).
    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Self.number(bounds[0]), let end = Self.number(bounds[1]),
            start <= end
        else { return nil }
        let completeLength: Int64?
        if halves[1] == "*" {
            completeLength = nil
        } else {
            guard let length = Self.number(halves[1]), end < length else { return nil }
            completeLength = length
        }
        self.start = start
        self.end = end
        self.completeLength = completeLength
    }

    /// The range `response` declares, if it declares a valid one.
    init?(of response: HTTPURLResponse) {
        guard let value = response.value(forHTTPHeaderField: "Content-Range") else { return nil }
        self.init(value)
    }

    /// Digits only (no sign, no spaces), within `Int64`.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text)
    }
}
