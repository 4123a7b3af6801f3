import Foundation
import Testing

@testable import NetworkModuleCore

@Suite("Response deadlines")
struct ResponseDeadlinesTests {
    @Test("when deadlines are scheduled out of order, should fire them in deadline order")
    func firesInDeadlineOrder() async {
        let fired = LockedState<[String]>([])
        let allFired = DispatchSemaphore(value: 0)
        let record: @Sendable (String) -> Void = { name in
            let count = fired.withLock { fired -> Int in
                fired.append(name)
                return fired.count
            }
            if count == 3 { allFired.signal() }
        }

        _ = ResponseDeadlines.shared.schedule(after: 0.06) { record("third") }
        _ = ResponseDeadlines.shared.schedule(after: 0.02) { record("first") }
        _ = ResponseDeadlines.shared.schedule(after: 0.04) { record("second") }

        #expect(await allFired.signalled(within: 10))
        #expect(fired.withLock { $0 } == ["first", "second", "third"])
    }

    @Test("when a deadline is cancelled, should never fire it, while later ones still fire")
    func cancelledDeadlineNeverFires() async {
        let cancelledFired = LockedState(false)
        let laterFired = DispatchSemaphore(value: 0)

        let cancelled = ResponseDeadlines.shared.schedule(after: 0.01) { cancelledFired.withLock { $0 = true } }
        _ = ResponseDeadlines.shared.schedule(after: 0.05) { laterFired.signal() }
        cancelled.cancel()
        cancelled.cancel()

        #expect(await laterFired.signalled(within: 10))
        #expect(cancelledFired.withLock { $0 } == false, "an earlier deadline would have fired before the later one")
    }

    @Test("when thousands of deadlines are cancelled, should keep firing the live ones")
    func manyCancellations() async {
        let fired = DispatchSemaphore(value: 0)
        for _ in 0..<5_000 {
            ResponseDeadlines.shared.schedule(after: 60) {}.cancel()
        }

        _ = ResponseDeadlines.shared.schedule(after: 0.01) { fired.signal() }

        #expect(await fired.signalled(within: 10))
    }
}
