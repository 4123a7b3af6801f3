import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Typed perform and send")
struct TypedPerformTests {
    struct GetUser: TypedRequest {
        typealias Response = User
        let id: Int
        var path: String { "/users/\(id)" }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    struct GetUserPlist: TypedRequest {
        typealias Response = User
        var path: String { "/users/1.plist" }
        var decoder: (any ResponseDecoder)? { PropertyListDecoder() }
    }

    struct DeleteUser: TypedRequest {
        typealias Response = Void
        var path: String { "/users/1" }
        var method: HTTPMethod { .delete }
    }

    func plist(_ user: User) throws -> StubbedResponse {
        .status(200, headers: ["Content-Type": "application/x-plist"], body: try PropertyListEncoder().encode(user))
    }

    @Test("when a typed request succeeds, should deliver its decoded response once through the executor")
    func deliversDecodedResponse() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))
        let executor = RecordingExecutor()
        let results = ResultCollector<User>()

        makeModule(session: session, executor: executor).perform(GetUser(id: 1), completion: results.completion)

        #expect(results.singleValue == User(id: 1, name: "Ada"))
        #expect(executor.deliveryCount == 1)
    }

    @Test("when the body does not decode, should fail with decodingFailed, and the actions should see that failure")
    func decodingFailureIsTheOutcome() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"id": "one"}"#))
        let probe = ProbeAction()
        let results = ResultCollector<User>()

        makeModule(session: session, actions: [probe]).perform(GetUser(id: 1), completion: results.completion)

        guard case .decodingFailed? = results.singleError else {
            Issue.record("expected decodingFailed, got \(String(describing: results.single))")
            return
        }
        guard case .failure(.decodingFailed)? = probe.log.value.finished.first else {
            Issue.record("didFinish saw \(probe.log.value.finished)")
            return
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test("when the module has another decoder, should decode typed requests with it")
    func moduleDecoder() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: try plist(User(id: 2, name: "Grace")))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            completionExecutor: .immediate, decoder: PropertyListDecoder())
        let results = ResultCollector<User>()

        module.perform(GetUser(id: 2), completion: results.completion)

        #expect(results.singleValue == User(id: 2, name: "Grace"))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test("when a request names its own decoder, should use it instead of the module's")
    func requestDecoderOverridesModule() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: try plist(User(id: 3, name: "Edsger")))
        let results = ResultCollector<User>()

        makeModule(session: session).perform(GetUserPlist(), completion: results.completion)

        #expect(results.singleValue == User(id: 3, name: "Edsger"))
    }

    @Test("when a Void request gets 204, should succeed; when it gets 404, should fail with notFound")
    func voidResponse() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(204), .status(404))
        let results = ResultCollector<Void>()
        let module = makeModule(session: session)

        module.perform(DeleteUser(), completion: results.completion)
        module.perform(DeleteUser(), completion: results.completion)

        #expect(results.count == 2)
        if case .success = results.results.first {} else { Issue.record("expected success") }
        #expect(results.results.last?.statusError == 404)
    }

    @Test("when cancelled in flight, should deliver .cancelled once through the executor and drop the late answer")
    func cancellation() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .json(#"{"id": 1, "name": "Ada"}"#))
        let executor = RecordingExecutor()
        let results = ResultCollector<User>()
        let handle = makeModule(session: session, executor: executor).perform(
            GetUser(id: 1), completion: results.completion)

        handle.cancel()
        session.releaseAll()

        #expect(results.singleError == .cancelled)
        #expect(executor.deliveryCount == 1)
    }

    @Test("when sent with async/await, should return the typed value")
    func send() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"id": 1, "name": "Ada"}"#))

        let user = try await makeModule(session: session).send(GetUser(id: 1))

        #expect(user == User(id: 1, name: "Ada"))
    }

    @Test("when the Task is cancelled before send, should throw .cancelled and send nothing")
    func sendCancelled() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"id": 1, "name": "Ada"}"#))
        let module = makeModule(session: session)

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await module.send(GetUser(id: 1))
        }
        let result = await task.result

        #expect(throws: NetworkError.cancelled) { try result.get() }
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when a custom module implements only the untyped methods, should decode typed requests on top of them")
    func protocolDefault() {
        let inner = makeModule(
            session: {
                let session = FakeNetworkSession()
                session.stub(.any, with: .json(#"{"id": 5, "name": "Barbara"}"#))
                return session
            }())
        let module: any NetworkModule = HandWrittenModule(inner: inner)
        let results = ResultCollector<User>()

        module.perform(GetUser(id: 5), completion: results.completion)

        #expect(results.singleValue == User(id: 5, name: "Barbara"))
    }
}

@Suite("Existing call forms beside typed requests")
struct ExistingCallFormsTests {
    struct GetUser: TypedRequest {
        typealias Response = User
        var path: String { "/users/1" }
    }

    // Compiling is the test: each call keeps the meaning it had before typed requests existed.
    @Test("when a typed request goes to the untyped methods, should get the NetworkResponse and decode as before")
    func oldFormsCompileAndKeepTheirMeaning() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"id": 1, "name": "Ada"}"#))
        let module = makeModule(session: session)
        let responses = ResultCollector<NetworkResponse>()
        let users = ResultCollector<User>()

        module.perform(request: GetUser()) { result in responses.completion(result) }
        module.perform(request: GetUser(), completion: responses.completion)
        module.performAndDecode(request: GetUser(), responseType: User.self) { result in users.completion(result) }
        module.performAndDecode(request: GetUser(), responseType: User.self, decoder: JSONDecoder()) {
            users.completion($0)
        }
        let response: NetworkResponse = try await module.perform(request: GetUser())
        let user: User = try await module.performAndDecode(request: GetUser())
        let decoded = try response.decode(User.self)
        let decodedWithJSON = try response.decode(User.self, decoder: JSONDecoder())

        #expect(responses.results.count == 2)
        #expect(users.results.count == 2)
        #expect([user, decoded, decodedWithJSON] == Array(repeating: User(id: 1, name: "Ada"), count: 3))
    }
}

extension Result where Failure == NetworkError {
    /// The status code of an HTTP status failure.
    fileprivate var statusError: Int? {
        if case .failure(let error) = self { return error.statusCode }
        return nil
    }
}
