import Foundation

/// Which failed requests ``NetworkModuleAction/retry(_:random:now:)`` sends again, how many times, and how long it waits.
///
/// ```swift
/// var policy = RetryPolicy.default              // 3 attempts, 0.5 s, 1 s, … ±20 %
/// policy.maxAttempts = 5
/// policy.retriesNonIdempotentMethods = true     // a POST whose server de-duplicates
/// let module = DefaultNetworkModule(requestBuilder: builder, actions: [.retry(policy)])
/// ```
///
/// After attempt *n* fails, the action waits `initialDelay × multiplier^(n-1)`, at most
/// ``maxDelay``, spread by ±``jitter`` so that clients that failed together do not come back
/// together. When the response has a `Retry-After` header (seconds or an HTTP date), that
/// wait is used instead, unless it is longer than ``maxRetryAfter``: then the failure is
/// delivered, with its headers, for the caller to decide.
///
/// A request can override the module's policy with ``NetworkRequest/retryPolicy``.
public struct RetryPolicy: Sendable {
    /// The most attempts a request gets, the first included: `3` sends a request at most
    /// three times. `1` never retries.
    public var maxAttempts: Int
    /// The wait after the first failed attempt, in seconds.
    public var initialDelay: TimeInterval
    /// How much longer each wait is than the one before.
    public var multiplier: Double
    /// The longest wait computed from ``initialDelay`` and ``multiplier``, in seconds.
    public var maxDelay: TimeInterval
    /// How far each wait is spread at random, as a fraction of it: `0.2` waits between 80 %
    /// and 120 % of the computed delay; `0` waits exactly the computed delay.
    public var jitter: Double
    /// Whether `POST`, `PATCH` and other methods that are not idempotent are retried too.
    /// `false` by default: sending them twice may do the work twice.
    public var retriesNonIdempotentMethods: Bool
    /// Whether a failure is worth retrying. By default ``NetworkError/isRetryable``: the
    /// statuses 408, 429, 500, 502, 503 and 504, and the transport errors timed out,
    /// connection lost, not connected and cannot connect.
    public var isRetryable: @Sendable (NetworkError) -> Bool
    /// Whether a `Retry-After` header sets the wait.
    public var honoursRetryAfter: Bool
    /// The longest `Retry-After` honoured, in seconds; a server asking for a longer wait gets
    /// its failure delivered instead.
    public var maxRetryAfter: TimeInterval
    /// Where a request that failed for lack of network waits for it; `nil` (the default): it is
    /// retried on the backoff. Set with ``waitingForNetwork(on:upTo:)``.
    private(set) var connectivity: NetworkConnectivity?
    /// The longest such a request waits, in seconds.
    private(set) var networkWaitLimit: TimeInterval = 60

    /// Creates a policy; every parameter has the value of ``default``.
    public init(
        maxAttempts: Int = 3,
        initialDelay: TimeInterval = 0.5,
        multiplier: Double = 2,
        maxDelay: TimeInterval = 30,
        jitter: Double = 0.2,
        retriesNonIdempotentMethods: Bool = false,
        isRetryable: @escaping @Sendable (NetworkError) -> Bool = { $0.isRetryable },
        honoursRetryAfter: Bool = true,
        maxRetryAfter: TimeInterval = 60
    ) {
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.retriesNonIdempotentMethods = retriesNonIdempotentMethods
        self.isRetryable = isRetryable
        self.honoursRetryAfter = honoursRetryAfter
        self.maxRetryAfter = maxRetryAfter
    }

    /// Three attempts, waiting 0.5 s and then 1 s (±20 %), for idempotent methods and
    /// retryable failures, honouring `Retry-After` up to 60 s.
    public static let `default` = RetryPolicy()

    /// Never retries: for a request that must be sent at most once.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// This policy, with a request that fails for lack of network while `connectivity` says the
    /// network is unreachable waiting until it is reachable again (then retried at once), for at
    /// most `limit` seconds (then it fails with its error), instead of being retried on the
    /// backoff. ``NetworkConnectivity`` says which failures wait, and how to see and end the waits.
    public func waitingForNetwork(on connectivity: NetworkConnectivity, upTo limit: TimeInterval = 60) -> RetryPolicy {
        var policy = self
        policy.connectivity = connectivity
        policy.networkWaitLimit = limit.isNaN ? 0 : max(0, limit)
        return policy
    }

    /// The wait after attempt `attempt` failed, before jitter: the exponential backoff,
    /// capped at ``maxDelay``.
    func backoff(afterAttempt attempt: Int) -> TimeInterval {
        let exponent = Double(max(0, attempt - 1))
        let delay = initialDelay * pow(max(1, multiplier), exponent)
        guard delay.isFinite else { return max(0, maxDelay) }
        return max(0, min(delay, maxDelay))
    }

    /// `delay` spread by ``jitter``, with `random` in `0..<1`: `0` gives the shortest wait,
    /// `0.5` the delay itself.
    func jittered(_ delay: TimeInterval, random: Double) -> TimeInterval {
        let spread = min(max(jitter, 0), 1)
        let unit = min(max(random, 0), 1)
        return max(0, delay * (1 - spread + 2 * spread * unit))
    }
}
