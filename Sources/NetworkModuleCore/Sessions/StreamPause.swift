import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stops and restarts the reading of one streamed body for ``URLSessionTransport``, as its
/// ``SessionTransfer/ChunkSink`` fills and drains.
///
/// - On Apple platforms the task is suspended and resumed, always from one serial queue of its
///   own: in the order the sink asked, and never on the delegate queue.
/// - On Linux, `URLSessionTask.suspend()` does not stop swift-corelibs-foundation from reading
///   (libcurl goes on, and a resumed transfer can be corrupted), so the stream has a `URLSession`
///   of its own, and ``pause()`` blocks its delegate queue, a ``BoundedDelegateQueue``, until the
///   sink has room or the task ends: the queue fills, libcurl waits for it, and the server is
///   slowed by TCP. Only this stream's session waits.
final class StreamPause: @unchecked Sendable {
    // @unchecked Sendable is safe: `state` is only touched while holding `condition`; `task`
    // and `queue` are immutable.

    /// Whether the body is paused, as a value: each event returns what to do.
    struct State: Equatable {
        /// What the task should do.
        enum Action: Equatable {
            case none, suspend, resume
        }

        private(set) var isPaused = false
        /// The sink made room before the session came to pause: the pause is skipped.
        private(set) var hasEarlyRoom = false
        private(set) var isEnded = false

        /// The sink said it is full.
        mutating func full() -> Action {
            guard !isEnded, !isPaused else { return .none }
            if hasEarlyRoom {
                hasEarlyRoom = false
                return .none
            }
            isPaused = true
            return .suspend
        }

        /// The sink has room again.
        mutating func room() -> Action {
            guard !isEnded else { return .none }
            guard isPaused else {
                hasEarlyRoom = true
                return .none
            }
            isPaused = false
            return .resume
        }

        /// The task's outcome was reported: nothing waits any more.
        mutating func end() -> Action {
            isEnded = true
            hasEarlyRoom = false
            guard isPaused else { return .none }
            isPaused = false
            return .resume
        }
    }

    private let condition = NSCondition()
    private var state = State()
    private let task: URLSessionDataTask
    /// Where the task is suspended and resumed (Apple platforms).
    private let queue = DispatchQueue(label: "NetworkModule.URLSessionTransport.stream")

    init(task: URLSessionDataTask) {
        self.task = task
    }

    /// Whether the body is paused: a paused body is not idle.
    var isPaused: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.isPaused
    }

    /// The sink is full: stops reading. On Linux, blocks the calling delegate thread until the
    /// sink has room or the task ends.
    func pause() {
        condition.lock()
        let action = state.full()
        #if canImport(FoundationNetworking)
            _ = action
            while state.isPaused { condition.wait() }
            condition.unlock()
        #else
            condition.unlock()
            if action == .suspend { queue.async { [task] in task.suspend() } }
        #endif
    }

    /// The sink has room: reads on.
    func resume() {
        condition.lock()
        let action = state.room()
        #if canImport(FoundationNetworking)
            _ = action
            condition.broadcast()
            condition.unlock()
        #else
            // Queued under the lock, so that a suspend asked first is queued first.
            if action == .resume { queue.async { [task] in task.resume() } }
            condition.unlock()
        #endif
    }

    /// The task's outcome was reported: a waiting delegate thread goes on (the task is
    /// cancelled or complete; a suspended one stays suspended until it is cancelled).
    func end() {
        condition.lock()
        _ = state.end()
        condition.broadcast()
        condition.unlock()
    }
}
