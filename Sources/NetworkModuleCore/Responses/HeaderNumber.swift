import Foundation

/// The numbers header fields carry, read as bytes anyone may have sent (`Content-Length`,
/// `Content-Range`, `Age`, `Cache-Control` seconds, `Retry-After`): the one place that says what
/// such a number is and what one out of range becomes, so that no computation on it can trap.
/// A decimal is ASCII digits only (no sign, space, point or exponent), and one too large for its
/// type is `nil`: a length or an offset is exact, or refused. A delta-seconds above 2^31 is 2^31
/// (RFC 9111, section 1.2.2). Seconds written back (`Age`, a `Cache-Status` `ttl`) are whole,
/// within ±2^31 and the platform's `Int` (32 bits on watchOS).
enum HeaderNumber {
    /// The largest number of seconds a delta-seconds is read as (RFC 9111, section 1.2.2).
    static let largestDeltaSeconds: Int64 = 2_147_483_648

    /// The non-negative decimal `text` holds, exactly; `nil` if it holds anything but ASCII
    /// digits, none, or a number larger than `Number.max`.
    static func decimal<Number: FixedWidthInteger>(
        _ text: some StringProtocol, as _: Number.Type = Int64.self
    ) -> Number? {
        decimal(bytes: text.utf8, as: Number.self)
    }

    /// ``decimal(_:as:)`` of ASCII bytes.
    static func decimal<Number: FixedWidthInteger>(
        bytes: some Collection<UInt8>, as _: Number.Type = Int64.self
    ) -> Number? {
        guard !bytes.isEmpty else { return nil }
        var value: Number = 0
        for byte in bytes {
            guard let digit = digit(byte) else { return nil }
            let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = tens.addingReportingOverflow(Number(truncatingIfNeeded: digit))
            guard !overflowed, !overflowedAgain else { return nil }
            value = sum
        }
        return value
    }

    /// The delta-seconds `text` holds, at most ``largestDeltaSeconds``; `nil` if it holds
    /// anything but ASCII digits, or none.
    static func deltaSeconds(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard let digit = digit(byte) else { return nil }
            // Below 2^31 before, so below 2^35 after: no overflow.
            value = min(value * 10 + Int64(digit), largestDeltaSeconds)
        }
        return value
    }

    /// `seconds` rounded down to whole seconds for a header, within ±``largestDeltaSeconds``
    /// and the platform's `Int`; `0` if it is not a number.
    static func wholeSeconds(_ seconds: TimeInterval) -> Int {
        guard !seconds.isNaN else { return 0 }
        let bound = Double(largestDeltaSeconds)
        return Int(clamping: Int64(max(-bound, min(bound, seconds)).rounded(.down)))
    }

    /// The value of an ASCII digit; `nil` for any other byte.
    private static func digit(_ byte: UInt8) -> UInt8? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : nil
    }
}
