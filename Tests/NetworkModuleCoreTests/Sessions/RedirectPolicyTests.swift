import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a redirect policy reaches the session, and what `FakeNetworkSession` does with it;
/// `Integration: redirect policy` covers `URLSessionTransport` on the wire.
@Suite("Redirect policy")
struct RedirectPolicyTests {
    struct Redirected: NetworkRequest {
        var path = "/start"
        var headers: HTTPHeaders = [:]
        var redirectPolicy: RedirectPolicy?
        var acceptableStatusCodes: AcceptableStatusCodes = .moduleDefault
    }

    /// A session of the user's that implements only `dataTask(with:completionHandler:)`.
    final class LegacySession: NetworkSession {
        let fake = FakeNetworkSession()

        func dataTask(
            with request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            fake.dataTask(with: request, completionHandler: completionHandler)
        }
    }

    /// A session that records the policy of every task it makes.
    final class PolicyRecordingSession: TransferringSession {
        let fake = FakeNetworkSession()
        let policies = LockedState([String]())

        func dataTask(
            with request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            policies.withLock { $0.append("old method") }
            return fake.dataTask(with: request, completionHandler: completionHandler)
        }

        func transferTask(
            with request: URLRequest, transfer: TransferOptions,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            let redirectPolicy = transfer.redirectPolicy
            let probe = HTTPURLResponse(url: apiBaseURL, statusCode: 302, httpVersion: nil, headerFields: nil)
            let name =
                switch probe.map({ redirectPolicy.probe($0, request: request) }) {
                case .some(.some): "follows"
                default: "stops"
                }
            policies.withLock { $0.append(name) }
            return fake.transferTask(with: request, transfer: transfer, completionHandler: completionHandler)
        }
    }

    private func stubChain(_ session: FakeNetworkSession) {
        session.stub(.path("/v2/start"), with: .status(302, headers: ["Location": "/v2/middle"]))
        session.stub(.path("/v2/middle"), with: .status(301, headers: ["Location": "https://cdn.example.com/end"]))
        session.stub(.path("/end"), with: .text("end"))
    }

    @Test("when a request refuses redirects, should deliver the 3xx as an unacceptable status, with Location")
    func refusedIsUnacceptableByDefault() {
        let session = FakeNetworkSession()
        stubChain(session)
        let module = makeModule(session: session)
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: Redirected(redirectPolicy: .refuse), completion: results.completion)

        guard case .unacceptableStatusCode(let failure)? = results.singleError else {
            Issue.record("expected .unacceptableStatusCode, got \(String(describing: results.single))")
            return
        }
        #expect(failure.statusCode == 302)
        #expect(failure.headers["Location"] == "/v2/middle")
        #expect(session.recordedRequests.count == 1)
    }

    @Test("when a refused 3xx is acceptable, should deliver it as a success that actions validate")
    func refusedIsASuccessWhenAccepted() {
        let session = FakeNetworkSession()
        stubChain(session)
        let seen = LockedState([Int]())
        let validator = ResponseValidationAction { response in seen.withLock { $0.append(response.statusCode) } }
        let module = makeModule(session: session, actions: [validator])
        let results = ResultCollector<NetworkResponse>()

        module.perform(
            request: Redirected(redirectPolicy: .refuse, acceptableStatusCodes: AcceptableStatusCodes(200..<400)),
            completion: results.completion)

        #expect(results.singleValue?.statusCode == 302)
        #expect(seen.value == [302])
    }

    @Test("when a per-hop callback follows, should see each hop in order and deliver the end")
    func callbackSeesEachHop() throws {
        let session = FakeNetworkSession()
        stubChain(session)
        let module = makeModule(session: session)
        let hops = LockedState([String]())
        let policy = RedirectPolicy.decide { response, next, hopNumber in
            hops.withLock {
                $0.append("\(hopNumber) \(response.statusCode) \(next.url?.absoluteString ?? "")")
            }
            return next
        }
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: Redirected(redirectPolicy: policy), completion: results.completion)

        #expect(try results.singleValue?.text() == "end")
        #expect(
            hops.value == ["1 302 https://api.example.com/v2/middle", "2 301 https://cdn.example.com/end"])
        #expect(session.recordedRequests.count == 3)
    }

    @Test("when the callback returns nil, should stop and deliver that hop's 3xx, sending nothing more")
    func callbackStops() {
        let session = FakeNetworkSession()
        stubChain(session)
        let module = makeModule(session: session)
        let results = ResultCollector<NetworkResponse>()

        module.perform(
            request: Redirected(
                redirectPolicy: .decide { _, next, hopNumber in hopNumber < 2 ? next : nil },
                acceptableStatusCodes: AcceptableStatusCodes(200..<400)),
            completion: results.completion)

        #expect(results.singleValue?.statusCode == 301)
        #expect(session.recordedRequests.compactMap(\.url?.path) == ["/v2/start", "/v2/middle"])
    }

    @Test("when the callback puts credentials back on a cross-origin hop, should strip them after it")
    func credentialsStrippedAfterTheCallback() {
        let session = FakeNetworkSession()
        stubChain(session)
        let module = makeModule(session: session)
        let seenAuthorization = LockedState([String?]())
        let policy = RedirectPolicy.decide { _, next, hopNumber in
            seenAuthorization.withLock { $0.append(next.value(forHTTPHeaderField: "Authorization")) }
            var changed = next
            changed.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
            changed.setValue("\(hopNumber)", forHTTPHeaderField: "X-Hop")
            return changed
        }
        let results = ResultCollector<NetworkResponse>()

        module.perform(
            request: Redirected(headers: ["Authorization": "Bearer s3cret"], redirectPolicy: policy),
            completion: results.completion)

        let sent = session.recordedRequests
        #expect(sent.count == 3)
        #expect(sent[1].value(forHTTPHeaderField: "Authorization") == "Bearer s3cret", "same origin keeps it")
        #expect(sent[1].value(forHTTPHeaderField: "X-Hop") == "1")
        #expect(sent[2].value(forHTTPHeaderField: "Authorization") == nil, "another origin never gets it")
        #expect(sent[2].value(forHTTPHeaderField: "X-Hop") == "2")
        #expect(seenAuthorization.value == ["Bearer s3cret", nil])
        #expect(results.singleValue != nil)
    }

    @Test("when the module has a policy, should apply it to requests that name none, and let others override it")
    func moduleAndRequestPolicies() {
        let session = PolicyRecordingSession()
        session.fake.stub(.any, with: .status(200))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            completionExecutor: .immediate, redirectPolicy: .refuse)

        module.perform(request: Redirected()) { _ in }
        module.perform(request: Redirected(redirectPolicy: .follow)) { _ in }
        module.perform(urlRequest: URLRequest(url: apiBaseURL)) { _ in }

        #expect(session.policies.value == ["stops", "follows", "stops"])
    }

    @Test("when a session implements only the old method, should follow as before and fail other policies unsent")
    func legacySession() {
        let session = LegacySession()
        session.fake.stub(.any, with: .status(200))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, completionExecutor: .immediate
        )
        let followed = ResultCollector<NetworkResponse>()
        let refused = ResultCollector<NetworkResponse>()

        module.perform(request: Redirected(), completion: followed.completion)
        module.perform(request: Redirected(redirectPolicy: .refuse), completion: refused.completion)

        #expect(followed.singleValue?.statusCode == 200)
        guard case .transportError(let failure)? = refused.singleError else {
            Issue.record("expected .transportError, got \(String(describing: refused.single))")
            return
        }
        #expect(failure.code == .unsupportedURL)
        #expect(failure.message?.contains("LegacySession cannot apply a redirect policy") == true)
        #expect(failure.message?.contains("Send it on URLSessionTransport") == true)
        #expect(failure.message?.contains("dataTask(with:redirectPolicy:") == false, "advises a method never called")
        #expect(session.fake.recordedRequests.count == 1)
    }

    @Test("when a plain URLSession gets a policy other than follow, should fail unsent, once, through the executor")
    func plainURLSessionRefusesPolicies() {
        let executor = RecordingExecutor()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "http://127.0.0.1:9")!),
            session: URLSession(configuration: .ephemeral), completionExecutor: executor)
        let results = ResultCollector<NetworkResponse>()

        module.perform(
            request: Redirected(redirectPolicy: .decide { _, next, _ in next }), completion: results.completion)

        #expect(executor.deliveryCount == 1)
        #expect(results.singleError?.urlErrorCode == .unsupportedURL)
    }

    @Test("when a decorated fake gets a policy, should pass it through throttling, de-duplication and caching")
    func decoratorsPassThePolicyOn() throws {
        let fake = FakeNetworkSession()
        stubChain(fake)
        let session = fake.cached().deduplicated().throttled(maxConcurrent: 2)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, completionExecutor: .immediate
        )
        let results = ResultCollector<NetworkResponse>()

        module.perform(
            request: Redirected(redirectPolicy: .decide { _, next, _ in next }), completion: results.completion)

        #expect(try results.singleValue?.text() == "end")
        #expect(fake.recordedRequests.count == 3)
    }

    @Test("when a HAR recorder wraps the session, should pass the policy on and record the 3xx it stopped at")
    func harRecorderPassesThePolicyOn() throws {
        let fake = FakeNetworkSession()
        stubChain(fake)
        let recorder = HARRecordingSession(wrapping: fake)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: recorder,
            completionExecutor: .immediate)
        let results = ResultCollector<NetworkResponse>()

        module.perform(
            request: Redirected(redirectPolicy: .refuse, acceptableStatusCodes: AcceptableStatusCodes(200..<400)),
            completion: results.completion)

        #expect(results.singleValue?.statusCode == 302)
        let har = String(decoding: try recorder.harData(), as: UTF8.self)
        #expect(har.contains("\"status\" : 302") || har.contains("\"status\":302"))
    }

    @Test("when a recording made with a policy is replayed with it, should answer with the recorded 3xx")
    func harReplayAnswersWhateverThePolicy() throws {
        let fake = FakeNetworkSession()
        stubChain(fake)
        let recorder = HARRecordingSession(wrapping: fake)
        let refusing = Redirected(redirectPolicy: .refuse, acceptableStatusCodes: AcceptableStatusCodes(200..<400))
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: recorder,
            completionExecutor: .immediate
        ).perform(request: refusing) { _ in }
        let replay = try HARReplaySession(harData: try recorder.harData())
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: replay, completionExecutor: .immediate)
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: refusing, completion: results.completion)

        #expect(results.singleValue?.statusCode == 302)
        #expect(results.singleValue?.headers["Location"] == "/v2/middle")
    }

    @Test("when a fake module answers a request with a policy, should deliver the stubbed answer as it is")
    func fakeModuleAnswersWhateverThePolicy() async throws {
        let module = FakeNetworkModule()
        module.stub(Redirected.self, with: .status(302, headers: ["Location": "/elsewhere"]))

        let response = try await module.perform(
            request: Redirected(redirectPolicy: .refuse, acceptableStatusCodes: AcceptableStatusCodes(200..<400)))

        #expect(response.statusCode == 302)
    }
}

extension RedirectPolicy {
    /// What the policy does with a first hop to `request`: `nil` when it stops.
    fileprivate func probe(_ response: HTTPURLResponse, request: URLRequest) -> URLRequest? {
        nextRequest(after: response, next: request, hopNumber: 1)
    }
}
