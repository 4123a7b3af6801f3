import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

@Suite("ManualDelayScheduler")
struct ManualDelaySchedulerTests {
    @Test("when time advances, should run what falls due in due order, including work scheduled meanwhile")
    func advance() {
        let scheduler = ManualDelayScheduler()
        let ran = Messages()
        _ = scheduler.schedule(after: 3) { ran.hook("3 s") }
        _ = scheduler.schedule(after: 1) {
            ran.hook("1 s")
            _ = scheduler.schedule(after: 1) { ran.hook("1 s + 1 s") }
        }

        scheduler.advance(by: 2.5)

        #expect(ran.all == ["1 s", "1 s + 1 s"])
        #expect(scheduler.now == 2.5)
        #expect(scheduler.pendingCount == 1)
        #expect(scheduler.requestedDelays == [3, 1, 1])
    }

    @Test("when scheduled work is cancelled, should never run it")
    func cancel() {
        let scheduler = ManualDelayScheduler()
        let ran = Messages()
        let timer = scheduler.schedule(after: 1) { ran.hook("ran") }

        timer.cancel()
        scheduler.runAll()

        #expect(ran.all.isEmpty)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("when running all, should run everything however far ahead and move time to the last")
    func runAll() {
        let scheduler = ManualDelayScheduler()
        let ran = Messages()
        _ = scheduler.schedule(after: 60) { ran.hook("minute") }
        _ = scheduler.schedule(after: 5) { ran.hook("five") }

        scheduler.runAll()

        #expect(ran.all == ["five", "minute"])
        #expect(scheduler.now == 60)
    }
}
