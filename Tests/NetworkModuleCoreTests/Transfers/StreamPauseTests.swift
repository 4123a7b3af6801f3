import Foundation
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
