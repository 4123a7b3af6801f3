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

    // MARK: Every timeout value (issue 13, defect A)

    @Test(
        "probe (child process only): schedules the timeouts that trapped",
        .enabled(if: ChildProcess.isProbe("deadline-extremes")))
    func probeExtremeTimeouts() {
        for seconds in [1.8e10, 1e19, 1e300, .greatestFiniteMagnitude, .infinity, -.infinity, .nan, 0, -1, 1e-6] {
            ResponseDeadlines.shared.schedule(after: seconds) {}.cancel()
        }
    }

    @Test("when a timeout is huge, infinite, NaN, zero or negative, should schedule it without trapping")
    func extremeTimeoutsDoNotTrap() async throws {
        #if os(Linux)
            let outcome = try await ChildProcess.run(
                probe: "deadline-extremes", filter: "probeExtremeTimeouts", timeout: 120)

            #expect(outcome.succeeded, "the child process failed or trapped:\n\(outcome.output)")
        #endif
    }

    // MARK: Idle timeouts (issue 13, defect B)

    @Test("when the owner reports activity more often than the timeout, should not expire until the activity stops")
    func activityPostponesExpiry() async {
        let expired = DispatchSemaphore(value: 0)
        let expiredAt = LockedState<UInt64?>(nil)
        let activity = LockedState<UInt64?>(nil)
        _ = ResponseDeadlines.shared.schedule(
            after: 0.5, lastActivity: { activity.withLock { $0 } },
            onExpiry: {
                expiredAt.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
                expired.signal()
            })

        let lastActivity = await waitOffThePool { () -> UInt64 in
            for _ in 0..<30 {
                activity.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
                usleep(50_000)
            }
            let last = DispatchTime.now().uptimeNanoseconds
            activity.withLock { $0 = last }
            return last
        }

        #expect(await expired.signalled(within: 10))
        let firedAt = expiredAt.withLock { $0 } ?? 0
        #expect(
            firedAt >= lastActivity, "expired while activity was still being reported, 1.5 s in, for a 0.5 s timeout")
    }

    @Test(
        "an entry should fall idle a timeout after its last activity, or at once without any",
        arguments: [
            (UInt64?.none, UInt64(10), UInt64(5), UInt64?.none),
            (100, 10, 105, 110), (100, 10, 110, nil), (100, 10, 200, nil),
            (UInt64.max - 1, 10, 0, UInt64.max),
        ] as [(UInt64?, UInt64, UInt64, UInt64?)])
    func idleUntil(lastActivity: UInt64?, timeout: UInt64, now: UInt64, expected: UInt64?) {
        #expect(ResponseDeadlines.idleUntil(lastActivity: lastActivity, timeout: timeout, now: now) == expected)
    }

    @Test("when no activity is noted, should expire at the timeout after scheduling")
    func noActivityExpires() async {
        let expired = DispatchSemaphore(value: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        let firedAt = LockedState<UInt64>(0)

        _ = ResponseDeadlines.shared.schedule(after: 0.2) {
            firedAt.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
            expired.signal()
        }

        #expect(await expired.signalled(within: 10))
        #expect(firedAt.withLock { $0 } >= start + 200_000_000)
    }
}
