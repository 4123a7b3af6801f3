import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of docs/actions.md.
@Suite("Actions samples")
struct ActionsSamples {
    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
    }

    struct GetMe: NetworkRequest {
        var path: String { "/me" }
        var requiresAuthentication: Bool { true }
    }

    struct GetAvatar: NetworkRequest {
        var path: String { "https://cdn.example.com/avatars/1.png" }
        var requiresAuthentication: Bool { true }
    }

    struct CreatePost: NetworkRequest {
        var path: String { "/posts" }
        var method: HTTPMethod { .post }
    }

    // MARK: - The simple forms

    // sample: actions-simple-prepare
    struct AppVersionAction: NetworkModuleAction {
        let version: String

        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
            urlRequest.setValue(version, forHTTPHeaderField: "X-App-Version")
        }
    }
    // end-sample

    // sample: actions-simple-observe
    struct SuccessLogger: NetworkModuleAction {
        func performAfterExecutingNetworkRequest(request: (any NetworkRequest)?, networkResponse: NetworkResponse) {
            print("\(networkResponse.statusCode) \(networkResponse.request.url?.path ?? "")")
        }
    }
    // end-sample

    @Test("when actions use the simple forms, should rewrite every request and observe successes only")
    func simpleForms() throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(200))
        session.stub(.path("/v2/users/2"), with: .status(404))
        let builder = DefaultRequestBuilder(baseURL: sampleBaseURL)

        // sample: actions-module
        let module = DefaultNetworkModule(
            requestBuilder: builder,
            session: session,
            actions: [AppVersionAction(version: "2.4.1"), SuccessLogger()],
            completionExecutor: .immediate
        )
        // end-sample

        let printed = Transcript.recording {
            module.perform(request: GetUser(id: 1)) { _ in }
            module.perform(request: GetUser(id: 2)) { _ in }
        }

        #expect(printed == ["200 /v2/users/1"], "the success hook does not run for the 404")
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "X-App-Version") } == ["2.4.1", "2.4.1"])
    }

    @Test("when the simple form throws, should fail the request without sending it")
    func simpleFormThrows() {
        struct Offline: NetworkModuleAction {
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) throws {
                throw NetworkError.notConnectedToInternet
            }
        }
        let session = FakeNetworkSession()
        let failed = LockedLines()

        makeSampleModule(session: session, actions: [Offline()]).perform(request: GetUser(id: 1)) { result in
            if case .failure(let error) = result { failed.append("\(error == .notConnectedToInternet)") }
        }

        #expect(failed.lines == ["true"])
        #expect(session.recordedRequests.isEmpty)
    }

    // MARK: - The lifecycle

    // sample: actions-trace
    struct TraceAction: NetworkModuleAction {
        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            print("prepare, attempt \(context.attempt)")
            completion(.success(urlRequest))
        }

        func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            switch result {
            case .success(let response): print("didReceive \(response.statusCode), attempt \(context.attempt)")
            case .failure(let error): print("didReceive \(error.statusCode ?? 0), attempt \(context.attempt)")
            }
        }

        func retryDecision(
            for error: NetworkError, context: ActionContext,
            completion: @escaping @Sendable (RetryDecision) -> Void
        ) {
            print("retryDecision for \(error.statusCode ?? 0), attempt \(context.attempt)")
            completion(context.attempt < 2 ? .retry : .doNotRetry)
        }

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            print("didFinish after \(context.attempt) attempts")
        }
    }
    // end-sample

    @Test("when an attempt fails and the action retries, should run the hooks in the documented order")
    func lifecycle() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(503), .status(200))
        let module = makeSampleModule(session: session, actions: [TraceAction()])

        let printed = Transcript.recording {
            // sample: actions-trace-performed
            module.perform(request: GetUser(id: 1)) { result in
                print("completion: \((try? result.get())?.statusCode ?? 0)")
            }
            // end-sample
        }

        #expect(
            printed == [
                "prepare, attempt 1",
                "didReceive 503, attempt 1",
                "retryDecision for 503, attempt 1",
                "prepare, attempt 2",
                "didReceive 200, attempt 2",
                "didFinish after 2 attempts",
                "completion: 200",
            ])
    }

    @Test("when a decoded request's body does not decode, actions should see the response succeed")
    func actionsSeeResponseBeforeDecoding() {
        struct Strict: Decodable, Sendable { let required: String }
        let session = FakeNetworkSession()
        session.stub(.any, with: .json("{}"))
        let module = makeSampleModule(session: session, actions: [SuccessLogger()])
        let delivered = LockedLines()

        let printed = Transcript.recording {
            module.performAndDecode(request: GetUser(id: 1), responseType: Strict.self) { result in
                if case .failure(.decodingFailed) = result { delivered.append("decodingFailed") }
            }
        }

        #expect(printed == ["200 /v2/users/1"])
        #expect(delivered.lines == ["decodingFailed"])
    }

    // MARK: - Asynchronous preparation: a token

    // sample: actions-token
    protocol TokenProvider: Sendable {
        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void)
    }

    struct BearerTokenAction: NetworkModuleAction {
        let tokens: any TokenProvider

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            // Credentials go only to requests that ask for them, on the base URL's origin.
            guard context.networkRequest?.requiresAuthentication == true, context.isSameOrigin(as: urlRequest.url)
            else {
                completion(.success(urlRequest))
                return
            }
            tokens.currentToken { result in
                completion(
                    result.map { token in
                        var authorized = urlRequest
                        authorized.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                        return authorized
                    })
            }
        }
    }
    // end-sample

    /// Hands out a token when asked, or holds the requests until released.
    final class FakeTokens: TokenProvider {
        private let pending = PendingCompletions()
        let token: Result<String, any Error>
        let holds: Bool

        init(_ token: Result<String, any Error>, holds: Bool = false) {
            self.token = token
            self.holds = holds
        }

        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            if holds { pending.add(completion) } else { completion(token) }
        }

        func release() {
            for completion in pending.takeAll() { completion(token) }
        }
    }

    struct KeychainLocked: Error {}

    @Test("when a request requires authentication on the base URL's origin, should attach the token; elsewhere, should not")
    func tokenOnlyForSameOrigin() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeSampleModule(session: session, actions: [BearerTokenAction(tokens: FakeTokens(.success("s3cret")))])

        module.perform(request: GetMe()) { _ in }
        module.perform(request: GetUser(id: 1)) { _ in }
        module.perform(request: GetAvatar()) { _ in }

        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer s3cret", nil, nil])
    }

    @Test("when the token cannot be fetched, should fail with .actionFailed naming the action")
    func tokenFailure() {
        let session = FakeNetworkSession()
        let module = makeSampleModule(
            session: session, actions: [BearerTokenAction(tokens: FakeTokens(.failure(KeychainLocked())))])
        let failed = LockedLines()

        module.perform(request: GetMe()) { result in
            if case .failure(.actionFailed(let failure)) = result { failed.append(failure.actionName) }
        }

        #expect(failed.lines == ["BearerTokenAction"])
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when a request is cancelled while its token is fetched, should complete as cancelled and never send")
    func cancelDuringPreparation() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let tokens = FakeTokens(.success("s3cret"), holds: true)
        let module = makeSampleModule(session: session, actions: [BearerTokenAction(tokens: tokens)])

        let printed = Transcript.recording {
            // sample: actions-cancel-during-prepare
            let task = module.perform(request: GetMe()) { result in
                if case .failure(.cancelled) = result {
                    print("cancelled while the token was being fetched")
                }
            }
            task.cancel()
            // end-sample
        }
        tokens.release()  // the token arrives late: ignored

        #expect(printed == ["cancelled while the token was being fetched"])
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when an action is tested on its own, should attach the token for the base URL's origin only")
    func testingAnAction() throws {
        let printed = Transcript.recording {
            // sample: actions-unit-test
            let action = BearerTokenAction(tokens: FakeTokens(.success("s3cret")))
            let context = ActionContext(networkRequest: GetMe(), baseURL: URL(string: "https://api.example.com/v2")!)

            for url in ["https://api.example.com/v2/me", "https://evil.example.net/me"] {
                action.prepare(URLRequest(url: URL(string: url)!), context: context) { result in
                    let header = (try? result.get())?.value(forHTTPHeaderField: "Authorization")
                    print(url, "->", header ?? "no Authorization")
                }
            }
            // end-sample
        }

        #expect(
            printed == [
                "https://api.example.com/v2/me -> Bearer s3cret",
                "https://evil.example.net/me -> no Authorization",
            ])
    }

    // MARK: - Retry

    // sample: actions-retry
    struct RetryTransientFailures: NetworkModuleAction {
        let maxAttempts: Int
        let firstDelay: TimeInterval

        func retryDecision(
            for error: NetworkError, context: ActionContext,
            completion: @escaping @Sendable (RetryDecision) -> Void
        ) {
            let method = HTTPMethod(rawValue: context.sentRequest?.httpMethod ?? "GET")
            guard error.isRetryable, method.isIdempotent, context.attempt < maxAttempts else {
                completion(.doNotRetry)
                return
            }
            // 0.5 s, 1 s, 2 s, … after attempts 1, 2, 3, …
            completion(.retryAfter(firstDelay * pow(2, Double(context.attempt - 1))))
        }
    }
    // end-sample

    @Test("when a GET fails with 503 twice, should retry after growing delays and deliver the 200")
    func retry() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(503), .status(503), .status(200))
        session.stub(.path("/v2/posts"), with: .status(503))
        let scheduler = ManualDelayScheduler()
        let module = makeSampleModule(
            session: session, actions: [RetryTransientFailures(maxAttempts: 3, firstDelay: 0.5)],
            delayScheduler: scheduler)
        let delivered = LockedLines()

        module.perform(request: GetUser(id: 1)) { result in delivered.append("GET \((try? result.get())?.statusCode ?? 0)") }
        scheduler.advance(by: 0.5)
        scheduler.advance(by: 1)
        module.perform(request: CreatePost()) { result in
            if case .failure(let error) = result { delivered.append("POST \(error.statusCode ?? 0)") }
        }

        #expect(scheduler.requestedDelays == [0.5, 1])
        #expect(delivered.lines == ["GET 200", "POST 503"], "a POST is not retried")
        #expect(session.recordedRequests.count == 4)
    }

    @Test("when giving up after the last attempt, should deliver the last failure")
    func retryGivesUp() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.timedOut))
        let scheduler = ManualDelayScheduler()
        let module = makeSampleModule(
            session: session, actions: [RetryTransientFailures(maxAttempts: 3, firstDelay: 0.5)],
            delayScheduler: scheduler)
        let delivered = LockedLines()

        module.perform(request: GetUser(id: 1)) { result in
            if case .failure(let error) = result { delivered.append("\(error == .timedOut)") }
        }
        scheduler.runAll()

        #expect(delivered.lines == ["true"])
        #expect(session.recordedRequests.count == 3)
    }

    // MARK: - State in an action

    // sample: actions-metrics
    final class RequestMetrics: NetworkModuleAction, @unchecked Sendable {
        // @unchecked Sendable is safe: `attempts` and `failures` are only touched while holding `lock`.
        private let lock = NSLock()
        private var attempts = 0
        private var failures = 0

        func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            lock.lock()
            defer { lock.unlock() }
            attempts += 1
        }

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            guard case .failure = result else { return }
            lock.lock()
            defer { lock.unlock() }
            failures += 1
        }

        var summary: String {
            lock.lock()
            defer { lock.unlock() }
            return "\(attempts) attempts, \(failures) failed requests"
        }
    }
    // end-sample

    @Test("when requests are retried and fail, didReceive should count attempts and didFinish requests")
    func metrics() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(503), .status(200))
        session.stub(.path("/v2/users/2"), with: .status(404))
        let metrics = RequestMetrics()
        let scheduler = ManualDelayScheduler()
        let module = makeSampleModule(
            session: session, actions: [RetryTransientFailures(maxAttempts: 3, firstDelay: 0.5), metrics],
            delayScheduler: scheduler)

        module.perform(request: GetUser(id: 1)) { _ in }
        scheduler.advance(by: 0.5)
        module.perform(request: GetUser(id: 2)) { _ in }

        #expect(metrics.summary == "3 attempts, 1 failed requests")
    }
}

/// Completions waiting for a token, behind a lock.
final class PendingCompletions: @unchecked Sendable {
    // @unchecked Sendable is safe: `completions` is only touched while holding `lock`.
    private let lock = NSLock()
    private var completions: [@Sendable (Result<String, any Error>) -> Void] = []

    func add(_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        completions.append(completion)
    }

    func takeAll() -> [@Sendable (Result<String, any Error>) -> Void] {
        lock.lock()
        defer { lock.unlock() }
        defer { completions = [] }
        return completions
    }
}
