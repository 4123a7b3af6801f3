import Foundation

/// Reads a `Retry-After` header (RFC 9110, section 10.2.3): a number of seconds, or an HTTP
/// date.
enum RetryAfter {
    /// The seconds to wait from `now`, or `nil` if `value` is neither a number of seconds nor
    /// an HTTP date. A date in the past means `0`; a number of seconds beyond 2^31 is read as
    /// 2^31, as any delta-seconds (``HeaderNumber``): a wait is never infinite.
    static func delay(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = HeaderNumber.deltaSeconds(trimmed) {
            return TimeInterval(seconds)
        }
        guard let date = HTTPDate.parse(trimmed, now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
