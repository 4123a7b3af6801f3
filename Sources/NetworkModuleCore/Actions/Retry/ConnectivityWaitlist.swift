import Foundation

/// The requests waiting for the network, and whether it is reachable: the state of a
/// ``NetworkConnectivity``, one value behind its lock. Each event is a method that changes the
/// state and returns what the caller must do outside the lock (resume waiters, cancel their
/// timers), so every (state, event) pair is a unit test without threads.
///
/// A waiter leaves the list exactly once, by whichever event comes first: the network comes
/// back (resumed with `true`), its time limit passes or the app stops every wait (resumed with
/// `false`), or its request ends some other way, a cancellation say (not resumed: nobody
/// waits for it any more).
struct ConnectivityWaitlist {
    /// A waiting request: what resumes it, and the timer of its time limit once scheduled.
    struct Waiter {
        let resume: @Sendable (_ reachable: Bool) -> Void
        var timer: (any NetworkCancellable)?
    }

    /// What the caller does for waiters that left the list: resume them with `reachable`, and
    /// cancel their timers.
    struct Release {
        var waiters: [Waiter] = []
        var reachable = false

        /// Resumes every waiter and cancels its timer, outside the lock.
        func perform() {
            for waiter in waiters {
                waiter.timer?.cancel()
                waiter.resume(reachable)
            }
        }
    }

    private(set) var isReachable: Bool
    private var waiting: [UUID: Waiter] = [:]

    init(isReachable: Bool) {
        self.isReachable = isReachable
    }

    /// How many requests are waiting.
    var count: Int { waiting.count }

    /// Request `id` failed for lack of network. Returns `true` if it now waits, `false` if the
    /// network is reachable (or the request already waits), so it is retried as usual.
    mutating func wait(_ id: UUID, resume: @escaping @Sendable (_ reachable: Bool) -> Void) -> Bool {
        guard !isReachable, waiting[id] == nil else { return false }
        waiting[id] = Waiter(resume: resume)
        return true
    }

    /// The time limit of request `id` was scheduled as `timer`. Returns `timer` when the request
    /// no longer waits (released meanwhile), for the caller to cancel.
    mutating func timerScheduled(_ timer: any NetworkCancellable, for id: UUID) -> (any NetworkCancellable)? {
        guard waiting[id] != nil else { return timer }
        waiting[id]?.timer = timer
        return nil
    }

    /// The network became reachable or unreachable. When it became reachable, every waiter
    /// is released with `true`.
    mutating func update(isReachable: Bool) -> Release {
        self.isReachable = isReachable
        guard isReachable else { return Release() }
        return releaseAll(reachable: true)
    }

    /// The time limit of request `id` passed: it is released with `false` if it still waits.
    mutating func timeLimitPassed(for id: UUID) -> Release {
        guard let waiter = waiting.removeValue(forKey: id) else { return Release() }
        return Release(waiters: [waiter], reachable: false)
    }

    /// The app stopped every wait: every waiter is released with `false`.
    mutating func stopAll() -> Release {
        releaseAll(reachable: false)
    }

    /// Request `id` ended (cancelled while it waited, say): it leaves the list unresumed, and its
    /// timer is returned for the caller to cancel.
    mutating func requestEnded(_ id: UUID) -> (any NetworkCancellable)? {
        waiting.removeValue(forKey: id)?.timer
    }

    private mutating func releaseAll(reachable: Bool) -> Release {
        let waiters = Array(waiting.values)
        waiting.removeAll()
        return Release(waiters: waiters, reachable: reachable)
    }
}
