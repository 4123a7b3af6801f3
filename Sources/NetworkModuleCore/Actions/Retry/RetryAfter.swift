import Foundation

/// Reads a `Retry-After` header (RFC 9110, section 10.2.3): a number of seconds, or an HTTP
/// date.
enum RetryAfter {
    /// The seconds to wait from `now`, or `nil` if `value` is neither a number of seconds nor
    /// an HTTP date. A date in the past means `0`.
    static func delay(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return TimeInterval(trimmed)
        }
        guard let date = HTTPDate.parse(trimmed, now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
