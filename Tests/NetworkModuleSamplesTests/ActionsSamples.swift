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
        let module = makeSampleModule(session: session, actions: [AppVersionAction(version: "2.4.1"), SuccessLogger()])

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
            module.perform(request: GetUser(id: 1)) { result in
                print("completion: \((try? result.get())?.statusCode ?? 0)")
            }
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

    @Test("when a decoded request's body does not decode, didFinish should see the decoding failure the caller gets")
    func actionsSeeTheOutcomeAfterDecoding() {
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

        #expect(printed == [])
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
            if case .failure(.actionFailed(let action, _)) = result { failed.append(action) }
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
            let task = module.perform(request: GetMe()) { result in
                if case .failure(.cancelled) = result {
                    print("cancelled while the token was being fetched")
                }
            }
            task.cancel()
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

// MARK: - Built-in actions

extension ActionsSamples {
    /// The app's secure storage, in memory.
    final class Keychain: @unchecked Sendable {
        // @unchecked Sendable is safe: `stored` is only touched while holding `lock`.
        private let lock = NSLock()
        private var stored: (access: String?, refresh: String)

        init(accessToken: String?, refreshToken: String) {
            stored = (accessToken, refreshToken)
        }

        var accessToken: String? {
            get { lock.withLock { stored.access } }
            set { lock.withLock { stored.access = newValue } }
        }

        var refreshToken: String { lock.withLock { stored.refresh } }
    }

    /// An authorization server that swaps a refresh token for a new access token, and counts.
    final class AuthServer: Sendable {
        let refreshes = LockedLines()

        func refresh(_ refreshToken: String, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            refreshes.append(refreshToken)
            completion(.success("fresh"))
        }
    }

    struct SignedOut: Error {}

    /// The app's token store: the keychain's token, refreshed by the authorization server.
    struct SessionTokens: AccessTokenProvider {
        let keychain: Keychain
        let authServer: AuthServer

        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(keychain.accessToken.map { .success($0) } ?? .failure(SignedOut()))
        }

        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            authServer.refresh(keychain.refreshToken) { result in
                if case .success(let token) = result { keychain.accessToken = token }
                completion(result)
            }
        }
    }

    @Test("when the built-in actions are listed as static members, should read as a sentence and work together")
    func builtInModule() {
        let session = FakeNetworkSession()
        session.stub(.any) { request in
            request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh" ? .json(#"{"name":"Ada"}"#) : .status(401)
        }
        let authServer = AuthServer()
        let tokens = SessionTokens(keychain: Keychain(accessToken: "expired", refreshToken: "r1"), authServer: authServer)

        let printed = Transcript.recording {
            // sample: actions-builtin-module
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
                session: session,
                actions: [
                    .headers(["User-Agent": "Notes/2.4.1"]),
                    .authentication(tokens),
                    .retry(.default),
                    .logging(headers: false, sink: { print($0) }),
                ],
                completionExecutor: .immediate
            )
            module.perform(request: GetMe()) { result in
                print("completion: \((try? result.get())?.statusCode ?? 0)")
            }
            // end-sample
        }

        #expect(
            printed.map { $0.replacingOccurrences(of: "[0-9]+ ms", with: "N ms", options: .regularExpression) } == [
                "→ GET https://api.example.com/v2/me\n← 401 GET https://api.example.com/v2/me (N ms, 0 bytes)",
                "→ GET https://api.example.com/v2/me (attempt 2)\n← 200 GET https://api.example.com/v2/me (N ms, 14 bytes)\n  {\n    \"name\" : \"Ada\"\n  }",
                "completion: 200",
            ])
        #expect(authServer.refreshes.lines == ["r1"])
        #expect(session.recordedRequests.allSatisfy { $0.value(forHTTPHeaderField: "User-Agent") == "Notes/2.4.1" })
    }

    @Test("when a key goes in a custom header or credentials are fixed, should write them in that form")
    func authenticationSchemes() {
        struct APIKeys: AccessTokenProvider {
            func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) { completion(.success("k3y")) }
            func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) { completion(.success("k3y")) }
        }
        let keys = APIKeys()

        // sample: actions-authentication-schemes
        let actions: [any NetworkModuleAction] = [
            .authentication(keys, scheme: .header("X-API-Key")),  // X-API-Key: <token>
            .basicAuthentication(username: "ada", password: "s3cret"),  // Authorization: Basic YWRhOnMzY3JldA==
        ]
        // end-sample
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        makeSampleModule(session: session, actions: actions).perform(request: GetMe()) { _ in }

        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "X-API-Key") == "k3y")
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "Authorization") == "Basic YWRhOnMzY3JldA==")
    }

    @Test("when a policy is tuned and a request opts out, should retry the GET with growing waits and never the payment")
    func retryPolicy() {
        // sample: actions-retry-policy
        var policy = RetryPolicy.default
        policy.maxAttempts = 4
        policy.initialDelay = 1
        let retry: any NetworkModuleAction = .retry(policy)  // waits about 1 s, 2 s, 4 s (±20 %)

        struct ChargeCard: NetworkRequest {
            var path: String { "/payments" }
            var method: HTTPMethod { .put }
            var retryPolicy: RetryPolicy? { .never }  // sent once, whatever the module's policy
        }
        // end-sample
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503))
        let scheduler = ManualDelayScheduler()
        let module = makeSampleModule(session: session, actions: [retry], delayScheduler: scheduler)

        module.perform(request: GetUser(id: 1)) { _ in }
        scheduler.runAll()
        module.perform(request: ChargeCard()) { _ in }

        let delays = scheduler.requestedDelays
        #expect(delays.count == 3)
        for (delay, base) in zip(delays, [1.0, 2, 4]) { #expect(delay >= base * 0.8 && delay <= base * 1.2) }
        #expect(session.recordedRequests.count == 5, "4 GETs, 1 PUT")
    }

    @Test("when a request fails for lack of network, should wait for it instead of retrying on the backoff")
    func retryWaitingForNetwork() {
        // sample: actions-retry-connectivity
        let connectivity = NetworkConnectivity()  // one for the app, shared by its modules
        let patient: any NetworkModuleAction = .retry(.default.waitingForNetwork(on: connectivity, upTo: 120))
        // end-sample
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.notConnectedToInternet), .status(200))
        let scheduler = ManualDelayScheduler()
        let module = makeSampleModule(session: session, actions: [patient], delayScheduler: scheduler)
        connectivity.update(isReachable: false)
        let results = LockedState<[Int?]>([])

        module.perform(request: GetUser(id: 1)) { result in results.withLock { $0.append(try? result.get().statusCode) } }
        let waiting = connectivity.waitingCount
        connectivity.update(isReachable: true)

        #expect(waiting == 1)
        #expect(results.withLock { $0 } == [200])
        #expect(scheduler.requestedDelays.isEmpty)
    }

    /// A token store written with async/await.
    actor TokenStore {
        func accessToken() async throws -> String { "stored" }
        func refreshedAccessToken() async throws -> String { "fresh" }
    }

    @Test("when the token store is async, should attach the token its closure returns")
    func asyncTokenProvider() async throws {
        let store = TokenStore()
        // sample: actions-async-token-provider
        let authentication: any NetworkModuleAction = .authentication(
            current: { try await store.accessToken() },
            refresh: { try await store.refreshedAccessToken() }
        )
        // end-sample
        struct Me: NetworkRequest {
            var path: String { "/me" }
            var requiresAuthentication: Bool { true }
        }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))

        _ = try await makeSampleModule(session: session, actions: [authentication]).perform(request: Me())

        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer stored")
    }

    @Test("when a request is signed with headers, should add the signature of its method, path, body and time")
    func signing() throws {
        let secretKey = "k-789"
        @Sendable func hmacHex(_ text: String, key: String) -> String { "\(text.utf8.count)-\(key.utf8.count)" }  // stand-in
        // sample: actions-signing
        let signing: any NetworkModuleAction = .signing(secrets: ["X-Signature"]) { request in
            let timestamp = String(Int(Date().timeIntervalSince1970))
            let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? ""
            let method = request.httpMethod ?? "GET", path = request.url?.path ?? "/"
            let signed = [method, path, timestamp, body].joined(separator: "\n")
            return .headers([
                "X-Timestamp": timestamp,
                "X-Signature": hmacHex(signed, key: secretKey),
            ])
        }
        // end-sample
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))

        makeSampleModule(session: session, actions: [signing]).perform(request: GetUser(id: 1)) { _ in }

        let sent = try #require(session.recordedRequests.first)
        #expect(sent.value(forHTTPHeaderField: "X-Timestamp") != nil)
        #expect(sent.value(forHTTPHeaderField: "X-Signature")?.hasSuffix("-5") == true)
        #expect(Redaction.default.isSecret(header: "X-Signature"))
    }

    @Test("when headers are injected, should add fixed ones, one request ID per request and computed ones per attempt")
    func headers() {
        // sample: actions-headers
        let actions: [any NetworkModuleAction] = [
            .headers(["User-Agent": "Notes/2.4.1", "Accept-Language": "pl-PL"]),
            .requestID(),  // X-Request-ID: the same UUID on every attempt of a request
            .header("X-Attempt") { context in "\(context.attempt)" },
        ]
        // end-sample
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        makeSampleModule(session: session, actions: actions).perform(request: GetUser(id: 1)) { _ in }

        let sent = session.recordedRequests.first
        #expect(sent?.value(forHTTPHeaderField: "Accept-Language") == "pl-PL")
        #expect(sent?.value(forHTTPHeaderField: "X-Attempt") == "1")
        #expect(sent?.value(forHTTPHeaderField: "X-Request-ID").flatMap(UUID.init(uuidString:)) != nil)
    }

    @Test("when logging with curl, should write the masked request, the response and a curl command")
    func logging() throws {
        // sample: actions-logging
        let logging: any NetworkModuleAction = .logging(
            redaction: .default.adding(headers: ["X-API-Key"], queryItems: ["token"]),
            maxBodyLength: 1024,
            curl: true,
            sink: { entry in print(entry) }
        )
        // end-sample
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"id":7}"#, status: 201))
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/v2/notes?token=abc")))
        request.httpMethod = "POST"
        request.setValue("k3y", forHTTPHeaderField: "X-Api-Key")  // as Linux's URLRequest spells it
        request.httpBody = Data(#"{"title":"Buy milk"}"#.utf8)

        let printed = Transcript.recording {
            makeSampleModule(session: session, actions: [logging]).perform(urlRequest: request) { _ in }
        }

        #expect(
            printed.map { $0.replacingOccurrences(of: "[0-9]+ ms", with: "N ms", options: .regularExpression) } == [
                """
                → POST https://api.example.com/v2/notes?token=REDACTED
                  X-Api-Key: REDACTED
                  {
                    "title" : "Buy milk"
                  }
                ← 201 POST https://api.example.com/v2/notes?token=REDACTED (N ms, 8 bytes)
                  Content-Type: application/json
                  {
                    "id" : 7
                  }
                curl \\
                  -X 'POST' \\
                  'https://api.example.com/v2/notes?token=REDACTED' \\
                  -H 'X-Api-Key: REDACTED' \\
                  --data-binary '{"title":"Buy milk"}'
                """
            ])
    }

    @Test("when metrics are reported, should give one line per request with its attempts, status and bytes")
    func metricsReported() {
        let printed = Transcript.recording {
            // sample: actions-metrics-builtin
            let metrics: any NetworkModuleAction = .metrics { metrics in
                print("\(metrics.method) \(metrics.url ?? "-") → \(metrics.statusCode ?? 0) in \(metrics.attempts) attempts, \(metrics.bytesReceived) bytes")
            }
            // end-sample
            let session = FakeNetworkSession()
            session.stub(.any, with: .text("busy", status: 503), .text("hello"))
            let scheduler = ManualDelayScheduler()
            makeSampleModule(
                session: session, actions: [RetryTransientFailures(maxAttempts: 3, firstDelay: 0), metrics],
                delayScheduler: scheduler
            ).perform(request: GetUser(id: 1)) { _ in }
            scheduler.runAll()
        }

        #expect(printed == ["GET https://api.example.com/v2/users/1 → 200 in 2 attempts, 9 bytes"])
    }

    @Test("when a response is a listed status or an error envelope, should fail it")
    func validation() {
        // sample: actions-validation
        struct ErrorEnvelope: Decodable, Error {
            let error: String
        }

        let actions: [any NetworkModuleAction] = [
            .failing(statusCodes: [299]),  // fails as .unacceptableStatusCode, with the body
            .validate { response in
                if let envelope = try? response.decode(ErrorEnvelope.self) { throw envelope }
            },
        ]
        // end-sample
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(299))
        session.stub(.path("/v2/users/2"), with: .json(#"{"error":"quota exceeded"}"#))
        let delivered = LockedLines()
        let module = makeSampleModule(session: session, actions: actions)

        module.perform(request: GetUser(id: 1)) { result in
            if case .failure(.unacceptableStatusCode(let response)) = result { delivered.append("\(response.statusCode)") }
        }
        module.perform(request: GetUser(id: 2)) { result in
            if case .failure(.actionFailed(_, let envelope as ErrorEnvelope)) = result {
                delivered.append(envelope.error)
            }
        }

        #expect(delivered.lines == ["299", "quota exceeded"])
    }
}
