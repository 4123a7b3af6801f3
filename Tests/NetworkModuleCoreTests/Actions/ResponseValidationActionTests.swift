import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Response validation action")
struct ResponseValidationActionTests {
    struct ErrorEnvelope: Codable, Error, Equatable {
        let error: String
    }

    @Test(
        "when a status is listed as failing, should deliver it as the matching error with its body, seen by every action"
    )
    func failingStatusCodes() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("partial", status: 299))
        let probe = ProbeAction()
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [.failing(statusCodes: [299]), probe])
            .perform(request: TestRequest(), completion: results.completion)

        guard case .unacceptableStatusCode(let response)? = results.singleError else {
            Issue.record("expected .unacceptableStatusCode, got \(String(describing: results.single))")
            return
        }
        #expect(response.statusCode == 299)
        #expect(response.body == Data("partial".utf8))
        #expect(probe.log.value.received.first?.error?.statusCode == 299)
        #expect(probe.log.value.retryAsked.count == 1)
    }

    @Test("when a 200 carries an error envelope, should fail with .actionFailed keeping the thrown error")
    func errorEnvelope() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"error":"quota exceeded"}"#))
        let results = ResultCollector<NetworkResponse>()
        let validation = ResponseValidationAction { response in
            if let envelope = try? response.decode(ErrorEnvelope.self) { throw envelope }
        }

        makeModule(session: session, actions: [validation]).perform(
            request: TestRequest(), completion: results.completion)

        guard case .actionFailed(let action, let error)? = results.singleError else {
            Issue.record("expected .actionFailed, got \(String(describing: results.single))")
            return
        }
        #expect(action == "ResponseValidationAction")
        #expect(error as? ErrorEnvelope == ErrorEnvelope(error: "quota exceeded"))
    }

    @Test("when the status is already a failure, or the response passes, should not change the result")
    func onlyAcceptedResponsesAreValidated() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(200))
        session.stub(.path("/v2/users/2"), with: .status(404))
        let seen = LockedState<[Int]>([])
        let results = ResultCollector<NetworkResponse>()
        let module = makeModule(
            session: session, actions: [.validate { response in seen.withLock { $0.append(response.statusCode) } }])

        module.perform(request: TestRequest(path: "/users/1"), completion: results.completion)
        module.perform(request: TestRequest(path: "/users/2"), completion: results.completion)

        #expect(seen.value == [200])
        #expect(results.results.map { $0.error?.statusCode } == [nil, 404])
    }

    @Test("when a validated failure is retryable by the policy, should be retried")
    func validatedFailureIsRetried() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(299), .status(200))
        let results = ResultCollector<NetworkResponse>()
        let retry = BuiltInAction.retry(RetryPolicy(jitter: 0, isRetryable: { $0.statusCode == 299 }))

        let scheduler = ManualDelayScheduler()
        makeModule(session: session, actions: [.failing(statusCodes: [299]), retry], scheduler: scheduler)
            .perform(request: TestRequest(), completion: results.completion)
        scheduler.runAll()

        #expect(results.singleValue?.statusCode == 200)
        #expect(session.recordedRequests.count == 2)
    }
}
