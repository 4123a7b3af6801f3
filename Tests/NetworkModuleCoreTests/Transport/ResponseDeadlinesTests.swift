import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

/// Deadlines on `clock`'s time: their timer is a time limit of the manual clock, so a test moves
/// time with `advance(by:)` and the deadlines that fall due expire on the test's thread, at once
/// and in order.
private func manualDeadlines(on clock: ManualDelayScheduler) -> ResponseDeadlines {
    let armed = LockedState<(any NetworkCancellable)?>(nil)
    let timer: ResponseDeadlines.Timer = { fire in
        { deadline in
            let next = deadline.map { deadline in
                clock.scheduleTimeLimit(after: (Double(deadline) - Double(nanoseconds(clock.now))) / 1e9, fire)
            }
            armed.withLock { armed in
                armed?.cancel()
                armed = next
            }
        }
    }
    return ResponseDeadlines(now: { nanoseconds(clock.now) }, timer: timer, runExpiry: { $0() })
}

/// `seconds` of the manual clock in the deadlines' nanoseconds.
private func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
    UInt64((seconds * 1e9).rounded())
}

@Suite("Response deadlines")
struct ResponseDeadlinesTests {
    @Test("when deadlines are scheduled out of order, should fire them in deadline order")
    func firesInDeadlineOrder() {
        let clock = ManualDelayScheduler()
        let deadlines = manualDeadlines(on: clock)
        let fired = LockedState<[String]>([])
        _ = deadlines.schedule(after: 0.06) { fired.withLock { $0.append("third") } }
        _ = deadlines.schedule(after: 0.02) { fired.withLock { $0.append("first") } }
        _ = deadlines.schedule(after: 0.04) { fired.withLock { $0.append("second") } }

        clock.advance(by: 0.1)

        #expect(fired.withLock { $0 } == ["first", "second", "third"])
    }

    @Test("when a deadline is cancelled, should never fire it, while later ones still fire")
    func cancelledDeadlineNeverFires() {
        let clock = ManualDelayScheduler()
        let deadlines = manualDeadlines(on: clock)
        let fired = LockedState<[String]>([])
        let cancelled = deadlines.schedule(after: 0.01) { fired.withLock { $0.append("cancelled") } }
        _ = deadlines.schedule(after: 0.05) { fired.withLock { $0.append("later") } }

        cancelled.cancel()
        cancelled.cancel()
        clock.advance(by: 0.05)

        #expect(fired.withLock { $0 } == ["later"])
    }

    @Test("when thousands of deadlines are cancelled, should keep firing the live ones")
    func manyCancellations() {
        let clock = ManualDelayScheduler()
        let deadlines = manualDeadlines(on: clock)
        let fired = LockedState(false)
        for _ in 0..<5_000 {
            deadlines.schedule(after: 60) {}.cancel()
        }

        _ = deadlines.schedule(after: 0.01) { fired.withLock { $0 = true } }
        clock.advance(by: 0.01)

        #expect(fired.withLock { $0 })
    }

    @Test("when scheduled on the shared deadlines, should expire from their dispatch timer on the uptime clock")
    func sharedDeadlinesExpire() async {
        let expired = DispatchSemaphore(value: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        let expiredAt = LockedState<UInt64>(0)

        _ = ResponseDeadlines.shared.schedule(after: 0.01) {
            expiredAt.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
            expired.signal()
        }

        #expect(await expired.signalled(within: 10))
        #expect(expiredAt.withLock { $0 } >= start + 10_000_000)
    }

    @Test("when an expiry blocks, should still expire the next deadline: expiries run off the timer's queue")
    func blockingExpiryDoesNotHoldUpTheNext() async {
        let deadlines = ResponseDeadlines()
        let secondExpired = DispatchSemaphore(value: 0)
        let firstReturned = DispatchSemaphore(value: 0)
        let firstSawSecond = LockedState(false)

        _ = deadlines.schedule(after: 0.01) {
            // Run on the timer's own queue, this would wait for an expiry that queue never fires.
            let sawSecond = secondExpired.wait(timeout: .now() + 10) == .success
            firstSawSecond.withLock { $0 = sawSecond }
            firstReturned.signal()
        }
        _ = deadlines.schedule(after: 0.02) { secondExpired.signal() }

        #expect(await firstReturned.signalled(within: 20))
        #expect(firstSawSecond.withLock { $0 })
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
    func activityPostponesExpiry() {
        let clock = ManualDelayScheduler()
        let deadlines = manualDeadlines(on: clock)
        let expiredAt = LockedState<UInt64?>(nil)
        let activity = LockedState<UInt64?>(nil)
        _ = deadlines.schedule(
            after: 0.5, lastActivity: { activity.withLock { $0 } },
            onExpiry: { expiredAt.withLock { $0 = nanoseconds(clock.now) } })

        // Activity every 1/16 s for 1.5 s (powers of two: the clock's sums are exact).
        for _ in 0..<24 {
            activity.withLock { $0 = deadlines.now() }
            clock.advance(by: 0.0625)
        }
        let lastActivity = deadlines.now()
        activity.withLock { $0 = lastActivity }
        clock.advance(by: 0.5 - 0.0625)
        let expiredWhileActive = expiredAt.withLock { $0 }
        clock.advance(by: 0.0625)

        #expect(expiredWhileActive == nil, "expired while activity was being reported, for a 0.5 s timeout")
        #expect(expiredAt.withLock { $0 } == lastActivity + 500_000_000)
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
    func noActivityExpires() {
        let clock = ManualDelayScheduler()
        let deadlines = manualDeadlines(on: clock)
        let expiredAt = LockedState<UInt64?>(nil)
        _ = deadlines.schedule(after: 0.25) { expiredAt.withLock { $0 = nanoseconds(clock.now) } }

        clock.advance(by: 0.25 - 0.0625)
        let expiredEarly = expiredAt.withLock { $0 }
        clock.advance(by: 0.0625)

        #expect(expiredEarly == nil)
        #expect(expiredAt.withLock { $0 } == 250_000_000)
    }
}
