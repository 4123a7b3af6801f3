import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Retry through actions")
struct RetryTests {
    @Test("when an action says retry, should prepare and send again with the next attempt number")
    func retryRunsPreparationAgain() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let probe = ProbeAction(retry: [.retry])
        let results = ResultCollector<NetworkResponse>()
        let executor = RecordingExecutor()

        makeModule(session: session, actions: [probe], executor: executor)
            .perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        #expect(session.recordedRequests.count == 2)
        let log = probe.log.value
        #expect(log.prepared == [1, 2])
        #expect(log.received.count == 2)
        #expect(log.finished.count == 1)
        #expect(executor.deliveryCount == 1)
    }

    @Test("when an action asks for a delay, should send again only when the delay has passed")
    func retryAfterDelay() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [ProbeAction(retry: [.retryAfter(2)])], scheduler: scheduler)
            .perform(request: TestRequest(), completion: results.completion)

        #expect(session.recordedRequests.count == 1)
        #expect(scheduler.requestedDelays == [2])
        scheduler.advance(by: 1.9)
        #expect(session.recordedRequests.count == 1)
        #expect(results.count == 0)
        scheduler.advance(by: 0.1)
        #expect(session.recordedRequests.count == 2)
        #expect(results.singleValue?.statusCode == 200)
    }

    @Test(
        "when an action asks for a negative, NaN or endless delay, should wait between 0 and 10⁹ seconds",
        arguments: [(-5.0, 0.0), (.nan, 0), (.infinity, 1e9), (2e9, 1e9)])
    func retryDelayBounds(asked: TimeInterval, scheduled: TimeInterval) {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()

        makeModule(session: session, actions: [ProbeAction(retry: [.retryAfter(asked)])], scheduler: scheduler)
            .perform(request: TestRequest()) { _ in }

        #expect(scheduler.requestedDelays == [scheduled])
    }

    @Test("when cancelled while waiting to retry, should deliver .cancelled at once and never send again")
    func cancelDuringRetryWait() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let results = ResultCollector<NetworkResponse>()
        let probe = ProbeAction(retry: [.retryAfter(5)])

        let handle = makeModule(session: session, actions: [probe], scheduler: scheduler)
            .perform(request: TestRequest(), completion: results.completion)
        handle.cancel()

        #expect(results.singleError == .cancelled)
        #expect(scheduler.pendingCount == 0, "the retry timer is cancelled")
        scheduler.advance(by: 10)
        #expect(session.recordedRequests.count == 1)
        #expect(probe.log.value.finished == [.failure(.cancelled)])
    }

    @Test("when several actions decide, should ask in order until one retries")
    func decisionsAskedInOrder() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(500), .status(200))
        let order = LockedState<[String]>([])
        let first = ProbeAction(name: "A", order: order, retry: [.doNotRetry])
        let second = ProbeAction(name: "B", order: order, retry: [.retry])
        let third = ProbeAction(name: "C", order: order)

        makeModule(session: session, actions: [first, second, third]).perform(request: TestRequest()) { _ in }

        let asked = order.value.filter { $0.hasPrefix("retry?") }
        #expect(asked == ["retry? A", "retry? B"], "C is not asked once B retries")
        #expect(session.recordedRequests.count == 2)
    }

    @Test("when no action retries, should deliver the last failure")
    func exhaustedRetriesDeliverFailure() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [ProbeAction(retry: [.retry, .retry])])
            .perform(request: TestRequest(), completion: results.completion)

        #expect(session.recordedRequests.count == 3)
        #expect(results.singleError?.statusCode == 503)
    }

    @Test("when a request is cancelled, should not ask actions about a retry")
    func cancellationIsNeverRetried() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.cancelled))
        let probe = ProbeAction(retry: [.retry])
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [probe]).perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == .cancelled)
        #expect(probe.log.value.retryAsked.isEmpty)
    }
}
