import Foundation

/// Runs work after a delay: how a module waits before retrying a request, and how it bounds
/// the wait for an action that prepares a request later (by the request's timeout).
///
/// The default is a dispatch timer. Tests inject a scheduler they advance by hand
/// (`ManualDelayScheduler` in `NetworkModuleTesting`), so retry delays and preparation timeouts
/// are tested without sleeping. The module hands it delays from 0 to
/// 10⁹ seconds: a negative or NaN retry delay counts as 0.
public protocol DelayScheduler: Sendable {
    /// Runs `work` once after `delay` seconds, unless the returned handle is cancelled first:
    /// how the module waits before a retry.
    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable
}

/// A scheduler that tells time limits from waits: the testing library's manual scheduler, which
/// lists only waits in its `requestedDelays`. Any other scheduler runs both alike.
package protocol TimeLimitScheduling: DelayScheduler {
    /// Runs `work` once after `limit` seconds, unless the returned handle is cancelled first: a
    /// time limit, not a wait (the request's timeout, bounding an action that prepares the
    /// request later).
    func scheduleTimeLimit(after limit: TimeInterval, _ work: @escaping @Sendable () -> Void)
        -> any NetworkCancellable
}

extension DelayScheduler {
    /// Runs `work` once after `delay` seconds, as the module hands every wait to a scheduler: a
    /// negative or NaN delay counts as 0, and none is longer than the longest time that falls due
    /// (``RequestTimeout/longestSeconds``).
    func scheduleWait(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable {
        schedule(after: delay > 0 ? min(delay, RequestTimeout.longestSeconds) : 0, work)
    }

    /// Runs `work` once after `limit` seconds, as a time limit where the scheduler tells limits
    /// from waits (``TimeLimitScheduling``), and as any wait otherwise.
    func scheduleLimit(after limit: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable {
        guard let limits = self as? any TimeLimitScheduling else { return schedule(after: limit, work) }
        return limits.scheduleTimeLimit(after: limit, work)
    }
}
