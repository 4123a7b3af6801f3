import Foundation

/// Idle timeouts for responses in flight, all on one dispatch timer.
///
/// Linux's `URLSession` ignores `URLRequest.timeoutInterval` and leaves some tasks waiting
/// forever (a 401 with `WWW-Authenticate` on a session without a delegate): the transport gives
/// every task there an idle timeout at its request's `timeoutInterval`, Apple's meaning
/// (``RequestTimeout`` defines every value; none traps). An entry expires `timeout` after the
/// last activity its owner reports, or after it was scheduled.
///
/// Why one timer: a deadline costs an array append and a dictionary entry, not a kernel timer.
/// Activity costs nothing here: the owner keeps its time under its own lock, and a slot that
/// comes due asks for it (outside this lock) and is put back at its new deadline if there was
/// activity since, so a busy entry is re-sorted at most once per timeout period. Deadlines
/// mostly arrive in order and are appended; cancelled ones are reclaimed in batches, so memory
/// stays proportional to the requests in flight.
///
/// An expired entry's `onExpiry` runs off the timer's one queue, through `runExpiry`
/// (``CompletionHandlerQueue``, by default): a timed-out task's owner may run the rest of its
/// request there, its hooks and completion included, and must not hold up every other deadline.
///
/// The clock, the timer and where expiries run are passed in, so a test runs on a manual clock
/// without waiting.
final class ResponseDeadlines: Sendable {
    /// The deadlines of every session in the process.
    static let shared = ResponseDeadlines()

    /// Makes the one timer the deadlines arm: given what to call when it comes due, it returns
    /// how to arm it for an instant of the clock (`nil`: never), which replaces the previous
    /// arming. Armed with the deadlines' lock held, so it must not call back in.
    typealias Timer = @Sendable (_ fire: @escaping @Sendable () -> Void) -> @Sendable (_ deadline: UInt64?) -> Void

    private struct Slot {
        let deadline: UInt64
        let id: UInt64
    }

    private struct Entry {
        let onExpiry: @Sendable () -> Void
        let timeout: UInt64
        /// When the owner last saw activity, in uptime nanoseconds; `nil` for none since the
        /// entry was scheduled, or an owner that reports none.
        let lastActivity: (@Sendable () -> UInt64?)?
    }

    private struct State {
        var nextID: UInt64 = 0
        /// Slots sorted by deadline, from `head` on; cancelled ones linger until reclaimed.
        var slots: [Slot] = []
        var head = 0
        var entries: [UInt64: Entry] = [:]
        var armedFor: UInt64?
        /// Arms the one timer for the earliest deadline; only called under the lock.
        var armTimer: (@Sendable (UInt64?) -> Void)?

        mutating func arm(for deadline: UInt64?) {
            armedFor = deadline
            armTimer?(deadline)
        }

        /// Inserts a slot in deadline order, appending in the common case, and re-arms the
        /// timer if it is now the earliest.
        mutating func insert(_ slot: Slot) {
            if let last = slots.last, last.deadline > slot.deadline {
                let index = slots[head...].partitionIndex { $0.deadline > slot.deadline }
                slots.insert(slot, at: index)
            } else {
                slots.append(slot)
            }
            if armedFor.map({ slot.deadline < $0 }) ?? true {
                arm(for: slot.deadline)
            }
        }
    }

    private let state = LockedState(State())
    /// Now, in the nanoseconds of the clock the timer is armed on.
    let now: @Sendable () -> UInt64
    /// Runs an expired entry's `onExpiry`.
    private let runExpiry: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Deadlines on the clock `now` and the timer `timer` makes, whose expiries `runExpiry` runs:
    /// by default, uptime nanoseconds, a dispatch timer, and each expiry on a queue of
    /// ``CompletionHandlerQueue``.
    init(
        now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds },
        timer: Timer = ResponseDeadlines.dispatchTimer,
        runExpiry: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = {
            CompletionHandlerQueue.shared.run($0)
        }
    ) {
        self.now = now
        self.runExpiry = runExpiry
        let arm = timer { [weak self] in self?.fire() }
        state.withLock { $0.armTimer = arm }
    }

    /// One dispatch timer on a queue of its own, armed in uptime nanoseconds.
    static func dispatchTimer(fire: @escaping @Sendable () -> Void) -> @Sendable (UInt64?) -> Void {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "NetworkModule.deadlines"))
        timer.setEventHandler(handler: fire)
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        // In a LockedState because Dispatch's timer is not Sendable; armed under the deadlines'
        // lock anyway, so this lock is never contended.
        let armed = LockedState(timer)
        return { deadline in
            armed.withLock {
                $0.schedule(deadline: deadline.map { DispatchTime(uptimeNanoseconds: $0) } ?? .distantFuture)
            }
        }
    }

    /// Calls `onExpiry`, through the runner the deadlines were given, once `seconds`
    /// (``RequestTimeout``; one that never expires costs nothing) pass after the last activity,
    /// unless the deadline is cancelled.
    ///
    /// - Parameter lastActivity: when the owner last saw activity, in the nanoseconds of ``now``
    ///   (`nil`: none since scheduling). Asked only when the deadline comes due, never under this
    ///   object's lock, so it may take its owner's lock.
    func schedule(
        after seconds: TimeInterval, lastActivity: (@Sendable () -> UInt64?)? = nil,
        onExpiry: @escaping @Sendable () -> Void
    ) -> Deadline {
        guard let delay = RequestTimeout(seconds: seconds).nanoseconds else { return Deadline(id: 0, owner: self) }
        let now = self.now()
        // Cannot overflow: the clock (uptime) is far below UInt64.max / 2 and delay is at most
        // 10¹⁸ (``RequestTimeout``).
        let deadline = now + delay
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.entries[state.nextID] = Entry(onExpiry: onExpiry, timeout: delay, lastActivity: lastActivity)
            state.insert(Slot(deadline: deadline, id: state.nextID))
            return state.nextID
        }
        return Deadline(id: id, owner: self)
    }

    /// When an entry that last saw activity at `lastActivity` (nanoseconds; `nil` for none)
    /// falls idle for `timeout`, if that is after `now`; `nil` if it is idle already.
    static func idleUntil(lastActivity: UInt64?, timeout: UInt64, now: UInt64) -> UInt64? {
        guard let lastActivity else { return nil }
        let (until, overflowed) = lastActivity.addingReportingOverflow(timeout)
        if overflowed { return .max }
        return until > now ? until : nil
    }

    fileprivate func cancel(_ id: UInt64) {
        guard id != 0 else { return }
        state.withLock { state in
            guard state.entries.removeValue(forKey: id) != nil else { return }
            let pending = state.slots.count - state.head
            if pending > 64 && pending > state.entries.count * 2 {
                state.slots = state.slots[state.head...].filter { state.entries[$0.id] != nil }
                state.head = 0
            }
        }
    }

    private func fire() {
        let now = self.now()
        // 1. Under the lock: the slots that came due, with their live entries.
        let due = state.withLock { state -> [(id: UInt64, entry: Entry)] in
            var due: [(id: UInt64, entry: Entry)] = []
            while state.head < state.slots.count, state.slots[state.head].deadline <= now {
                let id = state.slots[state.head].id
                state.head += 1
                if let entry = state.entries[id] { due.append((id, entry)) }
            }
            if state.head > 1024 && state.head * 2 > state.slots.count {
                state.slots.removeFirst(state.head)
                state.head = 0
            }
            state.arm(for: state.head < state.slots.count ? state.slots[state.head].deadline : nil)
            return due
        }
        guard !due.isEmpty else { return }
        // 2. Outside it: each owner says when it last saw activity (taking its own lock).
        let decisions = due.map { id, entry in
            (id, Self.idleUntil(lastActivity: entry.lastActivity?(), timeout: entry.timeout, now: now))
        }
        // 3. Under the lock again: an entry that saw activity since goes back at its new
        //    deadline; an idle one expires. One cancelled meanwhile is gone and does neither.
        let expired = state.withLock { state -> [@Sendable () -> Void] in
            var expired: [@Sendable () -> Void] = []
            for (id, idleUntil) in decisions {
                if let idleUntil {
                    if state.entries[id] != nil { state.insert(Slot(deadline: idleUntil, id: id)) }
                } else if let entry = state.entries.removeValue(forKey: id) {
                    expired.append(entry.onExpiry)
                }
            }
            return expired
        }
        for action in expired { runExpiry(action) }
    }
}

/// A deadline from ``ResponseDeadlines``.
struct Deadline: Sendable {
    /// 0 for a deadline that never expires, and so was never stored.
    fileprivate let id: UInt64
    fileprivate let owner: ResponseDeadlines

    /// Forgets the deadline; harmless after it expired or was cancelled.
    func cancel() {
        owner.cancel(id)
    }
}

extension Collection {
    /// The index of the first element for which `belongsInSecondPartition` is true, in a
    /// collection already partitioned by it (binary search).
    fileprivate func partitionIndex(where belongsInSecondPartition: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongsInSecondPartition(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
