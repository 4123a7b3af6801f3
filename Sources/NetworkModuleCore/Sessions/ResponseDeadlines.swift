import Foundation

/// Deadlines for responses in flight, all on one dispatch timer.
///
/// Linux's `URLSession` ignores `URLRequest.timeoutInterval` (only the configuration's
/// `timeoutIntervalForRequest` applies), and leaves some tasks waiting forever (a 401 with
/// `WWW-Authenticate` on a session without a delegate). The framework gives every task there
/// a deadline at its request's timeout. A timer per request would cost a kernel timer and
/// several allocations each; here a deadline costs an array append and a dictionary entry,
/// and one timer is armed for the earliest deadline.
///
/// Requests of one session mostly share a timeout, so deadlines arrive in order and are
/// appended; a cancelled deadline is forgotten at once and its slot reclaimed in batches,
/// so memory stays proportional to the requests in flight.
final class ResponseDeadlines: Sendable {
    /// The deadlines of every session in the process.
    static let shared = ResponseDeadlines()

    private struct Slot {
        let deadline: UInt64
        let id: UInt64
    }

    private struct State {
        var nextID: UInt64 = 0
        /// Slots sorted by deadline, from `head` on; cancelled ones linger until reclaimed.
        var slots: [Slot] = []
        var head = 0
        var actions: [UInt64: @Sendable () -> Void] = [:]
        var armedFor: UInt64?
        /// The one timer, armed for the earliest deadline; only touched under the lock.
        var timer: (any DispatchSourceTimer)?

        mutating func arm(for deadline: UInt64?) {
            armedFor = deadline
            timer?.schedule(deadline: deadline.map { DispatchTime(uptimeNanoseconds: $0) } ?? .distantFuture)
        }
    }

    private let state = LockedState(State())

    private init() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "NetworkModule.deadlines"))
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.schedule(deadline: .distantFuture)
        state.withLock { $0.timer = timer }
        timer.resume()
    }

    /// Calls `onExpiry` on a background queue after `seconds`, unless the returned deadline
    /// is cancelled first.
    func schedule(after seconds: TimeInterval, _ onExpiry: @escaping @Sendable () -> Void) -> Deadline {
        let delay = seconds.isFinite ? UInt64(max(0, seconds) * 1e9) : UInt64.max / 2
        let deadline = DispatchTime.now().uptimeNanoseconds &+ delay
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            let slot = Slot(deadline: deadline, id: state.nextID)
            if let last = state.slots.last, last.deadline > deadline {
                let index = state.slots[state.head...].partitionIndex { $0.deadline > deadline }
                state.slots.insert(slot, at: index)
            } else {
                state.slots.append(slot)
            }
            state.actions[slot.id] = onExpiry
            if state.armedFor.map({ deadline < $0 }) ?? true {
                state.arm(for: deadline)
            }
            return slot.id
        }
        return Deadline(id: id, owner: self)
    }

    fileprivate func cancel(_ id: UInt64) {
        state.withLock { state in
            guard state.actions.removeValue(forKey: id) != nil else { return }
            let pending = state.slots.count - state.head
            if pending > 64 && pending > state.actions.count * 2 {
                state.slots = state.slots[state.head...].filter { state.actions[$0.id] != nil }
                state.head = 0
            }
        }
    }

    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [@Sendable () -> Void] in
            var due: [@Sendable () -> Void] = []
            while state.head < state.slots.count, state.slots[state.head].deadline <= now {
                if let action = state.actions.removeValue(forKey: state.slots[state.head].id) { due.append(action) }
                state.head += 1
            }
            if state.head > 1024 && state.head * 2 > state.slots.count {
                state.slots.removeFirst(state.head)
                state.head = 0
            }
            state.arm(for: state.head < state.slots.count ? state.slots[state.head].deadline : nil)
            return due
        }
        for action in due { action() }
    }
}

/// A deadline from ``ResponseDeadlines``.
struct Deadline: Sendable {
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
