import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Retry action")
struct RetryActionTests {
    /// 06 Nov 1994 08:49:37 GMT, the date of RFC 9110's examples.
    static let rfcDate = Date(timeIntervalSince1970: 784_111_777)

    /// Sends `request` through a module with `action` against `responses`; returns the module's
    /// scheduler after running every wait, the result and the session.
    func run(
        _ request: some NetworkRequest = TestRequest(), action: BuiltInAction, responses: [StubbedResponse]
    ) -> (delays: [TimeInterval], result: Result<NetworkResponse, NetworkError>?, sent: Int) {
        let session = FakeNetworkSession()
        session.stub(.any, sequence: responses)
        let scheduler = ManualDelayScheduler()
        let results = ResultCollector<NetworkResponse>()
        makeModule(session: session, actions: [action], scheduler: scheduler)
            .perform(request: request, completion: results.completion)
        scheduler.runAll()
        return (scheduler.requestedDelays, results.single, session.recordedRequests.count)
    }

    // MARK: - Backoff

    @Test("when a GET keeps failing with 503, should wait 0.5 s then 1 s and deliver the third failure")
    func defaultBackoff() {
        let outcome = run(action: BuiltInAction.retry(random: { 0.5 }), responses: [.status(503)])

        #expect(outcome.delays == [0.5, 1.0])
        #expect(outcome.sent == 3)
        #expect(outcome.result?.error?.statusCode == 503)
    }

    @Test(
        "when the random source is at its ends, should spread each wait by the jitter",
        arguments: [(0.0, [0.4, 0.8]), (1.0, [0.6, 1.2])])
    func jitter(random: Double, expected: [TimeInterval]) {
        let outcome = run(action: BuiltInAction.retry(random: { random }), responses: [.status(503)])

        #expect(zip(outcome.delays, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(outcome.delays)")
        #expect(outcome.delays.count == 2)
    }

    @Test("when the backoff grows past the maximum, should wait the maximum")
    func maxDelay() {
        let policy = RetryPolicy(maxAttempts: 5, initialDelay: 10, multiplier: 3, maxDelay: 60, jitter: 0)

        let outcome = run(action: BuiltInAction.retry(policy), responses: [.error(.timedOut)])

        #expect(outcome.delays == [10, 30, 60, 60])
        #expect(outcome.sent == 5)
    }

    @Test("when the failure is retried once, should deliver the success")
    func successAfterRetry() {
        let outcome = run(action: BuiltInAction.retry(random: { 0.5 }), responses: [.status(502), .status(200)])

        #expect(outcome.delays == [0.5])
        #expect((try? outcome.result?.get())?.statusCode == 200)
    }

    // MARK: - Retry-After

    @Test("when the response says Retry-After in seconds, should wait exactly that long")
    func retryAfterSeconds() {
        let outcome = run(
            action: BuiltInAction.retry(random: { 0.5 }),
            responses: [.status(429, headers: ["Retry-After": "7"]), .status(200)])

        #expect(outcome.delays == [7])
        #expect((try? outcome.result?.get())?.statusCode == 200)
    }

    @Test(
        "when the response says Retry-After as an HTTP date, should wait until that date",
        arguments: ["Sun, 06 Nov 1994 08:49:49 GMT", "Sunday, 06-Nov-94 08:49:49 GMT", "Sun Nov  6 08:49:49 1994"])
    func retryAfterDate(header: String) {
        let action = BuiltInAction.retry(random: { 0.5 }, now: { Self.rfcDate })

        let outcome = run(action: action, responses: [.status(503, headers: ["Retry-After": header]), .status(200)])

        #expect(outcome.delays == [12])
    }

    @Test("when the Retry-After date has passed, should retry at once")
    func retryAfterPastDate() {
        let action = BuiltInAction.retry(random: { 0.5 }, now: { Self.rfcDate.addingTimeInterval(3600) })

        let outcome = run(
            action: action,
            responses: [.status(503, headers: ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"]), .status(200)])

        #expect(outcome.delays == [0])
    }

    @Test("when Retry-After cannot be read, should fall back to the backoff")
    func unreadableRetryAfter() {
        let outcome = run(
            action: BuiltInAction.retry(random: { 0.5 }),
            responses: [.status(503, headers: ["Retry-After": "soon"]), .status(200)])

        #expect(outcome.delays == [0.5])
    }

    @Test("when Retry-After asks for longer than the policy allows, should deliver the failure with its headers")
    func retryAfterTooLong() {
        let outcome = run(action: BuiltInAction.retry(), responses: [.status(503, headers: ["Retry-After": "3600"])])

        #expect(outcome.delays.isEmpty)
        #expect(outcome.sent == 1)
        #expect(outcome.result?.error?.httpErrorResponse?.headers["Retry-After"] == "3600")
    }

    @Test("when Retry-After is not honoured, should use the backoff")
    func retryAfterIgnored() {
        let policy = RetryPolicy(honoursRetryAfter: false)

        let outcome = run(
            action: BuiltInAction.retry(policy, random: { 0.5 }),
            responses: [.status(503, headers: ["Retry-After": "7"]), .status(200)])

        #expect(outcome.delays == [0.5])
    }

    // MARK: - What is retried

    @Test(
        "when a GET fails transiently, should retry; otherwise should not",
        arguments: [
            (StubbedResponse.status(408), true), (.status(429), true), (.status(500), true), (.status(502), true),
            (.status(503), true), (.status(504), true), (.status(400), false), (.status(401), false),
            (.status(404), false), (.status(501), false), (.error(.timedOut), true),
            (.error(.networkConnectionLost), true),
            (.error(.notConnectedToInternet), true), (.error(.cannotConnectToHost), true),
            (.error(.cannotFindHost), false),
            (.error(.secureConnectionFailed), false),
        ])
    func whatIsRetried(response: StubbedResponse, retried: Bool) {
        let outcome = run(action: BuiltInAction.retry(random: { 0.5 }), responses: [response, .status(200)])

        #expect(outcome.sent == (retried ? 2 : 1))
    }

    @Test("when a POST fails with 503, should not retry unless the policy allows non-idempotent methods")
    func nonIdempotentMethods() {
        let post = TestRequest(method: .post)

        let refused = run(post, action: BuiltInAction.retry(random: { 0.5 }), responses: [.status(503), .status(200)])
        let allowed = run(
            post, action: BuiltInAction.retry(RetryPolicy(retriesNonIdempotentMethods: true), random: { 0.5 }),
            responses: [.status(503), .status(200)])

        #expect(refused.sent == 1)
        #expect(allowed.sent == 2)
    }

    @Test("when the policy says which errors are retryable, should follow it")
    func customRetryableErrors() {
        let policy = RetryPolicy(jitter: 0, isRetryable: { $0.statusCode == 409 })

        let conflict = run(action: BuiltInAction.retry(policy), responses: [.status(409), .status(200)])
        let unavailable = run(action: BuiltInAction.retry(policy), responses: [.status(503), .status(200)])

        #expect(conflict.sent == 2)
        #expect(unavailable.sent == 1)
    }

    @Test("when a request sets its own policy, should follow it instead of the module's")
    func perRequestPolicy() {
        struct NeverRetried: NetworkRequest {
            var path: String { "/payments/1" }
            var method: HTTPMethod { .put }
            var retryPolicy: RetryPolicy? { .never }
        }
        struct Important: NetworkRequest {
            var path: String { "/config" }
            var retryPolicy: RetryPolicy? { RetryPolicy(maxAttempts: 5, initialDelay: 1, jitter: 0) }
        }

        let never = run(NeverRetried(), action: BuiltInAction.retry(), responses: [.status(503)])
        let important = run(Important(), action: BuiltInAction.retry(), responses: [.status(503)])

        #expect(never.sent == 1)
        #expect(important.delays == [1, 2, 4, 8])
        #expect(important.sent == 5)
    }

    @Test("when cancelled while waiting for the backoff, should deliver .cancelled and not send again")
    func cancelDuringBackoff() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503))
        let scheduler = ManualDelayScheduler()
        let results = ResultCollector<NetworkResponse>()
        let handle = makeModule(session: session, actions: [.retry()], scheduler: scheduler)
            .perform(request: TestRequest(), completion: results.completion)

        handle.cancel()
        scheduler.runAll()

        #expect(results.singleError == .cancelled)
        #expect(session.recordedRequests.count == 1)
    }
}
