import Foundation

/// Schedules work on a global dispatch queue.
package struct DispatchDelayScheduler: DelayScheduler {
    /// Creates a dispatch scheduler.
    package init() {}

    /// Runs `work` on a global queue after `delay` seconds, unless cancelled first.
    package func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable {
        let timer = ScheduledWork(work)
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, delay)) { timer.run() }
        return timer
    }
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
