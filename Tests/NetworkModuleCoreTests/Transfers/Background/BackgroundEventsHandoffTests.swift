import Testing

@testable import NetworkModuleCore

/// Every (state, event) pair of the hand-off of the app delegate's completion handler: it runs
/// once, after the session's events are drained, whichever comes first.
@Suite("BackgroundEventsHandoff")
struct BackgroundEventsHandoffTests {
    typealias Handoff = BackgroundEventsHandoff<String>

    @Test("when the handler comes before the drain, should keep it until the drain")
    func handlerThenDrain() {
        var handoff = Handoff()

        let atHandOver = handoff.handlerGiven("wake 1")
        let atDrain = handoff.eventsFinished()

        #expect(atHandOver.isEmpty)
        #expect(atDrain == ["wake 1"])
    }

    @Test("when the drain comes before the handler, should call the handler as soon as it comes")
    func drainThenHandler() {
        var handoff = Handoff()

        let atDrain = handoff.eventsFinished()
        let atHandOver = handoff.handlerGiven("wake 1")

        #expect(atDrain.isEmpty)
        #expect(atHandOver == ["wake 1"])
    }

    @Test("when the drain has been used, should keep the next handler for the next drain")
    func drainUsedOnce() {
        var handoff = Handoff()
        _ = handoff.eventsFinished()
        _ = handoff.handlerGiven("wake 1")

        let atHandOver = handoff.handlerGiven("wake 2")
        let atDrain = handoff.eventsFinished()

        #expect(atHandOver.isEmpty)
        #expect(atDrain == ["wake 2"])
    }

    @Test("when a second handler comes before the drain, should call the first at once and keep the second")
    func secondHandler() {
        var handoff = Handoff()
        _ = handoff.handlerGiven("wake 1")

        let atHandOver = handoff.handlerGiven("wake 2")
        let atDrain = handoff.eventsFinished()

        #expect(atHandOver == ["wake 1"])
        #expect(atDrain == ["wake 2"])
    }

    @Test("when the events are drained twice with no handler, should call the next handler once")
    func drainTwice() {
        var handoff = Handoff()
        _ = handoff.eventsFinished()
        _ = handoff.eventsFinished()

        let first = handoff.handlerGiven("wake 1")
        let atDrain = handoff.eventsFinished()

        #expect(first == ["wake 1"])
        #expect(atDrain.isEmpty)
    }

    @Test("when a handler has been called, should not call it again at the next drain")
    func calledOnce() {
        var handoff = Handoff()
        _ = handoff.handlerGiven("wake 1")
        _ = handoff.eventsFinished()

        let atDrain = handoff.eventsFinished()

        #expect(atDrain.isEmpty)
    }
}
