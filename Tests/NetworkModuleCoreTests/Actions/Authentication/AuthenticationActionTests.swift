import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Authentication action")
struct AuthenticationActionTests {
    // MARK: - Which requests get the token

    @Test(
        "when a request requires authentication on the base URL's origin, should attach the bearer token; otherwise not"
    )
    func tokenOnlyWhereItBelongs() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(
            session: session, actions: [.authentication(FakeTokenProvider(current: .success("t0k")))])
        let sameOrigin = try #require(URL(string: "https://api.example.com/v2/raw"))
        let otherHost = try #require(URL(string: "https://cdn.example.net/a.png"))

        module.perform(request: AuthenticatedRequest()) { _ in }
        module.perform(request: TestRequest(requiresAuthentication: false)) { _ in }
        module.perform(request: AuthenticatedRequest(path: "https://evil.example.net/me")) { _ in }
        module.perform(request: AuthenticatedRequest(path: "http://api.example.com/v2/me")) { _ in }
        module.perform(urlRequest: URLRequest(url: sameOrigin)) { _ in }
        module.perform(urlRequest: URLRequest(url: otherHost)) { _ in }

        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer t0k", nil, nil, nil, "Bearer t0k", nil,
            ])
    }

    @Test("when the scheme is basic or a custom header, should write the token in that form")
    func schemes() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))

        makeModule(session: session, actions: [.basicAuthentication(username: "ada", password: "pa:ss")])
            .perform(request: AuthenticatedRequest()) { _ in }
        makeModule(
            session: session,
            actions: [.authentication(FakeTokenProvider(current: .success("k3y")), scheme: .header("X-API-Key"))]
        ).perform(request: AuthenticatedRequest()) { _ in }
        makeModule(
            session: session,
            actions: [
                .authentication(
                    FakeTokenProvider(current: .success("k3y")), scheme: .header("Authorization", prefix: "Token "))
            ]
        ).perform(request: AuthenticatedRequest()) { _ in }

        let sent = session.recordedRequests
        #expect(sent.count == 3)
        #expect(sent.first?.value(forHTTPHeaderField: "Authorization") == "Basic YWRhOnBhOnNz")
        #expect(sent.dropFirst().first?.value(forHTTPHeaderField: "X-API-Key") == "k3y")
        #expect(sent.last?.value(forHTTPHeaderField: "Authorization") == "Token k3y")
    }

    @Test("when several requests start before the first token arrives, should ask the provider once")
    func firstTokenIsFetchedOnce() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let tokens = FakeTokenProvider(current: .success("t0k"), holdsCurrent: true)
        let module = makeModule(session: session, actions: [.authentication(tokens)])
        let results = ResultCollector<NetworkResponse>()

        for _ in 0..<5 { module.perform(request: AuthenticatedRequest(), completion: results.completion) }
        #expect(session.recordedRequests.isEmpty, "nothing is sent before the token arrives")
        tokens.releaseCurrent()

        #expect(tokens.currentCalls == 1)
        #expect(results.results.compactMap { try? $0.get().statusCode } == Array(repeating: 200, count: 5))
        #expect(session.recordedRequests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == "Bearer t0k" })
    }

    @Test(
        "when the current token cannot be had, should fail the waiting requests with the provider's error and send nothing"
    )
    func currentTokenFailure() {
        let session = FakeNetworkSession()
        let module = makeModule(
            session: session,
            actions: [.authentication(FakeTokenProvider(current: .failure(NetworkError.notConnectedToInternet)))])
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: AuthenticatedRequest(), completion: results.completion)

        #expect(results.singleError == .notConnectedToInternet)
        #expect(session.recordedRequests.isEmpty)
    }

    // MARK: - Single-flight refresh

    @Test("when 50 requests get 401 together, should refresh exactly once and deliver 50 successes")
    func fiftyConcurrent401sRefreshOnce() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, respond: acceptingOnly("Bearer fresh"))
        let tokens = FakeTokenProvider(current: .success("stale"), holdsRefresh: true)
        let module = makeModule(session: session, actions: [.authentication(tokens)])
        let results = ResultCollector<NetworkResponse>()
        for _ in 0..<50 { module.perform(request: AuthenticatedRequest(), completion: results.completion) }
        #expect(session.heldCount == 50)

        session.releaseAll()  // 50 × 401: the first starts the refresh, 49 wait for it
        #expect(tokens.refreshCalls == 1)
        #expect(session.heldCount == 0, "no request is sent again while the refresh runs")
        tokens.releaseRefresh()  // all 50 are sent again with the new token
        #expect(session.heldCount == 50)
        session.releaseAll()

        #expect(tokens.refreshCalls == 1)
        #expect(tokens.currentCalls == 1)
        #expect(results.count == 50)
        #expect(results.results.allSatisfy { (try? $0.get().statusCode) == 200 })
        let retried = session.recordedRequests.suffix(50).map { $0.value(forHTTPHeaderField: "Authorization") }
        #expect(retried == Array(repeating: "Bearer fresh", count: 50))
    }

    @Test("when 50 requests on many threads get 401, should refresh exactly once and deliver 50 successes")
    func fiftyThreads401sRefreshOnce() async {
        let session = FakeNetworkSession()
        session.stub(.any, respond: acceptingOnly("Bearer fresh"))
        let tokens = FakeTokenProvider(current: .success("stale"))
        let module = makeModule(session: session, actions: [.authentication(tokens)])
        let results = ResultCollector<NetworkResponse>()
        let group = DispatchGroup()

        DispatchQueue.concurrentPerform(iterations: 50) { _ in
            group.enter()
            module.perform(request: AuthenticatedRequest()) { result in
                results.completion(result)
                group.leave()
            }
        }

        #expect(await group.emptied(within: 10))
        #expect(tokens.refreshCalls == 1)
        #expect(results.results.filter { (try? $0.get().statusCode) == 200 }.count == 50)
    }

    @Test(
        "when a request was sent with a token already replaced, should retry it with the new token without refreshing")
    func staleTokenRetriesWithoutRefresh() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, respond: acceptingOnly("Bearer fresh"))
        let tokens = FakeTokenProvider(current: .success("stale"))
        let module = makeModule(session: session, actions: [.authentication(tokens)])
        let results = ResultCollector<NetworkResponse>()
        module.perform(request: AuthenticatedRequest(), completion: results.completion)
        module.perform(request: AuthenticatedRequest(), completion: results.completion)

        session.releaseNext()  // 401: refresh (answered at once), retried with "fresh"
        session.releaseNext()  // the second request's 401 carried "stale", replaced meanwhile
        session.releaseAll()

        #expect(tokens.refreshCalls == 1)
        #expect(results.results.map { try? $0.get().statusCode } == [200, 200])
        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer stale", "Bearer stale", "Bearer fresh", "Bearer fresh",
            ])
    }

    @Test(
        "when the refresh fails, should fail every waiting request with its error, and ask for the current token next time"
    )
    func refreshFailureReachesAllWaiters() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, respond: acceptingOnly("Bearer fresh"))
        let tokens = FakeTokenProvider(
            current: .success("stale"), refreshed: [.failure(SignedOut())], holdsRefresh: true)
        let module = makeModule(session: session, actions: [.authentication(tokens)])
        let results = ResultCollector<NetworkResponse>()
        for _ in 0..<3 { module.perform(request: AuthenticatedRequest(), completion: results.completion) }

        session.releaseAll()
        tokens.releaseRefresh()
        module.perform(request: AuthenticatedRequest()) { _ in }

        #expect(tokens.refreshCalls == 1)
        #expect(results.count == 3)
        for result in results.results {
            guard case .failure(.actionFailed(let action, let error)) = result else {
                Issue.record("expected the refresh failure, got \(result)")
                continue
            }
            #expect(action == "AuthenticationAction")
            #expect(error is SignedOut)
        }
        #expect(session.recordedRequests.count == 4, "the 3 are not sent again; the next request is")
        #expect(tokens.currentCalls == 2, "after a failed refresh the current token is asked for again")
    }

    @Test("when the refreshed token is rejected too, should deliver the 401 without refreshing again")
    func noRefreshLoop() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(401))
        let tokens = FakeTokenProvider(refreshed: [.success("fresh"), .success("fresher")])
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [.authentication(tokens)])
            .perform(request: AuthenticatedRequest(), completion: results.completion)

        #expect(results.singleError?.statusCode == 401)
        #expect(tokens.refreshCalls == 1)
        #expect(session.recordedRequests.count == 2)
    }

    @Test("when a request without the token gets 401, should deliver it without refreshing")
    func unauthenticatedRequestIsNotRefreshed() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(401))
        let tokens = FakeTokenProvider()
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [.authentication(tokens)])
            .perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError?.statusCode == 401)
        #expect(tokens.refreshCalls == 0)
        #expect(session.recordedRequests.count == 1)
    }

    @Test("when fixed basic credentials get 401, should deliver it without retrying")
    func basicCredentialsAreNotRefreshed() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(401))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [.basicAuthentication(username: "ada", password: "wrong")])
            .perform(request: AuthenticatedRequest(), completion: results.completion)

        #expect(results.singleError?.statusCode == 401)
        #expect(session.recordedRequests.count == 1)
    }

    @Test("when cancelled while waiting for the refresh, should deliver .cancelled once and not send again")
    func cancelWhileWaitingForRefresh() {
        let session = FakeNetworkSession()
        session.stub(.any, respond: acceptingOnly("Bearer fresh"))
        let tokens = FakeTokenProvider(holdsRefresh: true)
        let results = ResultCollector<NetworkResponse>()
        let handle = makeModule(session: session, actions: [.authentication(tokens)])
            .perform(request: AuthenticatedRequest(), completion: results.completion)

        handle.cancel()
        tokens.releaseRefresh()

        #expect(results.singleError == .cancelled)
        #expect(session.recordedRequests.count == 1)
    }

    @Test("when the token is reset, should ask the provider for the current token again")
    func resetToken() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let tokens = FakeTokenProvider(current: .success("t0k"))
        let authentication = AuthenticationAction.authentication(tokens)
        let module = makeModule(session: session, actions: [authentication])

        module.perform(request: AuthenticatedRequest()) { _ in }
        module.perform(request: AuthenticatedRequest()) { _ in }
        authentication.resetToken()
        module.perform(request: AuthenticatedRequest()) { _ in }

        #expect(tokens.currentCalls == 2)
    }

    @Test("when the provider answers twice, should use the first answer only")
    func providerAnsweringTwice() {
        struct Twice: AccessTokenProvider {
            func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
                completion(.success("first"))
                completion(.success("second"))
            }
            func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {}
        }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session, actions: [.authentication(Twice())])

        module.perform(request: AuthenticatedRequest()) { _ in }
        module.perform(request: AuthenticatedRequest()) { _ in }

        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer first", "Bearer first",
            ])
    }

    // MARK: - A constant token

    @Test("when the token is a String, should write it with the scheme: bearer by default, raw in a header of choice")
    func constantToken() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))

        makeModule(session: session, actions: [.authentication("t0ken")]).perform(request: AuthenticatedRequest()) {
            _ in
        }
        makeModule(session: session, actions: [.authentication("t0ken", scheme: .header("Access-Token"))])
            .perform(request: AuthenticatedRequest()) { _ in }

        let sent = session.recordedRequests
        #expect(sent.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer t0ken", nil])
        #expect(sent.map { $0.value(forHTTPHeaderField: "Access-Token") } == [nil, "t0ken"])
    }

    @Test("when a constant token is rejected with 401, should deliver the 401 once and not send again")
    func constantTokenRejected() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(401))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [.authentication("t0ken")])
            .perform(request: AuthenticatedRequest(), completion: results.completion)

        #expect(results.singleError?.statusCode == 401)
        #expect(session.recordedRequests.count == 1)
    }
}
