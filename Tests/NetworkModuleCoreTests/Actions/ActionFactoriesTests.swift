import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Action factories")
struct ActionFactoriesTests {
    @Test("when actions are written as static members in an array literal, should make the built-in actions in order")
    func implicitMembers() {
        let actions: [any NetworkModuleAction] = [
            .headers(["User-Agent": "Notes/2.4.1"]),
            .requestID(),
            .authentication(FakeTokenProvider()),
            .basicAuthentication(username: "ada", password: "secret"),
            .retry(.default),
            .failing(statusCodes: [299]),
            .validate { _ in },
            .logging(),
            .metrics { _ in },
        ]

        #expect(
            actions.map { String(describing: type(of: $0.unwrapped)) } == [
                "HeadersAction", "HeadersAction", "AuthenticationAction", "AuthenticationAction", "RetryAction",
                "ResponseValidationAction", "ResponseValidationAction", "LoggingAction", "MetricsAction",
            ])
    }

    @Test("when a module is made with built-in actions, should run each action itself, not its wrapper")
    func moduleUnwraps() {
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
            session: FakeNetworkSession(), actions: [.retry(), .requestID(), FailsEverything()],
            completionExecutor: .immediate)

        #expect(
            module.actions.map { String(describing: type(of: $0)) } == [
                "RetryAction", "HeadersAction", "FailsEverything",
            ])
    }

    @Test("when a built-in action's hooks are called directly, should do what the action does")
    func hooksForward() throws {
        let context = ActionContext(
            networkRequest: nil, attempt: 1, baseURL: URL(string: "https://api.example.com")!,
            sentRequest: URLRequest(url: URL(string: "https://api.example.com/a")!))
        let response = try NetworkResponse.make(statusCode: 299)
        let prepared = LockedState<URLRequest?>(nil)
        let decided = LockedState<RetryDecision?>(nil)
        let metrics = LockedState<[RequestMetrics]>([])
        let logged = LockedState<[String]>([])

        BuiltInAction.header("X-A") { _ in "1" }.prepare(
            URLRequest(url: URL(string: "https://api.example.com/a")!), context: context
        ) {
            result in prepared.withLock { $0 = try? result.get() }
        }
        BuiltInAction.retry(RetryPolicy(jitter: 0)).retryDecision(for: .timedOut, context: context) { decision in
            decided.withLock { $0 = decision }
        }
        BuiltInAction.metrics { report in metrics.withLock { $0.append(report) } }.didFinish(
            .success(response), context: context)
        let logging = BuiltInAction.logging(sink: { entry in logged.withLock { $0.append(entry) } })
        logging.didReceive(.success(response), context: context)
        logging.didFinish(.success(response), context: context)

        #expect(prepared.value?.value(forHTTPHeaderField: "X-A") == "1")
        #expect(decided.value == .retryAfter(0.5))
        #expect(metrics.value.count == 1)
        #expect(logged.value.count == 1)
        #expect(throws: NetworkError.self) {
            try BuiltInAction.failing(statusCodes: [299]).validate(response, context: context)
        }
    }
}

/// An action of the user's own, which the module keeps as it is.
private struct FailsEverything: NetworkModuleAction {}
