import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

/// Every (state, event) pair of ``StreamPause/State``, with no task or thread.
@Suite("Stream pause")
struct StreamPauseTests {
    @Test("when the sink is full, should suspend once, and resume when it has room")
    func fullThenRoom() {
        var state = StreamPause.State()

        let actions = [state.full(), state.full(), state.room(), state.room()]

        #expect(actions == [.suspend, .none, .resume, .none])
        #expect(!state.isPaused)
    }

    @Test("when the sink makes room before the session pauses, should skip the pause")
    func earlyRoom() {
        var state = StreamPause.State()

        let actions = [state.room(), state.full(), state.full()]

        #expect(actions == [.none, .none, .suspend], "the early room cancels one pause only")
    }

    @Test("when the task ends while paused, should release the pause and ignore later events")
    func endReleases() {
        var state = StreamPause.State()
        _ = state.full()

        let end = state.end()

        #expect(end == .resume)
        #expect(state.full() == .none)
        #expect(state.room() == .none)
        #expect(!state.isPaused)
    }
}

/// The pause as the transport drives it, with the Apple behaviour on every platform: a recording
/// ``StreamPause/TaskControl``, `pausesTransfers` on, and the suspends and resumes run at once
/// instead of on the pause's queue.
@Suite("Stream pause of a task")
struct StreamPauseTaskTests {
    /// The suspends and resumes asked of one or more tasks, in order.
    final class Recorder: Sendable {
        private let calls = LockedState<[String]>([])

        var recorded: [String] { calls.withLock { $0 } }

        func control(_ name: String) -> StreamPause.TaskControl {
            StreamPause.TaskControl(
                suspend: { self.calls.withLock { $0.append("suspend \(name)") } },
                resume: { self.calls.withLock { $0.append("resume \(name)") } })
        }
    }

    private static func pause(_ control: StreamPause.TaskControl) -> StreamPause {
        StreamPause(control: control, pausesTransfers: true, run: { $0() })
    }

    @Test("when full, room and full come, should suspend, resume and suspend the task in that order")
    func fullRoomFull() {
        let recorder = Recorder()
        let pause = Self.pause(recorder.control("a"))

        pause.pause()
        #expect(pause.isPaused)
        pause.resume()
        pause.pause()
        pause.pause()

        #expect(recorder.recorded == ["suspend a", "resume a", "suspend a"])
    }

    @Test("when room comes first, should never suspend")
    func roomFirst() {
        let recorder = Recorder()
        let pause = Self.pause(recorder.control("a"))

        pause.resume()
        pause.pause()

        #expect(recorder.recorded.isEmpty)
        #expect(!pause.isPaused)
    }

    @Test("when the task ends paused, should leave it to the cancel that follows and ignore later room")
    func endsPaused() {
        let recorder = Recorder()
        let pause = Self.pause(recorder.control("a"))
        pause.pause()

        pause.end()
        pause.resume()
        pause.pause()

        #expect(recorder.recorded == ["suspend a"])
        #expect(!pause.isPaused, "a task that ended is not paused: its deadline does not count it active")
    }

    @Test("when the request is sent again in a new task, should pause the new task, not the old")
    func movedTask() {
        let recorder = Recorder()
        let pause = Self.pause(recorder.control("old"))

        let moved = pause.replaced(by: recorder.control("new"))
        moved.pause()
        moved.resume()

        #expect(recorder.recorded == ["suspend new", "resume new"])
    }

    @Test("when the platform cannot pause a transfer, should never touch the task")
    func platformWithoutPause() {
        let recorder = Recorder()
        let pause = StreamPause(control: recorder.control("a"), pausesTransfers: false, run: { $0() })

        pause.pause()
        pause.resume()

        #expect(recorder.recorded.isEmpty)
        #expect(StreamPause.platformPausesTransfers == !LinuxURLSessionQuirks.apply)
    }

    @Test("when no queue is given, should run the suspend on the pause's own queue")
    func ownQueue() async {
        let suspended = DispatchSemaphore(value: 0)
        let control = StreamPause.TaskControl(suspend: { suspended.signal() }, resume: {})
        let pause = StreamPause(control: control, pausesTransfers: true)

        pause.pause()

        #expect(await suspended.signalled(within: 10))
    }
}
