import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Action lifecycle")
struct ActionLifecycleTests {
    struct TokenAction: NetworkModuleAction {
        let token: String
        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
            urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
    }

    struct LegacyObserver: NetworkModuleAction {
        let seen = LockedState<[Int]>([])
        func performAfterExecutingNetworkRequest(request: (any NetworkRequest)?, networkResponse: NetworkResponse) {
            seen.withLock { $0.append(networkResponse.statusCode) }
        }
    }

    struct MissingTokenError: Error {}

    @Test("when an action uses the simple inout form, should send the rewritten request")
    func simpleFormRewritesRequest() {
        let session = FakeNetworkSession()
        session.stub(.header("Authorization", "Bearer s3cret"), with: .status(200))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [TokenAction(token: "s3cret")])
            .perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
    }

    @Test("when there are several actions, should prepare, observe and finish in array order")
    func hooksRunInArrayOrder() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let order = LockedState<[String]>([])
        let actions = [ProbeAction(name: "A", order: order), ProbeAction(name: "B", order: order)]

        makeModule(session: session, actions: actions).perform(request: TestRequest()) { _ in
            order.withLock { $0.append("completion") }
        }

        #expect(
            order.value == [
                "prepare A", "prepare B", "receive A", "receive B", "finish A", "finish B", "completion",
            ])
    }

    @Test("when each action sets a header, should pass each action's output to the next")
    func preparationChains() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let actions = [
            ProbeAction(prepare: .setHeader("X-First", "1")), ProbeAction(prepare: .setHeader("X-Second", "2")),
        ]

        makeModule(session: session, actions: actions).perform(request: TestRequest()) { _ in }

        let sent = session.recordedRequests.first
        #expect(sent?.value(forHTTPHeaderField: "X-First") == "1")
        #expect(sent?.value(forHTTPHeaderField: "X-Second") == "2")
    }

    @Test("when an action throws a plain error, should fail with .actionFailed naming the action, and send nothing")
    func actionErrorIsWrapped() throws {
        let session = FakeNetworkSession()
        let results = ResultCollector<NetworkResponse>()
        let observer = ProbeAction(name: "observer")

        makeModule(session: session, actions: [ProbeAction(prepare: .fail(MissingTokenError())), observer])
            .perform(request: TestRequest(), completion: results.completion)

        guard case .actionFailed(let action, let error)? = results.singleError else {
            Issue.record("expected .actionFailed, got \(results.results)")
            return
        }
        #expect(action == "ProbeAction")
        #expect(error is MissingTokenError)
        #expect(session.recordedRequests.isEmpty)
        #expect(observer.log.value.prepared.isEmpty, "later actions do not prepare a failed request")
        #expect(observer.log.value.finished.count == 1, "every action still sees the final result")
    }

    @Test("when an action throws a NetworkError, should deliver that error as it is")
    func actionNetworkErrorPassesThrough() {
        let session = FakeNetworkSession()
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [ProbeAction(prepare: .fail(NetworkError.notConnectedToInternet))])
            .perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == .notConnectedToInternet)
    }

    @Test("when preparation finishes later, should send only then")
    func asynchronousPreparation() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let holder = ProbeAction(prepare: .hold)
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [holder]).perform(request: TestRequest(), completion: results.completion)
        #expect(session.recordedRequests.isEmpty)
        #expect(results.count == 0)
        holder.releaseHeld()

        #expect(session.recordedRequests.count == 1)
        #expect(results.singleValue?.statusCode == 200)
    }

    @Test("when an action calls its completion twice, should send the request once")
    func doubleCompletionSendsOnce() {
        struct TwiceAction: NetworkModuleAction {
            func prepare(
                _ urlRequest: URLRequest, context: ActionContext,
                completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
            ) {
                completion(.success(urlRequest))
                completion(.success(urlRequest))
            }
        }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [TwiceAction()]).perform(
            request: TestRequest(), completion: results.completion)

        #expect(session.recordedRequests.count == 1)
        #expect(results.count == 1)
    }

    @Test("when the request fails, should let actions observe the failure")
    func observersSeeFailures() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(500))
        let probe = ProbeAction()

        makeModule(session: session, actions: [probe]).perform(request: TestRequest()) { _ in }

        let log = probe.log.value
        #expect(log.received.count == 1)
        #expect(log.finished.count == 1)
        if case .failure(.serverError(let response)) = log.finished.first {
            #expect(response.statusCode == 500)
        } else {
            Issue.record("expected a server error, got \(log.finished)")
        }
    }

    @Test("when an action implements only the legacy success hook, should call it on success and not on failure")
    func legacyAfterHook() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/ok"), with: .status(200))
        session.stub(.path("/v2/fail"), with: .status(400))
        let observer = LegacyObserver()
        let module = makeModule(session: session, actions: [observer])

        module.perform(request: TestRequest(path: "ok")) { _ in }
        module.perform(request: TestRequest(path: "fail")) { _ in }

        #expect(observer.seen.value == [200])
    }

    @Test("when an action adds a header name with CR/LF, should reject the request before anything is sent")
    func actionHeaderInjectionIsRejected() {
        let session = FakeNetworkSession()
        let results = ResultCollector<NetworkResponse>()
        // Foundation keeps a CR/LF in a header *name* set with setValue(_:forHTTPHeaderField:).
        let evilName = "X-Evil\r\nX-Admin"

        makeModule(session: session, actions: [ProbeAction(prepare: .setHeader(evilName, "1"))])
            .perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == .invalidRequest(.invalidHeaderName(evilName)))
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when a raw URLRequest carries a CR/LF header, should reject it before anything is sent")
    func rawRequestHeaderInjectionIsRejected() throws {
        let session = FakeNetworkSession()
        let results = ResultCollector<NetworkResponse>()
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/v2/x")))
        // Foundation keeps CR/LF in values assigned through allHTTPHeaderFields.
        request.allHTTPHeaderFields = ["X-Value": "v\nInjected: yes"]

        makeModule(session: session).perform(urlRequest: request, completion: results.completion)

        #expect(results.singleError == .invalidRequest(.invalidHeaderValue(name: "X-Value")))
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when a raw URLRequest has no URL, should fail with .missingURL")
    func rawRequestWithoutURL() throws {
        let session = FakeNetworkSession()
        let results = ResultCollector<NetworkResponse>()
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/v2/x")))
        request.url = nil

        makeModule(session: session).perform(urlRequest: request, completion: results.completion)

        #expect(results.singleError == .invalidRequest(.missingURL))
    }

    @Test("when actions see a request, should get the description, attempt, base URL and sent request")
    func contextCarriesRequestDetails() {
        final class ContextProbe: NetworkModuleAction {
            let contexts = LockedState<[ActionContext]>([])
            func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
                contexts.withLock { $0.append(context) }
            }
        }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let probe = ContextProbe()

        makeModule(session: session, actions: [probe]).perform(request: TestRequest(path: "/me")) { _ in }

        let context = probe.contexts.value.first
        #expect((context?.networkRequest as? TestRequest)?.path == "/me")
        #expect(context?.attempt == 1)
        #expect(context?.baseURL == apiBaseURL)
        #expect(context?.sentRequest?.url?.absoluteString == "https://api.example.com/v2/me")
        #expect(context?.isSameOrigin(as: URL(string: "https://api.example.com:443/other")) == true)
        #expect(context?.isSameOrigin(as: URL(string: "https://evil.example.com/v2/me")) == false)
        #expect(context?.isSameOrigin(as: URL(string: "http://api.example.com/v2/me")) == false)
    }
}
