import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stops and restarts the reading of one streamed body for ``URLSessionTransport``, as its
/// ``TransferOptions/ChunkSink`` fills and drains.
///
/// - On Apple platforms the task is suspended and resumed (``TaskControl``), always from one
///   serial queue of its own: in the order the sink asked, and never on the delegate queue.
/// - On Linux it does nothing (``pausesTransfers`` is `false`): `URLSessionTask.suspend()` does
///   not stop libcurl from reading (hundreds of MB arrive while "suspended", and the resumed body
///   can come out corrupted), and holding the delegate instead holds the one work queue every
///   `URLSession` of the process shares, stalling every other request. There the sink takes what
///   arrives, and ``URLSessionTransport/maximumResponseSize`` bounds it.
///
/// Which platform pauses is a value read at run time, not code compiled out, so that tests drive
/// the Apple behaviour on Linux with a recording ``TaskControl`` and a synchronous `run`.
final class StreamPause: @unchecked Sendable {
    // @unchecked Sendable is safe: `state` is only touched while holding `lock`; `control`,
    // `pausesTransfers` and `run` are immutable (and Sendable).

    /// Suspends and resumes one task: `URLSessionTask.suspend()` and `resume()` in the
    /// transport, a recorder in tests.
    struct TaskControl: Sendable {
        let suspend: @Sendable () -> Void
        let resume: @Sendable () -> Void

        /// Suspends and resumes `task`.
        static func of(_ task: URLSessionTask) -> TaskControl {
            TaskControl(suspend: { task.suspend() }, resume: { task.resume() })
        }
    }

    /// Whether this platform's `URLSession` can pause a transfer: Apple's can, Linux's cannot.
    static let platformPausesTransfers = !LinuxURLSessionQuirks.apply

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
    private let control: TaskControl
    /// Whether pauses reach the task; `false` on Linux.
    private let pausesTransfers: Bool
    /// Runs a suspend or resume, in the order given: on one serial queue of the pause's own.
    private let run: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// A pause for the task `control` suspends and resumes; `pausesTransfers` and `run` are the
    /// platform's unless a test gives its own.
    init(
        control: TaskControl, pausesTransfers: Bool = StreamPause.platformPausesTransfers,
        run: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
    ) {
        self.control = control
        self.pausesTransfers = pausesTransfers
        if let run {
            self.run = run
        } else {
            let queue = DispatchQueue(label: "NetworkModule.URLSessionTransport.stream")
            self.run = { work in queue.async(execute: work) }
        }
    }

    /// A pause, not paused, for the task `control` suspends and resumes, that pauses as this
    /// one does: for the task the request is sent again in.
    func replaced(by control: TaskControl) -> StreamPause {
        StreamPause(control: control, pausesTransfers: pausesTransfers, run: run)
    }

    /// Whether the body is paused: a paused body is not idle.
    var isPaused: Bool {
        lock.lock()
        defer { lock.unlock() }
        return state.isPaused
    }

    /// The sink is full: stops reading (Apple platforms).
    func pause() {
        guard pausesTransfers else { return }
        lock.lock()
        defer { lock.unlock() }
        // Queued under the lock, so that a resume asked next is queued after it.
        if state.full() == .suspend { run(control.suspend) }
    }

    /// The sink has room: reads on (Apple platforms).
    func resume() {
        guard pausesTransfers else { return }
        lock.lock()
        defer { lock.unlock() }
        // Queued under the lock, so that a suspend asked first is queued first.
        if state.room() == .resume { run(control.resume) }
    }

    /// The task's outcome was reported: pauses and resumes are ignored from now on (a suspended
    /// task stays suspended until the transport cancels it).
    func end() {
        lock.lock()
        defer { lock.unlock() }
        _ = state.end()
    }
}
