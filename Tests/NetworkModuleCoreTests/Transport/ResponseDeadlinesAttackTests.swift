import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

/// Attacks on ``ResponseDeadlines`` with its default runner (``CompletionHandlerQueue``), on the
/// real clock: many tiny deadlines racing cancels from other threads, and expiries that schedule
/// and cancel other deadlines or block.
@Suite("Response deadlines: attacks")
struct ResponseDeadlinesAttackTests {
    @Test(
        "when 5000 deadlines of 1–20 ms race cancels from other threads, each should expire at most once, and every one not cancelled exactly once"
    )
    func tinyDeadlinesRaceCancels() async {
        let deadlines = ResponseDeadlines()
        let count = 5000
        let fired = LockedState(Array(repeating: 0, count: count))
        let cancelledFirst = LockedState(Array(repeating: false, count: count))
        let all = LockedState<[Deadline?]>(Array(repeating: nil, count: count))

        DispatchQueue.concurrentPerform(iterations: count) { index in
            let deadline = deadlines.schedule(after: Double(1 + index % 20) / 1000) {
                fired.withLock { $0[index] += 1 }
            }
            all.withLock { $0[index] = deadline }
            if index % 2 == 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + Double(index % 21) / 1000) {
                    // Whether the cancel came first is known only if it came before any expiry.
                    let already = fired.withLock { $0[index] } > 0
                    all.withLock { $0[index] }?.cancel()
                    if !already { cancelledFirst.withLock { $0[index] = true } }
                }
            }
        }

        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let end = Date().addingTimeInterval(30)
            while Date() < end {
                let pending = fired.withLock { fired in (0..<count).filter { $0 % 2 == 1 && fired[$0] == 0 }.count }
                if pending == 0 { break }
                usleep(10_000)
            }
            usleep(500_000)
            done.signal()
        }
        _ = await done.signalled(within: 60)

        let counts = fired.withLock { $0 }
        let twice = counts.enumerated().filter { $0.element > 1 }
        let oddNeverFired = (0..<count).filter { $0 % 2 == 1 && counts[$0] != 1 }
        #expect(twice.isEmpty, "expired more than once: \(twice.prefix(10))")
        #expect(oddNeverFired.isEmpty, "never cancelled, but expired other than once: \(oddNeverFired.prefix(10))")
    }

    @Test(
        "when expiries schedule and cancel other deadlines from inside, and some block, every live deadline should still expire once"
    )
    func expiriesReenter() async {
        let deadlines = ResponseDeadlines()
        let depth = 200
        let fired = LockedState(Array(repeating: 0, count: depth))
        let cancelledFired = LockedState(0)
        let finished = DispatchSemaphore(value: 0)

        @Sendable func step(_ index: Int) {
            guard index < depth else {
                finished.signal()
                return
            }
            let victim = deadlines.schedule(after: 0.002) { cancelledFired.withLock { $0 += 1 } }
            _ = deadlines.schedule(after: 0.001) {
                fired.withLock { $0[index] += 1 }
                victim.cancel()
                if index % 10 == 0 { usleep(50_000) }  // a slow expiry
                step(index + 1)
            }
        }
        step(0)

        #expect(await finished.signalled(within: 60), "the chain of expiries stopped")
        #expect(fired.withLock { $0 }.allSatisfy { $0 == 1 })
    }
}
