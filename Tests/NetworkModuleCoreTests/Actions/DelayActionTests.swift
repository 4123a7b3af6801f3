import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("DelayAction")
struct DelayActionTests {
    @Test("when a request is delayed, should send it only once the delay has passed")
    func sendsAfterDelay() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let scheduler = ManualDelayScheduler()
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [.delay(1.5, scheduler: scheduler)], scheduler: scheduler)
            .perform(request: TestRequest(), completion: results.completion)

        #expect(session.recordedRequests.isEmpty)
        scheduler.advance(by: 1.4)
        #expect(session.recordedRequests.isEmpty)
        scheduler.advance(by: 0.1)
        #expect(session.recordedRequests.count == 1)
        #expect(results.singleValue?.statusCode == 200)
    }

    @Test("when cancelled during the delay, should deliver .cancelled once and never send")
    func cancelDuringDelay() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let scheduler = ManualDelayScheduler()
        let executor = RecordingExecutor()
        let results = ResultCollector<NetworkResponse>()
        let handle = makeModule(
            session: session, actions: [DelayAction(5, scheduler: scheduler)], executor: executor, scheduler: scheduler
        )
        .perform(request: TestRequest(), completion: results.completion)

        handle.cancel()
        scheduler.advance(by: 10)

        #expect(results.singleError == .cancelled)
        #expect(executor.deliveryCount == 1)
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when given a negative, NaN or endless delay, should clamp it between 0 and 10⁹ seconds")
    func clampsDelays() {
        let scheduler = ManualDelayScheduler()
        let request = URLRequest(url: URL(string: "https://api.example.com/")!)
        let context = ActionContext(networkRequest: nil)
        for delay in [-1, .nan, .infinity] {
            DelayAction(delay, scheduler: scheduler).prepare(request, context: context) { _ in }
        }
        #expect(scheduler.requestedDelays == [0, 0, 1e9])
    }
}
