import Foundation
@testable import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Combine)
    import Combine
#endif

/// The samples of docs/migration.md, every "after" it shows, and tests of what its tables claim
/// (the ancestor's executors, its 3xx rule, its own `URLSession` calls). The "before" snippets that
/// need the ancestor module's or Alamofire's own types are not compiled: this package depends on neither.
@Suite("Migration samples")
struct MigrationSamples {
    struct Character: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    struct NewCharacter: Encodable, Sendable {
        let name: String
    }

    // MARK: - From the ancestor module

    // sample: migration-request
    struct FetchCharacters: NetworkRequest {
        let species: String
        var path: String { "/character" }
        var method: HTTPMethod { .get }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "species", value: species)] }
        var cachePolicy: URLRequest.CachePolicy? { .reloadIgnoringLocalCacheData }
    }

    struct CreateCharacter: NetworkRequest {
        let character: NewCharacter
        var path: String { "/character" }
        var method: HTTPMethod { .post }
        var headers: HTTPHeaders { ["X-Client": "ios"] }
        var body: RequestBody? { .json(character) }
        var requiresAuthentication: Bool { true }
    }
    // end-sample

    // sample: migration-action
    struct LogNetworkModuleAction: NetworkModuleAction {
        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
            print("→ \(urlRequest.httpMethod ?? "GET") \(urlRequest.url?.absoluteString ?? "")")
        }

        func performAfterExecutingNetworkRequest(request: (any NetworkRequest)?, networkResponse: NetworkResponse) {
            print("← \(networkResponse.statusCode) \(networkResponse.request.url?.absoluteString ?? "")")
        }
    }
    // end-sample

    @Test("when an ancestor call site is migrated, should build, send, log and decode as before")
    func ancestorCallSite() {
        let session = FakeNetworkSession()
        session.stub(.path("/api/v0/character"), with: .json([Character(id: 1, name: "Gary")]))

        let printed = Transcript.recording {
            let networkModule = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(
                    baseURL: URL(string: "https://finalspaceapi.com/api/v0")!,
                    defaultHeaders: ["Accept": "application/json"]
                ),
                session: session,  // URLSessionTransport.shared when left out
                actions: [LogNetworkModuleAction()],
                completionExecutor: .immediate  // .main when left out
            )

            let request = FetchCharacters(species: "Human")
            networkModule.performAndDecode(request: request, responseType: [Character].self) { result in
                switch result {
                case .success(let characters):
                    print("Characters: \(characters.map(\.name))")
                case .failure(let error):
                    print("Request failed: \(error)")
                }
            }
        }

        #expect(
            printed == [
                "→ GET https://finalspaceapi.com/api/v0/character?species=Human",
                "← 200 https://finalspaceapi.com/api/v0/character?species=Human",
                #"Characters: ["Gary"]"#,
            ])
        let sent = session.recordedRequests.first
        #expect(sent?.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(sent?.cachePolicy == .reloadIgnoringLocalCacheData)
    }

    @Test("when a request with a JSON body is migrated, should send the body, its content type and the header")
    func ancestorBody() throws {
        let builder = DefaultRequestBuilder(baseURL: URL(string: "https://finalspaceapi.com/api/v0")!)

        let request = try builder.build(request: CreateCharacter(character: NewCharacter(name: "Mooncake")))

        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.value(forHTTPHeaderField: "X-Client") == "ios")
        #expect(try request.bodyJSONObject() as? [String: String] == ["name": "Mooncake"])
    }

    @Test("when a cancelled request is migrated, should complete with .cancelled, which the old module never did")
    func ancestorCancel() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .json([Character(id: 1, name: "Gary")]))
        let networkModule = makeSampleModule(session: session)

        let printed = Transcript.recording {
            // sample: migration-cancel
            let task = networkModule.perform(request: FetchCharacters(species: "Human")) { result in
                switch result {
                case .success(let response): print("Status \(response.statusCode)")
                case .failure(.cancelled): print("Cancelled: hide the spinner")
                case .failure(let error): print("Failed: \(error)")
                }
            }
            task.cancel()
            // end-sample
        }
        session.releaseAll()

        #expect(printed == ["Cancelled: hide the spinner"])
    }

    // sample: migration-errors
    func message(for error: NetworkError) -> String {
        switch error {
        case .notFound: "Not found"  // was .notFound
        case .unauthorized, .forbidden: "Sign in again"  // was .unauthorized, .forbidden
        case .clientError(let response): "Rejected (\(response.statusCode)): \(response.bodyText ?? "")"  // was .invalidRequest(code:message:)
        case .serverError(let response): "Server error \(response.statusCode)"  // was .serverError(code:message:)
        case .decodingFailed(let failure): "Unexpected data: \(failure)"  // was .responseParsingFailed
        case .noResponseData: "Empty response"  // was .noResponseData
        case .cancelled: ""  // never delivered before
        default: "Network problem: \(error)"  // was .unknown or .custom
        }
    }
    // end-sample

    @Test("when errors are mapped the new way, should keep the status and body the old cases dropped")
    func ancestorErrors() {
        let rejected = NetworkError.clientError(HTTPErrorResponse(statusCode: 422, body: Data("name is empty".utf8)))

        #expect(message(for: rejected) == "Rejected (422): name is empty")
        #expect(message(for: .notFound(HTTPErrorResponse(statusCode: 404))) == "Not found")
        #expect(message(for: .timedOut) == "Network problem: \(NetworkError.timedOut)")
    }

    @Test("when an ancestor async call site is migrated, should throw NetworkError")
    func ancestorAsync() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(404))
        let networkModule = makeSampleModule(session: session)

        let printed = await Transcript.recording {
            // sample: migration-async
            do throws(NetworkError) {
                let characters = try await networkModule.performAndDecode(
                    request: FetchCharacters(species: "Human"), responseType: [Character].self)
                print(characters.count)
            } catch .notFound {
                print("No such resource")
            } catch {
                print(message(for: error))
            }
            // end-sample
        }

        #expect(printed == ["No such resource"])
    }

    // MARK: - Ancestor: what compiles unchanged, and the new pieces

    @Test("when a file imports the framework, the ancestor's own URLSession calls should compile unchanged")
    func urlSessionUnchanged() {
        let request = URLRequest(url: URL(string: "https://finalspaceapi.com/api/v0/character")!)

        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            print("Legacy call finished: \(error == nil ? "ok" : "failed")")
        }

        #expect(task.originalRequest?.url == request.url)
        task.cancel()
    }

    @Test("when the ancestor's session: URLSession.shared is kept, should compile and wrap the shared session")
    func moduleWithURLSession() {
        // sample: migration-module-urlsession
        let networkModule = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://finalspaceapi.com/api/v0")!),
            session: URLSession.shared,
            actions: [LogNetworkModuleAction()],
            completionExecutor: .main
        )
        // end-sample

        #expect((networkModule.session as? URLSessionAdapter)?.urlSession === URLSession.shared)
        #expect(networkModule.actions.count == 1)
    }

    // sample: migration-request-builder
    struct ClientHeaderBuilder: RequestBuilder {
        let base = DefaultRequestBuilder(baseURL: URL(string: "https://finalspaceapi.com/api/v0")!)
        var baseURL: URL? { base.baseURL }

        func build(request: any NetworkRequest) throws(NetworkError) -> URLRequest {
            var urlRequest = try base.build(request: request)
            urlRequest.setValue("ios", forHTTPHeaderField: "X-Client")
            return urlRequest
        }
    }
    // end-sample

    @Test("when a builder wraps the default one, should build its requests and add to them, throwing its errors")
    func requestBuilder() throws {
        let builder = ClientHeaderBuilder()

        let request = try builder.build(request: FetchCharacters(species: "Human"))

        #expect(request.url?.absoluteString == "https://finalspaceapi.com/api/v0/character?species=Human")
        #expect(request.value(forHTTPHeaderField: "X-Client") == "ios")
        #expect(builder.baseURL == builder.base.baseURL)
    }

    @Test("when the module accepts 200 to 399, should deliver a 304 as a success, as the ancestor did")
    func statusCodes() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(304))
        let results = LockedLines()

        let networkModule = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://finalspaceapi.com/api/v0")!),
            session: session,
            completionExecutor: .immediate,
            acceptableStatusCodes: AcceptableStatusCodes(200..<400)  // the ancestor's success range
        )
        networkModule.perform(request: FetchCharacters(species: "Human")) { result in
            results.append("\((try? result.get())?.statusCode ?? -1)")
        }

        #expect(results.lines == ["304"])
    }

    @Test("when a response is read the new way, should give the header, status, decoded body and bytes")
    func response() throws {
        let json = try JSONEncoder().encode([Character(id: 1, name: "Gary")])
        let response = try NetworkResponse.make(statusCode: 200, headers: ["Access-Token": "t-9"], body: json)

        let printed = try Transcript.recording {
            // sample: migration-response
            let token = response.headers["Access-Token"]  // was networkResponse.networkResponse.allHeaderFields
            let status = response.httpResponse.statusCode  // was networkResponse.networkResponse.statusCode
            let characters = try response.decode([Character].self)  // was decoded(into:), a Result
            let body: Data = response.data  // never nil: empty when the server sent none
            print("\(status), \(body.count) bytes, \(characters.count) characters, token: \(token ?? "none")")
            // end-sample
        }

        #expect(printed == ["200, \(json.count) bytes, 1 characters, token: t-9"])
        #expect(response == (try NetworkResponse.make(statusCode: 200, headers: ["access-token": "t-9"], body: json)))
    }

    @Test("when the ancestor's raw token header is kept, should send Access-Token with the raw token, to the API only")
    func constantToken() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(201))

        // sample: migration-token
        let networkModule = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://finalspaceapi.com/api/v0")!),
            session: session,
            actions: [.authentication("secret-token", scheme: .header("Access-Token"))],  // Access-Token: secret-token
            completionExecutor: .immediate
        )
        // end-sample
        networkModule.perform(request: CreateCharacter(character: NewCharacter(name: "Mooncake"))) { _ in }
        networkModule.perform(request: FetchCharacters(species: "Human")) { _ in }

        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "Access-Token") } == ["secret-token", nil])
        #expect(session.recordedRequests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
    }

    /// Where the sample's provider keeps its token: an app's keychain wrapper, say.
    final class TokenStore: Sendable {
        private let token = LockedState("t-1")
        var accessToken: String { token.withLock { $0 } }

        func refresh(completion: @Sendable (Result<String, any Error>) -> Void) {
            completion(.success(token.withLock { token in
                token = "t-2"
                return token
            }))
        }
    }

    // sample: migration-token-provider
    struct SessionTokens: AccessTokenProvider {
        let store: TokenStore

        // was: var authenticationToken: String { store.accessToken }
        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(.success(store.accessToken))
        }

        // new: asked once when the server answers 401, however many requests failed together
        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            store.refresh { result in completion(result) }
        }
    }
    // end-sample

    @Test("when a changing token is rejected, should refresh it once and send the request again with the new one")
    func tokenProvider() {
        let session = FakeNetworkSession()
        session.stub(.header("Access-Token", "t-1"), with: .status(401))
        session.stub(.header("Access-Token", "t-2"), with: .status(201))
        let store = TokenStore()
        let results = LockedLines()
        let networkModule = makeSampleModule(
            session: session, actions: [.authentication(SessionTokens(store: store), scheme: .header("Access-Token"))])

        networkModule.perform(request: CreateCharacter(character: NewCharacter(name: "Mooncake"))) { result in
            results.append("\((try? result.get())?.statusCode ?? -1)")
        }

        #expect(results.lines == ["201"])
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "Access-Token") } == ["t-1", "t-2"])
    }

    struct PrintingSession: NetworkSession {
        let wrapped: any NetworkSession

        func dataTask(
            with request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            print("Sending \(request.url?.absoluteString ?? "")")
            return wrapped.dataTask(with: request, completionHandler: completionHandler)
        }
    }

    @Test("when a session wraps another, should see each request and return the wrapped session's task")
    func session() {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .status(200))
        let networkModule = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: PrintingSession(wrapped: fake),
            completionExecutor: .immediate)

        let printed = Transcript.recording {
            networkModule.perform(request: FetchCharacters(species: "Human")) { result in
                print("\((try? result.get())?.statusCode ?? -1)")
            }
        }

        #expect(printed == ["Sending https://api.example.com/v2/character?species=Human", "200"])
    }

    @Test("when errors are made from a status, a response and an NSError, should map them as the module does")
    func errorConversions() throws {
        let url = URL(string: "https://finalspaceapi.com/api/v0/character")!
        let httpResponse = try HTTPURLResponse.make(url: url, statusCode: 503)
        let data = Data("down for maintenance".utf8)
        let nsError = NSError(domain: "com.example.vpn", code: 404)

        let printed = Transcript.recording {
            // sample: migration-error-conversions
            let fromStatus = NetworkError(statusCode: 404)  // was NetworkError(code: 404, message: nil), 404.toNetworkError()
            let fromResponse = NetworkError(response: httpResponse, body: data)  // was NetworkError(urlResponse:), httpResponse.toNetworkError()
            let fromError = NetworkError(nsError)  // was NetworkError(error: nsError)
            print(fromStatus, fromResponse, fromError, separator: "\n")
            // end-sample
        }

        #expect(printed.count == 1)
        #expect(NetworkError(statusCode: 404) == .notFound(HTTPErrorResponse(statusCode: 404)))
        #expect(NetworkError(response: httpResponse, body: data).httpErrorResponse?.bodyText == "down for maintenance")
        #expect(NetworkError(response: httpResponse, body: data).statusCode == 503)
        guard case .underlying(let underlying) = NetworkError(nsError) else {
            Issue.record("an NSError outside NSURLErrorDomain should be .underlying")
            return
        }
        #expect((underlying as NSError).domain == "com.example.vpn" && (underlying as NSError).code == 404)
    }

    @Test("when the ancestor's executors are mapped, should deliver on main, the shared serial queue, or a concurrent one")
    func executors() {
        let builder = DefaultRequestBuilder(baseURL: sampleBaseURL)

        let onMain = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .main)  // MainQueueOperationsExecutor()
        let serial = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .background)  // BackgroundQueueOperationsExecutor()
        let concurrent = DefaultNetworkModule(
            requestBuilder: builder, completionExecutor: .queue(.global(qos: .userInitiated)))  // the ancestor's concurrent delivery

        #expect((onMain.completionExecutor as? BuiltInExecutor)?.deliveryQueue?.label == DispatchQueue.main.label)
        #expect((serial.completionExecutor as? BuiltInExecutor)?.deliveryQueue === BuiltInExecutor.background.deliveryQueue)
        #expect(
            (concurrent.completionExecutor as? BuiltInExecutor)?.deliveryQueue?.label
                == DispatchQueue.global(qos: .userInitiated).label)
    }

    #if canImport(Combine)
        @Test("when the ancestor's Combine call is migrated, should publish the decoded value, then finish")
        func combine() {
            let session = FakeNetworkSession()
            session.stub(.any, with: .json([Character(id: 1, name: "Gary")]))
            let networkModule = makeSampleModule(session: session)
            var cancellables = Set<AnyCancellable>()

            let printed = Transcript.recording {
                // sample: migration-combine
                networkModule.performAndDecodePublisher(request: FetchCharacters(species: "Human"), responseType: [Character].self)
                    .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count) })
                    .store(in: &cancellables)
                // end-sample
            }

            #expect(printed == ["1", "finished"])
            #expect(cancellables.count == 1)
        }
    #endif

    // MARK: - From Alamofire

    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
    }

    struct User: Codable, Sendable {
        let id: Int
        let name: String
    }

    @Test("when an Alamofire responseDecodable call is migrated, should validate the status and decode")
    func alamofireRequest() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .json(User(id: 1, name: "Ada")))
        session.stub(.path("/v2/users/2"), with: .text("Gone", status: 410))
        let module = makeSampleModule(session: session)

        let printed = Transcript.recording {
            for id in [1, 2] {
                // sample: migration-alamofire-request
                module.performAndDecode(request: GetUser(id: id), responseType: User.self) { result in
                    switch result {
                    case .success(let user):
                        print("Hello, \(user.name)")
                    case .failure(let error):
                        print("Failed with status \(error.statusCode.map(String.init) ?? "none"): \(error)")
                    }
                }
                // end-sample
            }
        }

        #expect(
            printed == [
                "Hello, Ada",
                "Failed with status 410: HTTP 410 from https://api.example.com/v2/users/2: "
                    + "the resource is gone for good. Check whether the API has moved it.",
            ])
    }

    // sample: migration-alamofire-interceptor
    struct APIKeyAction: NetworkModuleAction {
        let key: String

        // RequestInterceptor.adapt(_:for:completion:)
        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            guard context.isSameOrigin(as: urlRequest.url) else { return completion(.success(urlRequest)) }
            var adapted = urlRequest
            adapted.setValue(key, forHTTPHeaderField: "X-API-Key")
            completion(.success(adapted))
        }

        // RequestRetrier.retry(_:for:dueTo:completion:)
        func retryDecision(
            for error: NetworkError, context: ActionContext,
            completion: @escaping @Sendable (RetryDecision) -> Void
        ) {
            completion(error.statusCode == 429 && context.attempt < 3 ? .retryAfter(2) : .doNotRetry)
        }
    }
    // end-sample

    @Test("when an interceptor is migrated to an action, should adapt requests to the API and retry 429s")
    func alamofireInterceptor() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), sequence: [.status(429), .json(User(id: 1, name: "Ada"))])
        let scheduler = ManualDelayScheduler()
        let module = makeSampleModule(session: session, actions: [APIKeyAction(key: "k-1")], delayScheduler: scheduler)
        let statuses = LockedLines()

        module.perform(request: GetUser(id: 1)) { result in statuses.append("\((try? result.get())?.statusCode ?? -1)") }
        scheduler.runAll()

        #expect(statuses.lines == ["200"])
        #expect(scheduler.requestedDelays == [2])
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "X-API-Key") } == ["k-1", "k-1"])
    }

    struct GetMe: NetworkRequest {
        var path: String { "/me" }
        var requiresAuthentication: Bool { true }
    }

    struct StoredTokens: AccessTokenProvider {
        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) { completion(.success("t-1")) }
        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) { completion(.success("t-2")) }
    }

    @Test("when Alamofire's interceptors and monitors are migrated, should use the built-in actions")
    func alamofireBuiltIns() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(User(id: 1, name: "Ada")))
        let tokens = StoredTokens()

        let printed = Transcript.recording {
            // sample: migration-alamofire-session
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
                session: session,
                actions: [
                    .authentication(tokens),  // AuthenticationInterceptor
                    .retry(.default),  // RetryPolicy
                    .logging(headers: false, bodies: false, sink: { print($0) }),  // an EventMonitor that logs
                    .metrics { metrics in print("\(metrics.attempts) attempt(s), \(metrics.bytesReceived) bytes") },
                ],
                completionExecutor: .immediate
            )
            // end-sample
            module.perform(request: GetUser(id: 1)) { _ in }
            module.perform(request: GetMe()) { _ in }
        }

        let logged = printed.first?.components(separatedBy: "\n") ?? []
        #expect(logged.count == 2)
        #expect(logged.first == "→ GET https://api.example.com/v2/users/1")
        #expect(logged.last?.hasPrefix("← 200 GET https://api.example.com/v2/users/1 (") == true)
        #expect(printed[1] == "1 attempt(s), 21 bytes")
        #expect(printed.count == 4)
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == [nil, "Bearer t-1"])
    }
}
