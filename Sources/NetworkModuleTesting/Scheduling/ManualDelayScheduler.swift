import Foundation
import NetworkModuleCore

/// A `DelayScheduler` whose time moves only when the test says so, so retry delays and
/// delayed stubs are tested without sleeping.
///
/// ```swift
/// let scheduler = ManualDelayScheduler()
/// let module = DefaultNetworkModule(requestBuilder: builder, session: session,
///                                   completionExecutor: .immediate, delayScheduler: scheduler)
/// module.perform(request: request) { result in show(result) }  // first attempt fails, retry in 2 s
/// scheduler.advance(by: 2)                            // the retry runs now, on this thread
/// ```
public final class ManualDelayScheduler: DelayScheduler, TimeLimitScheduling {
    private struct Scheduled {
        let id: Int
        let dueTime: TimeInterval
        let work: @Sendable () -> Void
    }

    private struct State {
        var now: TimeInterval = 0
        var nextID = 0
        var scheduled: [Scheduled] = []
        var requestedDelays: [TimeInterval] = []
    }

    private let state = LockedState(State())

    /// Creates a scheduler at time zero.
    public init() {}

    /// The scheduler's current time, in seconds since it was created.
    public var now: TimeInterval {
        state.withLock { $0.now }
    }

    /// Every wait asked for, in order: what a test checks to pin a retry policy's backoff (and
    /// the delays of delayed stubs). Time limits (such as a request's timeout bounding an action
    /// that prepares it later) are not waits: they run
    /// when time reaches them, and are not listed here.
    public var requestedDelays: [TimeInterval] {
        state.withLock { $0.requestedDelays }
    }

    /// How many scheduled pieces of work have not run and were not cancelled.
    public var pendingCount: Int {
        state.withLock { $0.scheduled.count }
    }

    /// Schedules `work` to run when the time has advanced by `delay`, and records the wait in
    /// ``requestedDelays``.
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable {
        schedule(after: delay, isWait: true, work)
    }

    /// Schedules `work` to run when the time has advanced by `limit`; not recorded in
    /// ``requestedDelays``, which lists waits only.
    package func scheduleTimeLimit(after limit: TimeInterval, _ work: @escaping @Sendable () -> Void)
        -> any NetworkCancellable
    {
        schedule(after: limit, isWait: false, work)
    }

    private func schedule(after delay: TimeInterval, isWait: Bool, _ work: @escaping @Sendable () -> Void)
        -> any NetworkCancellable
    {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            if isWait { state.requestedDelays.append(delay) }
            state.scheduled.append(Scheduled(id: state.nextID, dueTime: state.now + max(0, delay), work: work))
            return state.nextID
        }
        return ScheduledItem { [weak self] in
            self?.state.withLock { $0.scheduled.removeAll { $0.id == id } }
        }
    }

    /// Moves time forward by `seconds` and runs, on the calling thread and in due order,
    /// everything that falls due, including work scheduled while advancing.
    public func advance(by seconds: TimeInterval) {
        let target = state.withLock { $0.now + seconds }
        while let next = state.withLock({ state -> Scheduled? in
            guard
                let index = state.scheduled.indices.min(by: {
                    (state.scheduled[$0].dueTime, state.scheduled[$0].id) < (
                        state.scheduled[$1].dueTime, state.scheduled[$1].id
                    )
                }), state.scheduled[index].dueTime <= target
            else { return nil }
            let item = state.scheduled.remove(at: index)
            state.now = max(state.now, item.dueTime)
            return item
        }) {
            next.work()
        }
        state.withLock { $0.now = max($0.now, target) }
    }

    /// Runs everything scheduled, however far ahead, advancing time as needed.
    public func runAll() {
        while let due = state.withLock({ $0.scheduled.map(\.dueTime).max() }) {
            advance(by: max(0, due - now))
        }
    }
}

private struct ScheduledItem: NetworkCancellable {
    let onCancel: @Sendable () -> Void

    func cancel() {
        onCancel()
    }
}
