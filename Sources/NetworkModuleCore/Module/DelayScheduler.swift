import Foundation

/// Runs work after a delay: how a module waits before retrying a request, and how it bounds
/// the wait for an action that prepares a request later (by the request's timeout).
///
/// The default, ``DispatchDelayScheduler``, uses a dispatch timer. Tests inject a scheduler
/// they advance by hand (`ManualDelayScheduler` in `NetworkModuleTesting`), so retry delays
/// and preparation timeouts are tested without sleeping. The module hands it delays from 0 to
/// 10⁹ seconds: a negative or NaN retry delay counts as 0.
public protocol DelayScheduler: Sendable {
    /// Runs `work` once after `delay` seconds, unless the returned handle is cancelled first.
    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable
}

/// Schedules work on a global dispatch queue.
public struct DispatchDelayScheduler: DelayScheduler {
    /// Creates a dispatch scheduler.
    public init() {}

    /// Runs `work` on a global queue after `delay` seconds, unless cancelled first.
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable {
        let timer = ScheduledWork(work)
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, delay)) { timer.run() }
        return timer
    }
}

extension DelayScheduler where Self == DispatchDelayScheduler {
    /// A dispatch timer on a global queue: the default.
    public static var dispatch: DispatchDelayScheduler { DispatchDelayScheduler() }
}

/// Work that runs at most once, unless cancelled before.
private final class ScheduledWork: NetworkCancellable {
    private let work: LockedState<(@Sendable () -> Void)?>

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = LockedState(work)
    }

    func run() {
        let pending = work.withLock { work in
            defer { work = nil }
            return work
        }
        pending?()
    }

    func cancel() {
        work.withLock { $0 = nil }
    }
}
