import Foundation
import NetworkModuleCore

/// A completion executor for tests: counts every delivery, so a test can assert that each
/// request completed exactly once, and either runs it at once, like `.immediate`, or holds it
/// until the test runs it on its own thread or actor.
///
/// ```swift
/// let executor = RecordingExecutor()
/// let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: executor)
/// module.perform(request: request) { _ in }.cancel()
/// #expect(executor.deliveryCount == 1)   // XCTAssertEqual(executor.deliveryCount, 1)
/// ```
///
/// A request completes inside `perform` only when the session answers inside it and every
/// action answers at once; an action that answers later (an `async` token closure, a token
/// refresh, a retry's wait) completes the request later, on another thread. With
/// `holdingDeliveries: true` the test waits for the completion and runs it where it awaits:
///
/// ```swift
/// let executor = RecordingExecutor(holdingDeliveries: true)
/// let module = DefaultNetworkModule(
///     requestBuilder: builder, session: session, actions: [.authentication(tokens)], completionExecutor: executor)
/// module.perform(request: GetUser(id: 1)) { result in show(result) }  // the token comes later
/// #expect(await executor.deliver())  // the completion ran here, on the test's actor
/// ```
///
/// For tests that need neither, use the core's `.immediate`.
///
/// Thread-safe.
public final class RecordingExecutor: CompletionExecutor {
    private typealias Work = @Sendable () -> Void

    private struct State {
        var count = 0
        /// Work handed over and not run yet (when holding deliveries), oldest first.
        var held: [Work] = []
        /// Callers of ``deliver(_:timeout:isolation:)`` waiting for work, oldest first.
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Work?, Never>)] = []
        var nextWaiterID: UInt64 = 0
    }

    /// Whether work waits for ``deliver(_:timeout:isolation:)`` rather than running at once.
    private let holdsDeliveries: Bool
    private let state = LockedState(State())

    /// Creates a recording executor that runs work at once, as `.immediate` does, or, when
    /// `holdingDeliveries` is `true`, holds it until the test calls
    /// ``deliver(_:timeout:isolation:)`` and runs it there, on the test's thread or actor.
    public init(holdingDeliveries: Bool = false) {
        self.holdsDeliveries = holdingDeliveries
    }

    /// How many pieces of work were handed to this executor, run or held.
    public var deliveryCount: Int {
        state.withLock { $0.count }
    }

    /// How many pieces of work are held, waiting for ``deliver(_:timeout:isolation:)``.
    public var heldCount: Int {
        state.withLock { $0.held.count }
    }

    /// Counts `work`, then runs it now on the calling thread, or, when holding deliveries, holds
    /// it for ``deliver(_:timeout:isolation:)``.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        let waiter = state.withLock { state -> CheckedContinuation<Work?, Never>? in
            state.count += 1
            guard holdsDeliveries else { return nil }
            guard !state.waiters.isEmpty else {
                state.held.append(work)
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        if !holdsDeliveries {
            work()
        } else if let waiter {
            waiter.resume(returning: work)
        }
    }

    /// Runs the next `count` pieces of work, oldest first, on the caller's actor (or thread),
    /// waiting for each that has not been handed over yet; only when holding deliveries.
    ///
    /// - Parameters:
    ///   - count: how many to run.
    ///   - timeout: how long to wait, in seconds, for each piece not handed over yet: a
    ///     guard against a test that hangs, not a measure. An action that answers later may
    ///     need a thread of Swift's cooperative pool, which a loaded test run (other tests
    ///     blocking its threads, a sanitizer) can keep busy for seconds; hence 60 by default.
    ///   - isolation: where the work runs: the caller's actor, which the compiler passes.
    /// - Returns: `true` once `count` pieces ran; `false` if one did not come within `timeout`
    ///   (or the executor delivers immediately, and holds nothing to run).
    public func deliver(
        _ count: Int = 1, timeout: TimeInterval = 60, isolation: isolated (any Actor)? = #isolation
    ) async -> Bool {
        guard holdsDeliveries else { return false }
        for _ in 0..<max(0, count) {
            guard let work = await next(timeout: timeout) else { return false }
            work()
        }
        return true
    }

    /// The oldest held work, or the next handed over within `timeout`; `nil` if none comes.
    private func next(timeout: TimeInterval, isolation: isolated (any Actor)? = #isolation) async -> Work? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Work?, Never>) in
            let (held, id) = state.withLock { state -> (Work?, UInt64) in
                guard state.held.isEmpty else { return (state.held.removeFirst(), 0) }
                state.nextWaiterID += 1
                state.waiters.append((state.nextWaiterID, continuation))
                return (nil, state.nextWaiterID)
            }
            if let held {
                continuation.resume(returning: held)
                return
            }
            let delay = timeout.isFinite ? max(0, min(timeout, 86_400)) : 86_400
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [state] in
                let expired = state.withLock { state -> CheckedContinuation<Work?, Never>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                expired?.resume(returning: nil)
            }
        }
    }
}
