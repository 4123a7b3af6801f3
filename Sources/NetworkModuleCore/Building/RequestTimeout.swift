import Foundation

/// What a timeout value means, the one place that reads one (builder, preparation deadline,
/// transport; for users, docs/requests-and-bodies.md, "Timeout and cache policy"): a positive,
/// finite number of seconds. Anything else (zero, negative, NaN, infinite) the builder refuses
/// (``check(_:)``); in a `URLRequest` it did not check (the caller's own, or one an action
/// rewrote) it counts as `URLRequest`'s default, 60 seconds (``init(seconds:)``).
struct RequestTimeout: Hashable, Sendable {
    /// The timeout in nanoseconds, rounded up so that a tiny one is never zero; `nil` for one too
    /// long to fall due in any process (over ``longestSeconds``).
    let nanoseconds: UInt64?

    /// The longest timeout that falls due: 10⁹ seconds, about 31 years; a longer one never does.
    static let longestSeconds: TimeInterval = 1e9

    /// What a value that is not a timeout counts as in a `URLRequest`: `URLRequest`'s default.
    static let defaultSeconds: TimeInterval = 60

    /// The timeout a `URLRequest`'s `timeoutInterval` of `seconds` stands for, for every `Double`,
    /// converted with checks, never with a trapping conversion.
    init(seconds: TimeInterval) {
        let seconds = Self.isTimeout(seconds) ? seconds : Self.defaultSeconds
        // At most 10¹⁸ nanoseconds, exact in a `UInt64`.
        nanoseconds =
            seconds <= Self.longestSeconds ? UInt64(exactly: (seconds * 1e9).rounded(.up)).map { max(1, $0) } : nil
    }

    /// The builder's check: throws ``InvalidRequestReason/invalidTimeout(_:)`` unless `seconds`
    /// is a timeout.
    static func check(_ seconds: TimeInterval) throws(NetworkError) {
        guard isTimeout(seconds) else { throw .invalidRequest(.invalidTimeout(seconds)) }
    }

    /// The `timeoutInterval` to hand a `URLSession` that enforces the timeout itself (Apple
    /// platforms): `seconds` with the meaning above, so that zero, negative, NaN and infinity
    /// count as 60 seconds there too; one too long to fall due is left as it is.
    static func sessionValue(for seconds: TimeInterval) -> TimeInterval {
        RequestTimeout(seconds: seconds).seconds ?? seconds
    }

    /// The timeout in seconds, as a scheduler takes it; `nil` for none.
    var seconds: TimeInterval? { nanoseconds.map { Double($0) / 1e9 } }

    private static func isTimeout(_ seconds: TimeInterval) -> Bool {
        seconds.isFinite && seconds > 0
    }
}
