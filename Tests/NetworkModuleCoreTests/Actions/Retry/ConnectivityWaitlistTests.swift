import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

/// Every (state, event) pair of the waitlist behind `NetworkConnectivity`, without threads or
/// sessions: each event says whom to resume and with what, and a waiter leaves exactly once.
@Suite("ConnectivityWaitlist")
struct ConnectivityWaitlistTests {
    /// Records how each waiter was resumed.
    final class Resumes: Sendable {
        let values = LockedState<[Bool]>([])
        var resume: @Sendable (Bool) -> Void { { value in self.values.withLock { $0.append(value) } } }
    }

    /// A timer handle that records its cancellation.
    final class Timer: NetworkCancellable {
        let cancelled = LockedState(false)
        func cancel() { cancelled.withLock { $0 = true } }
    }

    let first = UUID()
    let second = UUID()

    @Test("when the network is reachable, a failed request should not wait")
    func reachableDoesNotWait() {
        var list = ConnectivityWaitlist(isReachable: true)

        let waits = list.wait(first, resume: { _ in })

        #expect(!waits)
        #expect(list.count == 0)
    }

    @Test("when the network is unreachable, a failed request should wait, once per request")
    func unreachableWaits() {
        var list = ConnectivityWaitlist(isReachable: false)

        let waits = list.wait(first, resume: { _ in })
        let again = list.wait(first, resume: { _ in })

        #expect(waits && !again)
        #expect(list.count == 1)
    }

    @Test("when the network comes back, every waiter should be resumed with true and its timer cancelled")
    func reachableReleasesAll() {
        var list = ConnectivityWaitlist(isReachable: false)
        let resumes = Resumes()
        let timer = Timer()
        _ = list.wait(first, resume: resumes.resume)
        _ = list.wait(second, resume: resumes.resume)
        _ = list.timerScheduled(timer, for: first)

        let release = list.update(isReachable: true)
        release.perform()

        #expect(resumes.values.value == [true, true])
        #expect(timer.cancelled.value)
        #expect(list.count == 0 && list.isReachable)
    }

    @Test("when the network stays or becomes unreachable, nobody should be resumed")
    func unreachableReleasesNone() {
        var list = ConnectivityWaitlist(isReachable: true)
        _ = list.update(isReachable: false)
        _ = list.wait(first, resume: { _ in })

        let release = list.update(isReachable: false)

        #expect(release.waiters.isEmpty)
        #expect(list.count == 1 && !list.isReachable)
    }

    @Test("when a waiter's time limit passes, should resume it alone with false; twice, nothing")
    func timeLimit() {
        var list = ConnectivityWaitlist(isReachable: false)
        let resumes = Resumes()
        _ = list.wait(first, resume: resumes.resume)
        _ = list.wait(second, resume: { _ in Issue.record("the other waiter was resumed") })

        list.timeLimitPassed(for: first).perform()
        list.timeLimitPassed(for: first).perform()

        #expect(resumes.values.value == [false])
        #expect(list.count == 1)
    }

    @Test("when the app stops waiting, every waiter should be resumed with false")
    func stopAll() {
        var list = ConnectivityWaitlist(isReachable: false)
        let resumes = Resumes()
        _ = list.wait(first, resume: resumes.resume)
        _ = list.wait(second, resume: resumes.resume)

        list.stopAll().perform()

        #expect(resumes.values.value == [false, false])
        #expect(list.count == 0 && !list.isReachable)
    }

    @Test("when a waiting request ends (cancelled), should leave unresumed and hand back its timer")
    func requestEnded() {
        var list = ConnectivityWaitlist(isReachable: false)
        let timer = Timer()
        _ = list.wait(first, resume: { _ in Issue.record("an ended request was resumed") })
        _ = list.timerScheduled(timer, for: first)

        let toCancel = list.requestEnded(first)
        list.update(isReachable: true).perform()

        #expect(toCancel as? Timer === timer)
        #expect(list.requestEnded(first) == nil)
        #expect(list.count == 0)
    }

    @Test("when a timer is scheduled for a request that no longer waits, should hand it back to cancel")
    func timerAfterRelease() {
        var list = ConnectivityWaitlist(isReachable: false)
        _ = list.wait(first, resume: { _ in })
        _ = list.update(isReachable: true)

        let toCancel = list.timerScheduled(Timer(), for: first)

        #expect(toCancel != nil)
    }
}
