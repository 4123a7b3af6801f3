import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` that lets at most `maxConcurrent` requests of the session it wraps
/// be in flight at once; the others wait their turn, first come first served.
///
/// ```swift
/// let session = URLSessionTransport.shared.throttled(maxConcurrent: 4)
/// ```
///
/// A resumed task starts at once if fewer than `maxConcurrent` tasks are in flight, and otherwise
/// joins the back of the queue; waiting costs no thread and no polling (the task that finishes
/// starts the next). Cancelling a task, waiting, in flight or never resumed, completes it with
/// `URLError.cancelled` at once (one in flight is cancelled in the wrapped session and gives its
/// place to the next waiter). Every resumed or cancelled task calls its completion handler
/// exactly once, on the thread where the wrapped session answered or the one that cancelled it.
/// Transfers wait for a place like any request, then go to the wrapped session as transfers
/// (streamed to disk by a ``URLSessionTransport``).
///
/// Thread-safe. ``statistics`` shows how many tasks are in flight and waiting.
public final class ThrottledSession: NetworkSession, TransferringSession {
    /// A snapshot of the session's state.
    public struct Statistics: Sendable, Equatable {
        /// Tasks sent to the wrapped session that have not finished.
        public var inFlight: Int
        /// Tasks resumed and waiting for a place, in the queue.
        public var waiting: Int
    }

    /// The queue and the count of tasks in flight. The tasks' own lifecycles and places are guarded by the
    /// same lock (see ``ThrottledSessionTask``), so that one lock orders everything.
    struct State {
        var inFlight = 0
        /// Waiting tasks in order, from `head` on; the slots before `head` are spent.
        var waiting: [ThrottledSessionTask] = []
        var head = 0

        var waitingCount: Int { waiting.count - head }

        /// Takes the oldest waiting task, if any.
        mutating func dequeue() -> ThrottledSessionTask? {
            guard head < waiting.count else { return nil }
            let next = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return next
        }

        /// Removes `task` from the queue; `false` if it was not waiting.
        mutating func remove(_ task: ThrottledSessionTask) -> Bool {
            guard let index = waiting[head...].firstIndex(where: { $0 === task }) else { return false }
            waiting.remove(at: index)
            return true
        }
    }

    /// The largest number of tasks in flight at once (at least 1).
    let maxConcurrent: Int

    let wrapped: any TransferringSession
    let state = LockedState(State())

    /// Creates the session; ``NetworkSession/throttled(maxConcurrent:)`` says what `maxConcurrent` is.
    init(wrapping session: some NetworkSession, maxConcurrent: Int) {
        self.wrapped = session.transferring
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// How many tasks are in flight and how many are waiting, now.
    public var statistics: Statistics {
        state.withLock { Statistics(inFlight: $0.inFlight, waiting: $0.waitingCount) }
    }

    /// Creates a task that is sent to the wrapped session as `transfer`, when a place is free:
    /// the wrapped session applies the redirect policy, streams the body and reports progress as
    /// it would alone (the place is held until the transfer ends).
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        ThrottledSessionTask(session: self, request: request, transfer: transfer, completionHandler: completionHandler)
    }

    /// Forwards to the wrapped session: a throttle shares no calls, it only queues them.
    package func stopSharingCallsInFlight() { wrapped.stopSharingCallsInFlight() }

    /// The wrapped session's.
    package var underlyingTransport: URLSessionTransport? { wrapped.underlyingTransport }

    /// Called with the lock held by a task that gives up its place: frees it and hands it to
    /// the oldest waiter, which the caller must start once the lock is released.
    func releasePlace(_ state: inout State) -> ThrottledSessionTask? {
        guard let next = state.dequeue() else {
            state.inFlight -= 1
            return nil
        }
        next.place = .held
        return next
    }
}

extension NetworkSession {
    /// This session, with at most `maxConcurrent` requests in flight at once; the others
    /// wait in order. See ``ThrottledSession``.
    ///
    /// - Parameters:
    ///   - maxConcurrent: the largest number of requests in flight at once; a value below 1 is
    ///     taken as 1.
    public func throttled(maxConcurrent: Int) -> ThrottledSession {
        ThrottledSession(wrapping: self, maxConcurrent: maxConcurrent)
    }
}
