import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stops and restarts the reading of one streamed body for ``URLSessionTransport``, as its
/// ``SessionTransfer/ChunkSink`` fills and drains.
///
/// - On Apple platforms the task is suspended and resumed, always from one serial queue of its
///   own: in the order the sink asked, and never on the delegate queue.
/// - On Linux it does nothing: swift-corelibs-foundation cannot pause a transfer.
///   `URLSessionTask.suspend()` does not stop libcurl from reading (measured: hundreds of MB
///   arrive while "suspended", and the resumed body can come out corrupted), and holding the
///   delegate instead holds the one work queue every `URLSession` of the process shares (a
///   stream paused that way stalled every other request, and a consumer waiting for one of them
///   never drained it). There the sink takes what arrives, and
///   ``URLSessionTransport/maximumResponseSize`` bounds it.
final class StreamPause: @unchecked Sendable {
    // @unchecked Sendable is safe: `state` is only touched while holding `lock`; `task` and
    // `queue` are immutable.

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

    /// Guards `state`.
    private let lock = NSLock()
    private var state = State()
    private let task: URLSessionDataTask
    /// Where the task is suspended and resumed (Apple platforms).
    private let queue = DispatchQueue(label: "NetworkModule.URLSessionTransport.stream")

    init(task: URLSessionDataTask) {
        self.task = task
    }

    /// Whether the body is paused: a paused body is not idle.
    var isPaused: Bool {
        lock.lock()
        defer { lock.unlock() }
        return state.isPaused
    }

    /// The sink is full: stops reading (Apple platforms).
    func pause() {
        #if !canImport(FoundationNetworking)
            lock.lock()
            defer { lock.unlock() }
            // Queued under the lock, so that a resume asked next is queued after it.
            if state.full() == .suspend { queue.async { [task] in task.suspend() } }
        #endif
    }

    /// The sink has room: reads on (Apple platforms).
    func resume() {
        #if !canImport(FoundationNetworking)
            lock.lock()
            defer { lock.unlock() }
            // Queued under the lock, so that a suspend asked first is queued first.
            if state.room() == .resume { queue.async { [task] in task.resume() } }
        #endif
    }

    /// The task's outcome was reported: pauses and resumes are ignored from now on (a suspended
    /// task stays suspended until the transport cancels it).
    func end() {
        lock.lock()
        defer { lock.unlock() }
        _ = state.end()
    }
}
