import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of docs/testing.md.
@Suite("Testing samples")
struct TestingSamples {
    // sample: testing-view-model
    struct User: Decodable, Sendable {
        let id: Int
        let name: String
    }

    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
        var requiresAuthentication: Bool { true }  // sent with the user's token, when the module has one
    }

    @MainActor
    final class ProfileViewModel {
        enum State: Equatable { case idle, loading, loaded(name: String), failed(message: String) }

        private(set) var state = State.idle
        private let module: any NetworkModule
        private var request: (any NetworkCancellable)?

        init(module: any NetworkModule) {
            self.module = module
        }

        func load(userID: Int) {
            request?.cancel()
            state = .loading
            request = module.performAndDecode(request: GetUser(id: userID), responseType: User.self) { result in
                // On the main actor: the executor is `.main` in the app; in tests, `.immediate` (the
                // request completes inside this call) or a `RecordingExecutor` the test delivers.
                MainActor.assumeIsolated { self.show(result) }
            }
        }

        func cancel() {
            request?.cancel()
        }

        private func show(_ result: Result<User, NetworkError>) {
            switch result {
            case .success(let user): state = .loaded(name: user.name)
            case .failure(.notFound): state = .failed(message: "No such user")
            case .failure(.cancelled): state = .idle
            case .failure(let error): state = .failed(message: error.isRetryable ? "Try again" : "Something went wrong")
            }
        }
    }
    // end-sample

    // sample: testing-view-model-tests
    @MainActor
    @Suite("ProfileViewModel")
    struct ProfileViewModelTests {
        let session = FakeNetworkSession()
        let viewModel: ProfileViewModel

        init() {
            viewModel = ProfileViewModel(
                module: DefaultNetworkModule(
                    requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
                    session: session, completionExecutor: .immediate))
        }

        @Test("when a user loads, should show the name")
        func loads() {
            session.stub(.path("/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))

            viewModel.load(userID: 1)

            #expect(viewModel.state == .loaded(name: "Ada"))
            #expect(session.recordedRequests.map(\.url?.path) == ["/users/1"])
        }
    }
    // end-sample

    /// A token store written with async/await, as in docs/actions.md.
    actor TokenStore {
        func accessToken() async throws -> String { "t0ken" }
    }

    @MainActor
    @Test("when the token comes from an async store, the view model should show the name once the test delivers")
    func viewModelWithAsynchronousAction() async {
        let store = TokenStore()
        // sample: testing-async-actions
        let session = FakeNetworkSession()
        session.stub(.path("/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))
        let executor = RecordingExecutor(holdingDeliveries: true)
        let viewModel = ProfileViewModel(
            module: DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
                session: session,
                actions: [.authentication(current: { try await store.accessToken() })],
                completionExecutor: executor))

        viewModel.load(userID: 1)
        #expect(viewModel.state == .loading)  // the token comes later, on another thread

        #expect(await executor.deliver())  // waits for the completion and runs it here, on the main actor
        #expect(viewModel.state == .loaded(name: "Ada"))
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer t0ken")
        // end-sample
    }

    @MainActor
    @Test("when the server is down and then back, the view model should offer to try again, then show the name")
    func viewModelTryAgain() {
        let session = FakeNetworkSession()
        session.stub(.path("/users/1"), with: .status(503), .json(#"{"id": 1, "name": "Ada"}"#))
        let viewModel = ProfileViewModel(
            module: DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
                session: session, completionExecutor: .immediate))

        viewModel.load(userID: 1)
        let afterFirstTry = viewModel.state
        viewModel.load(userID: 1)

        #expect(afterFirstTry == .failed(message: "Try again"))
        #expect(viewModel.state == .loaded(name: "Ada"))
    }

    @MainActor
    @Test("when the view model's cancellation sample runs, should go back to idle, ignore the late answer, and deliver once")
    func viewModelCancellation() {
        // sample: testing-cancellation
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.path("/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))
        let executor = RecordingExecutor()
        let viewModel = ProfileViewModel(
            module: DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
                session: session, completionExecutor: executor))

        viewModel.load(userID: 1)
        #expect(viewModel.state == .loading)
        #expect(session.heldCount == 1)

        viewModel.cancel()
        session.releaseAll()  // the answer arrives after the cancel: it is dropped

        #expect(viewModel.state == .idle)
        #expect(executor.deliveryCount == 1)  // .cancelled, once
        // end-sample
    }

    @Test("when the ordering sample runs, should answer the newest request first")
    func ordering() {
        let lines = Transcript.recording {
            let session = FakeNetworkSession(holdingResponses: true)
            session.stub(.pathPrefix("/users")) { request in .json(#"{"id": 0, "name": "\#(request.url?.lastPathComponent ?? "")"}"#) }
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
                session: session, completionExecutor: .immediate)
            for id in 1...3 {
                module.performAndDecode(request: GetUser(id: id), responseType: User.self) { result in
                    print("user", (try? result.get().name) ?? "failed")
                }
            }

            // sample: testing-ordering
            session.release(.path("/users/2"))  // a chosen request first
            session.releaseLast()               // then the newest
            session.releaseNext()               // then the oldest
            // end-sample
        }

        #expect(lines == ["user 2", "user 3", "user 1"])
    }

    @Test("when the stubbing sample runs, should answer each request from its stub")
    func stubs() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47])
        let builder = DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!)

        // sample: testing-stubs
        let session = FakeNetworkSession()
        session.stub(.method(.get) && .path("/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))
        session.stub(.pathPattern("/users/[0-9]+/avatar"), with: .status(200, headers: ["Content-Type": "image/png"], body: png))
        session.stub(.method(.post) && .jsonBody(#"{"name": "Grace"}"#), with: .json(#"{"id": 2, "name": "Grace"}"#, status: 201))
        session.stub(.path("/feed"), with: .status(503), .status(503), .json("[]"))  // down twice, then up
        session.stub(.query("page", "9"), with: .error(.timedOut))
        session.stub(.header("X-Debug", "echo")) { request in .text(request.url?.path ?? "") }
        // end-sample

        let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: .immediate)
        struct Endpoint: NetworkRequest {
            var path: String
            var method: HTTPMethod = .get
            var queryItems: [URLQueryItem] = []
            var headers: HTTPHeaders = [:]
            var body: RequestBody? = nil
        }
        let results = LockedState<[String]>([])
        let record: @Sendable (Result<NetworkResponse, NetworkError>) -> Void = { result in
            results.withLock {
                switch result {
                case .success(let response): $0.append("\(response.statusCode) \((try? response.text()) ?? "")")
                case .failure(let error): $0.append("\(error)")
                }
            }
        }
        for endpoint in [
            Endpoint(path: "/users/1"), Endpoint(path: "/users/1/avatar"),
            Endpoint(path: "/users", method: .post, body: .data(Data(#"{"name":"Grace"}"#.utf8), contentType: "application/json")),
            Endpoint(path: "/feed"), Endpoint(path: "/feed"), Endpoint(path: "/feed"),
            Endpoint(path: "/search", queryItems: [URLQueryItem(name: "page", value: "9")]),
            Endpoint(path: "/anything", headers: ["X-Debug": "echo"]),
        ] {
            module.perform(request: endpoint, completion: record)
        }

        let seen = results.withLock { $0 }
        #expect(seen.count == 8)
        #expect(seen[0] == #"200 {"id": 1, "name": "Ada"}"#)
        #expect(seen[1].hasPrefix("200 "))
        #expect(seen[2] == #"201 {"id": 2, "name": "Grace"}"#)
        #expect(seen[3] == seen[4])
        #expect(seen[3] != seen[5])
        #expect(seen[5] == "200 []")
        #expect(seen[6] == "\(NetworkError.timedOut)")
        #expect(seen[7] == "200 /anything")
    }

    @Test("when the unmatched-request hook sample runs, should build a session that reports to the test")
    func unmatchedHook() {
        let session = FakeNetworkSession(onUnmatchedRequest: { Issue.record(Comment(rawValue: $0)) })

        session.stub(.any, with: .status(204))
        let answered = LockedState(0)
        session.dataTask(with: URLRequest(url: URL(string: "https://api.example.com/x")!)) { _, _, _ in
            answered.withLock { $0 += 1 }
        }.resume()
        #expect(answered.withLock { $0 } == 1)
        #expect(session.unmatchedRequests.isEmpty)
    }

    @Test("when the recorded-bodies sample runs, should read back what was sent")
    func recordedBodies() throws {
        struct NewUser: Codable, Equatable, Sendable {
            let name: String
        }
        struct CreateUser: NetworkRequest {
            var path: String { "/users" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { .json(NewUser(name: "Grace")) }
        }
        struct Login: NetworkRequest {
            var path: String { "/login" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { .formURLEncoded(["user": "grace", "password": "a&b c"]) }
        }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(204))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
            session: session, completionExecutor: .immediate)
        module.perform(request: CreateUser()) { _ in }
        module.perform(request: Login()) { _ in }

        // sample: testing-recorded-bodies
        let create = session.recordedRequests[0]
        #expect(create.httpMethod == "POST")
        #expect(try create.bodyJSON(as: NewUser.self) == NewUser(name: "Grace"))
        #expect(try create.bodyJSONObject() as? [String: String] == ["name": "Grace"])

        let login = session.recordedRequests[1]
        #expect(try login.bodyFormFields() == [
            URLQueryItem(name: "user", value: "grace"),
            URLQueryItem(name: "password", value: "a&b c"),
        ])
        #expect(try login.bodyText().hasPrefix("user=grace&password="))
        // end-sample
    }

    @Test("when the delay sample runs, should answer only when the test clock has advanced")
    func delays() {
        let lines = Transcript.recording {
            // sample: testing-delays
            let clock = ManualDelayScheduler()
            let session = FakeNetworkSession(delayScheduler: clock)
            session.stub(.path("/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#).delayed(by: 2))
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
                session: session, completionExecutor: .immediate)

            module.performAndDecode(request: GetUser(id: 1), responseType: User.self) { result in
                print("loaded", (try? result.get().name) ?? "nothing")
            }
            print("waiting")
            clock.advance(by: 2)  // the answer arrives now, on this thread
            // end-sample
        }

        #expect(lines == ["waiting", "loaded Ada"])
    }

    @Test("when a request is cancelled twice and its answer comes late, should deliver once")
    func exactlyOnce() {
        let executor = RecordingExecutor()
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
            session: session,
            completionExecutor: executor
        )

        let task = module.perform(request: GetUser(id: 1)) { _ in }
        task.cancel()
        session.releaseAll()
        task.cancel()

        #expect(executor.deliveryCount == 1)  // .cancelled, once; the late answer is dropped
    }

    @MainActor
    @Test("when the fake module sample runs, should drive the view model without a session")
    func fakeModule() {
        // sample: testing-fake-module
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .json(#"{"id": 1, "name": "Ada"}"#))
        module.stub(GetUser.self, where: { $0.id == 2 }, with: .status(404))
        let viewModel = ProfileViewModel(module: module)

        viewModel.load(userID: 1)
        #expect(viewModel.state == .loaded(name: "Ada"))
        viewModel.load(userID: 2)
        #expect(viewModel.state == .failed(message: "No such user"))

        #expect(module.performed(GetUser.self).map(\.id) == [1, 2])
        // end-sample
    }

    // sample: testing-record
    func recordProfile(backend: some NetworkSession, to file: URL) async throws {
        let recorder = HARRecordingSession(wrapping: backend, redaction: .default.adding(headers: ["X-API-Key"]))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(
                baseURL: URL(string: "https://api.example.com")!, defaultHeaders: ["X-API-Key": "development-key"]),
            session: recorder, completionExecutor: .immediate)
        _ = try await module.performAndDecode(request: GetUser(id: 1), responseType: User.self)
        _ = try? await module.performAndDecode(request: GetUser(id: 2), responseType: User.self)
        try recorder.write(to: file)
    }
    // end-sample

    @MainActor
    @Test("when the record and replay samples run, should replay what was recorded into the view model")
    func recordAndReplay() async throws {
        let backend = FakeNetworkSession()
        backend.stub(.path("/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))
        backend.stub(.path("/users/2"), with: .status(404))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("testing-sample-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try await recordProfile(backend: backend, to: file)
        #expect(!String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("development-key"))

        // sample: testing-replay
        let replay = try HARReplaySession(contentsOf: file, onMiss: { Issue.record(Comment(rawValue: $0)) })
        let viewModel = ProfileViewModel(
            module: DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
                session: replay, completionExecutor: .immediate))

        viewModel.load(userID: 1)
        #expect(viewModel.state == .loaded(name: "Ada"))
        viewModel.load(userID: 2)
        #expect(viewModel.state == .failed(message: "No such user"))
        // end-sample
    }

    @Test("when the one-line response sample runs, should make responses to feed code that consumes them")
    func makeResponses() throws {
        // sample: testing-make-responses
        let response = try NetworkResponse.make(json: #"{"id": 1, "name": "Ada"}"#)
        let user = try response.decode(User.self)
        let created = try NetworkResponse.make(statusCode: 201, headers: ["Location": "/users/2"])
        let notFound = try HTTPURLResponse.make(statusCode: 404)
        // end-sample

        #expect(user.name == "Ada")
        #expect(created.headers["Location"] == "/users/2")
        #expect(notFound.statusCode == 404)
    }
}
