import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the pipeline prepares each attempt: the built-in header actions share one header table,
/// which must behave exactly as if each action had rewritten the request in turn; what they set
/// is checked like any other header; and every attempt starts from a fresh request.
@Suite("Preparation")
struct PreparationTests {
    /// Notes the value of `X-Seen` as it prepares, then sets `X-Own`.
    final class HeaderReader: NetworkModuleAction {
        let seen = LockedState<[String?]>([])

        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
            seen.withLock { $0.append(urlRequest.value(forHTTPHeaderField: "X-Seen")) }
            urlRequest.setValue("reader", forHTTPHeaderField: "X-Own")
        }
    }

    /// Sets `X-Attempt` to the attempt number unless the request already has it.
    struct AttemptStamp: NetworkModuleAction {
        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            var request = urlRequest
            if request.value(forHTTPHeaderField: "X-Attempt") == nil {
                request.setValue("\(context.attempt)", forHTTPHeaderField: "X-Attempt")
            }
            completion(.success(request))
        }
    }

    /// The default builder, counting its builds; fails every build after `failingAfter`.
    final class CountingBuilder: RequestBuilder {
        let builds = LockedState(0)
        let failingAfter: Int
        private let builder = DefaultRequestBuilder(baseURL: apiBaseURL)

        init(failingAfter: Int = .max) {
            self.failingAfter = failingAfter
        }

        var baseURL: URL? { builder.baseURL }

        func build(request: any NetworkRequest) throws(NetworkError) -> URLRequest {
            let count = builds.withLock { count -> Int in
                count += 1
                return count
            }
            guard count <= failingAfter else { throw .invalidRequest(.invalidPath("built \(count) times")) }
            return try builder.build(request: request)
        }
    }

    @Test("when built-in header actions surround another action, should give it the headers set before it, in order")
    func headerActionsAroundAnotherAction() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let reader = HeaderReader()
        let results = ResultCollector<NetworkResponse>()

        makeModule(
            session: session,
            actions: [
                .headers(["X-Seen": "first"]), reader,
                .headers(["X-Own": "late", "X-Seen": "late", "X-After": "after"]),
            ]
        ).perform(request: TestRequest(headers: ["X-Mine": "request"]), completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        let sent = try #require(session.recordedRequests.first)
        #expect(reader.seen.value == ["first"])
        #expect(sent.value(forHTTPHeaderField: "X-Seen") == "first")
        #expect(sent.value(forHTTPHeaderField: "X-Own") == "reader")
        #expect(sent.value(forHTTPHeaderField: "X-After") == "after")
        #expect(sent.value(forHTTPHeaderField: "X-Mine") == "request")
    }

    @Test("when header and authentication actions follow each other, should send every header they set, once")
    func consecutiveHeaderActions() throws {
        let session = FakeNetworkSession()
        let tokens = FakeTokenProvider(current: .success("t0k3n"))
        let module = makeModule(
            session: session,
            actions: [.headers(["User-Agent": "Tests/1.0"]), .authentication(tokens), .requestID()])

        module.perform(request: AuthenticatedRequest()) { _ in }
        module.perform(request: AuthenticatedRequest()) { _ in }

        #expect(session.recordedRequests.count == 2)
        for sent in session.recordedRequests {
            let fields = sent.allHTTPHeaderFields ?? [:]
            #expect(fields.keys.filter { $0.caseInsensitiveCompare("Authorization") == .orderedSame }.count == 1)
            #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer t0k3n")
            #expect(sent.value(forHTTPHeaderField: "User-Agent") == "Tests/1.0")
            #expect(sent.value(forHTTPHeaderField: "X-Request-ID").flatMap(UUID.init(uuidString:)) != nil)
        }
        #expect(tokens.currentCalls == 1)
    }

    @Test(
        "when a built-in header action would set an invalid header, should fail with the header's error and send nothing",
        arguments: [
            (
                HeadersAction(["X-Value": "v\r\nInjected: yes"]),
                NetworkError.invalidRequest(.invalidHeaderValue(name: "X-Value"))
            ),
            (
                HeadersAction(name: "X-Bad Name") { _ in "1" },
                NetworkError.invalidRequest(.invalidHeaderName("X-Bad Name"))
            ),
            (
                HeadersAction(name: "X-Computed") { _ in "a\nb" },
                NetworkError.invalidRequest(.invalidHeaderValue(name: "X-Computed"))
            ),
        ])
    func invalidHeaderFromHeaderAction(action: HeadersAction, expected: NetworkError) {
        let session = FakeNetworkSession()
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [action]).perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == expected)
        #expect(session.recordedRequests.isEmpty)
    }

    @Test(
        "when a built-in header action's prepare is called directly, should set the field as given and leave the check to the module",
        arguments: [
            HeadersAction(["X-Value": "v\r\nInjected: yes"]), HeadersAction(name: "X-Computed") { _ in "a\nb" },
        ])
    func directPrepareDoesNotCheck(action: HeadersAction) throws {
        let called = ResultCollector<URLRequest>()

        action.prepare(
            URLRequest(url: apiBaseURL), context: ActionContext(networkRequest: nil),
            completion: { called.completion($0.mapError { $0 as? NetworkError ?? .cancelled }) })

        // One check, in one place: the module checks every header field just before the
        // session gets the request (the test above), whoever set it.
        let prepared = try #require(called.singleValue)
        #expect(prepared.allHTTPHeaderFields?.count == 1)
    }

    @Test(
        "when the token holds CR/LF, should fail with .invalidHeaderValue and send nothing, whether or not it had to wait"
    )
    func invalidToken() {
        let session = FakeNetworkSession()
        let module = makeModule(
            session: session, actions: [.authentication(FakeTokenProvider(current: .success("t\r\nX-Admin: 1")))])
        let first = ResultCollector<NetworkResponse>()
        let second = ResultCollector<NetworkResponse>()

        module.perform(request: AuthenticatedRequest(), completion: first.completion)  // waits for the provider
        module.perform(request: AuthenticatedRequest(), completion: second.completion)  // token already known

        #expect(first.singleError == .invalidRequest(.invalidHeaderValue(name: "Authorization")))
        #expect(second.singleError == .invalidRequest(.invalidHeaderValue(name: "Authorization")))
        #expect(session.recordedRequests.isEmpty)
    }

    @Test(
        "when an action replaces the caller's invalid header, should send it: the fields are checked once, before the session"
    )
    func headersCheckedOnceBeforeTheSession() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [ProbeAction(prepare: .setHeader("X-Token", "good"))])
            .perform(request: TestRequest(headers: ["X-Token": "bad\r\nX-Admin: 1"]), completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        #expect(try #require(session.recordedRequests.first).value(forHTTPHeaderField: "X-Token") == "good")
    }

    @Test(
        "when the caller's header is invalid, should fail with the header's error after the actions, and send nothing")
    func callersInvalidHeaderFailsAtTheOneCheck() {
        let session = FakeNetworkSession()
        let results = ResultCollector<NetworkResponse>()
        let probe = ProbeAction()

        makeModule(session: session, actions: [probe])
            .perform(request: TestRequest(headers: ["X-Token": "bad\r\nX-Admin: 1"]), completion: results.completion)

        #expect(results.singleError == .invalidRequest(.invalidHeaderValue(name: "X-Token")))
        #expect(probe.log.value.prepared == [1])
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when another action sets a bad header after the built-in ones, should still reject the request")
    func badHeaderAfterBuiltInActions() {
        let session = FakeNetworkSession()
        let results = ResultCollector<NetworkResponse>()

        makeModule(
            session: session,
            actions: [
                .headers(["X-Fine": "1"]), ProbeAction(prepare: .setHeader("X-Evil\r\nX-Admin", "1")), .requestID(),
            ]
        ).perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == .invalidRequest(.invalidHeaderName("X-Evil\r\nX-Admin")))
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when a described request is retried, should build it again and prepare the fresh request")
    func retryBuildsAgain() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let builder = CountingBuilder()
        let module = DefaultNetworkModule(
            requestBuilder: builder, session: session, actions: [AttemptStamp(), ProbeAction(retry: [.retry])],
            completionExecutor: .immediate, delayScheduler: ManualDelayScheduler())
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        #expect(builder.builds.value == 2)
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "X-Attempt") } == ["1", "2"])
    }

    @Test("when building the retry fails, should deliver the builder's error once and send nothing more")
    func retryBuildFails() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503))
        let builder = CountingBuilder(failingAfter: 1)
        let executor = RecordingExecutor()
        let module = DefaultNetworkModule(
            requestBuilder: builder, session: session, actions: [ProbeAction(retry: [.retry])],
            completionExecutor: executor, delayScheduler: ManualDelayScheduler())
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == .invalidRequest(.invalidPath("built 2 times")))
        #expect(session.recordedRequests.count == 1)
        #expect(executor.deliveryCount == 1)
    }

    @Test("when a caller's URLRequest is retried, should start every attempt from the caller's request")
    func retryRawRequest() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let module = makeModule(session: session, actions: [AttemptStamp(), ProbeAction(retry: [.retry])])
        var request = URLRequest(url: apiBaseURL.appendingPathComponent("raw"))
        request.setValue("kept", forHTTPHeaderField: "X-Caller")
        let results = ResultCollector<NetworkResponse>()

        module.perform(urlRequest: request, completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "X-Attempt") } == ["1", "2"])
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "X-Caller") } == ["kept", "kept"])
        #expect(request.value(forHTTPHeaderField: "X-Attempt") == nil, "the caller's request is never changed")
    }
}
