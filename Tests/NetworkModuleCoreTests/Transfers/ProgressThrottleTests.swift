import Foundation
import Testing

@testable import NetworkModuleCore

/// Each (state, event) pair of the progress throttle, without threads or clocks.
@Suite("Progress throttle")
struct ProgressThrottleTests {
    private let interval = ProgressThrottle.minimumInterval

    private func download(_ done: Int64, of total: Int64? = 100) -> TransferProgress {
        TransferProgress(isUpload: false, completedBytes: done, expectedBytes: total)
    }

    private func upload(_ done: Int64, of total: Int64? = 50) -> TransferProgress {
        TransferProgress(isUpload: true, completedBytes: done, expectedBytes: total)
    }

    @Test("when the first report of a direction arrives, should let it through")
    func firstReportPasses() {
        var throttle = ProgressThrottle()
        #expect(throttle.received(download(1), at: 1_000)?.report == download(1))
    }

    @Test("when a report comes sooner than 1/60 s after the last one let through, should hold it back")
    func tooSoonIsHeld() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(1), at: 1_000)
        #expect(throttle.received(download(2), at: 1_000 + interval - 1) == nil)
    }

    @Test("when a report comes 1/60 s or more after the last one let through, should let it through")
    func afterIntervalPasses() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(1), at: 1_000)
        _ = throttle.received(download(2), at: 1_000 + interval / 2)
        #expect(throttle.received(download(3), at: 1_000 + interval)?.report == download(3))
    }

    @Test("when uploads and downloads report at once, should throttle each direction on its own")
    func directionsAreIndependent() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(1), at: 1_000)
        #expect(throttle.received(upload(1), at: 1_001)?.report == upload(1))
        #expect(throttle.received(download(2), at: 1_002) == nil)
    }

    @Test("when the clock goes backwards, should let the report through rather than hold it for ever")
    func clockGoingBackwardsPasses() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(1), at: 5_000_000)
        #expect(throttle.received(download(2), at: 1_000) != nil)
    }

    @Test("when 10,000 reports arrive within one second, should let through at most 61")
    func rateIsBounded() {
        var throttle = ProgressThrottle()
        var passed = 0
        for index in 0..<10_000 {
            let now = UInt64(index) * 100_000  // every 0.1 ms, for 1 s
            if throttle.received(download(Int64(index), of: nil), at: now) != nil { passed += 1 }
        }
        #expect(passed <= 61)
        #expect(passed >= 59)
    }

    @Test("when deliveries run in order, should deliver each")
    func inOrderDeliveries() {
        var throttle = ProgressThrottle()
        let first = throttle.received(download(1), at: 0)
        let second = throttle.received(download(2), at: interval)
        #expect(first.map { throttle.mayDeliver($0) } == true)
        #expect(second.map { throttle.mayDeliver($0) } == true)
    }

    @Test("when an executor runs an older delivery after a newer one, should drop the older")
    func outOfOrderDeliveryDropped() {
        var throttle = ProgressThrottle()
        let first = throttle.received(download(1), at: 0)
        let second = throttle.received(download(2), at: interval)
        #expect(second.map { throttle.mayDeliver($0) } == true)
        #expect(first.map { throttle.mayDeliver($0) } == false)
    }

    @Test("when a delivery runs after the final reports, should drop it")
    func deliveryAfterFinishDropped() {
        var throttle = ProgressThrottle()
        let pending = throttle.received(download(1), at: 0)
        _ = throttle.finish(succeeded: true)
        #expect(pending.map { throttle.mayDeliver($0) } == false)
    }

    @Test("when the end is ready and no delivery is running, should run it at once")
    func endRunsAtOnce() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(1), at: 0).map { throttle.mayDeliver($0) }
        #expect(throttle.delivered() == false)
        _ = throttle.finish(succeeded: true)

        #expect(throttle.endIsReady() == true)
    }

    @Test("when the end is ready while a delivery runs, should wait, and run when that delivery returns")
    func endWaitsForRunningDelivery() {
        var throttle = ProgressThrottle()
        let running = throttle.received(download(1), at: 0).map { throttle.mayDeliver($0) }
        _ = throttle.finish(succeeded: true)

        #expect(running == true)
        #expect(throttle.endIsReady() == false)
        #expect(throttle.delivered() == true)
    }

    @Test("when two deliveries run as the end gets ready, should run the end after the last of them, once")
    func endWaitsForTheLastDelivery() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(1), at: 0).map { throttle.mayDeliver($0) }
        _ = throttle.received(upload(1), at: 0).map { throttle.mayDeliver($0) }
        _ = throttle.finish(succeeded: false)

        #expect(throttle.endIsReady() == false)
        #expect(throttle.delivered() == false)
        #expect(throttle.delivered() == true)
    }

    @Test("when a delivery returns and no end waits, should run nothing")
    func deliveredWithoutEnd() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(1), at: 0).map { throttle.mayDeliver($0) }

        #expect(throttle.delivered() == false)
    }

    @Test("when a delivery is dropped after the final reports, should not hold up the end")
    func droppedDeliveryDoesNotHoldTheEnd() {
        var throttle = ProgressThrottle()
        let late = throttle.received(download(1), at: 0)
        _ = throttle.finish(succeeded: true)

        #expect(late.map { throttle.mayDeliver($0) } == false)
        #expect(throttle.endIsReady() == true)
    }

    @Test("when a report arrives after the final reports, should drop it")
    func reportAfterFinishDropped() {
        var throttle = ProgressThrottle()
        _ = throttle.finish(succeeded: false)
        #expect(throttle.received(download(1), at: 0) == nil)
    }

    @Test("when a request succeeds with its last download report held back, should end on it, complete")
    func successEndsComplete() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(10, of: 100), at: 0).map { throttle.mayDeliver($0) }
        _ = throttle.received(download(100, of: 100), at: 1)
        #expect(throttle.finish(succeeded: true) == [download(100, of: 100)])
    }

    @Test(
        "when a body decoded larger than its Content-Length succeeds, should end with the bytes received as the total")
    func successTotalIsBytesReceived() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(300, of: 120), at: 0)
        #expect(throttle.finish(succeeded: true) == [download(300, of: 300)])
    }

    @Test("when a request succeeds with its complete report already delivered, should not repeat it")
    func successNoRepeat() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(100, of: 100), at: 0).map { throttle.mayDeliver($0) }
        #expect(throttle.finish(succeeded: true) == [])
    }

    @Test("when a request succeeds with its complete report let through but not yet run, should send it again")
    func successPendingIsSentAgain() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(100, of: 100), at: 0)
        #expect(throttle.finish(succeeded: true) == [download(100, of: 100)])
    }

    @Test("when a request with no body and no report succeeds, should report an empty, complete download")
    func successWithoutReports() {
        var throttle = ProgressThrottle()
        #expect(throttle.finish(succeeded: true) == [download(0, of: 0)])
    }

    @Test("when a request that uploaded succeeds, should end the upload before the download")
    func successUploadFirst() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(4, of: 4), at: 0)
        _ = throttle.received(upload(20, of: 50), at: 0)
        #expect(throttle.finish(succeeded: true) == [upload(20, of: 20), download(4, of: 4)])
    }

    @Test("when a request fails with a report held back, should end on that report as it was")
    func failureEndsOnLatest() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(10), at: 0).map { throttle.mayDeliver($0) }
        _ = throttle.received(download(40), at: 1)
        #expect(throttle.finish(succeeded: false) == [download(40)])
    }

    @Test("when a request fails with every report delivered, should add none")
    func failureAddsNothing() {
        var throttle = ProgressThrottle()
        _ = throttle.received(download(10), at: 0).map { throttle.mayDeliver($0) }
        #expect(throttle.finish(succeeded: false) == [])
    }

    @Test("when the request is finished twice, should give the final reports once")
    func finishOnce() {
        var throttle = ProgressThrottle()
        #expect(throttle.finish(succeeded: true).count == 1)
        #expect(throttle.finish(succeeded: true) == [])
        #expect(throttle.isFinished)
    }
}
