import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("FakeNetworkModule")
struct FakeNetworkModuleTests {
    private struct FindUser: NetworkRequest {
        let name: String
        var path: String { "/users" }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "name", value: name)] }
        var acceptableStatusCodes: AcceptableStatusCodes { [200, 404] }
    }

    private struct BadHeader: NetworkRequest {
        var path: String { "/users" }
        var headers: HTTPHeaders { ["X-Evil": "a\r\nInjected: yes"] }
    }

    private struct FetchUser: TypedRequest {
        typealias Response = User
        let id: Int
        var path: String { "/users/\(id)" }
    }

    // MARK: Transfers

    @Test("when a download is stubbed, should write the stub's body to the destination and leave nothing else")
    func stubbedDownloadWritesFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FakeDownload-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .text("file contents"))
        let results = Results<DownloadResponse>()
        let destination = folder.appendingPathComponent("user.txt")

        module.download(request: GetUser(id: 1), to: DownloadDestination(destination), completion: results.completion)

        #expect(results.value?.fileURL == destination)
        #expect(try Data(contentsOf: destination) == Data("file contents".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["user.txt"])
        #expect(module.performed(GetUser.self).map(\.id) == [1])
    }

    @Test("when a stubbed download fails, should leave no file")
    func stubbedDownloadFailure() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FakeDownload-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .status(500))
        let results = Results<DownloadResponse>()

        module.download(
            request: GetUser(id: 1), to: DownloadDestination(folder.appendingPathComponent("user.txt")),
            completion: results.completion)

        #expect(results.error?.statusCode == 500)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] == [])
    }

    @Test("when progress is asked of a stub, should report the whole body once, before the result")
    func stubbedProgress() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .text("12345"))
        let events = LockedState([String]())

        module.perform(
            request: GetUser(id: 1),
            progress: { report in
                events.withLock { $0.append("\(report.completedBytes)/\(report.expectedBytes ?? -1)") }
            },
            completion: { _ in events.withLock { $0.append("done") } })

        #expect(events.withLock { $0 } == ["5/5", "done"])
    }

    // MARK: Stubbing

    @Test("when stubbed by request type, should decode the stubbed body into the response type")
    func stubByType() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .json(User(id: 1, name: "Ada")))
        let results = Results<User>()

        module.performAndDecode(request: GetUser(id: 1), responseType: User.self, completion: results.completion)

        #expect(results.value == User(id: 1, name: "Ada"))
    }

    @Test("when stubbed by type with a predicate, should answer only the requests it accepts")
    func stubByPredicate() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .json(User(id: 1, name: "Ada")))
        module.stub(GetUser.self, where: { $0.id == 2 }, with: .status(404))
        let first = Results<User>()
        let second = Results<User>()

        module.performAndDecode(request: GetUser(id: 1), responseType: User.self, completion: first.completion)
        module.performAndDecode(request: GetUser(id: 2), responseType: User.self, completion: second.completion)

        #expect(first.value == User(id: 1, name: "Ada"))
        #expect(second.error?.statusCode == 404)
    }

    @Test("when stubbed by a URL matcher, should match the built request, and answer URLRequest calls too")
    func stubByMatcher() {
        let module = FakeNetworkModule()
        module.stub(.path("/users/1") && .method(.get), with: .status(204))
        let described = Results<NetworkResponse>()
        let raw = Results<NetworkResponse>()

        module.perform(request: GetUser(id: 1), completion: described.completion)
        module.perform(
            urlRequest: URLRequest(url: URL(string: "https://other.example.com/users/1")!), completion: raw.completion)

        #expect(described.value?.statusCode == 204)
        #expect(raw.value?.statusCode == 204)
    }

    @Test("when a stub has a sequence, should answer it in turn and repeat the last")
    func sequence() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .status(503), .json(User(id: 1, name: "Ada")))
        let results = Results<User>()

        for _ in 1...3 {
            module.performAndDecode(request: GetUser(id: 1), responseType: User.self, completion: results.completion)
        }

        #expect(results.all.map { (try? $0.get())?.id } == [nil, 1, 1])
        #expect(results.errors.first??.statusCode == 503)
    }

    @Test("when a stub computes its response, should pass it the typed request")
    func computed() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self) { request in .json(User(id: request.id, name: "User \(request.id)")) }
        let results = Results<User>()

        module.performAndDecode(request: GetUser(id: 7), responseType: User.self, completion: results.completion)

        #expect(results.value == User(id: 7, name: "User 7"))
    }

    @Test("when stubs are removed, should fail calls as unmatched")
    func removeAllStubs() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .status(200))
        let results = Results<NetworkResponse>()

        module.removeAllStubs()
        module.perform(request: GetUser(id: 1), completion: results.completion)

        #expect(results.error?.statusCode == 501)
    }

    // MARK: The real module's rules

    @Test("when the status is not acceptable, should fail with the matching error carrying the body")
    func statusErrors() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .json(#"{"code":"gone"}"#, status: 404))
        let results = Results<NetworkResponse>()

        module.perform(request: GetUser(id: 1), completion: results.completion)

        guard case .notFound(let response)? = results.error else {
            Issue.record("expected .notFound, got \(String(describing: results.single))")
            return
        }
        #expect(response.bodyText == #"{"code":"gone"}"#)
    }

    @Test("when the request accepts the status, should succeed as the real module does")
    func acceptableStatusCodes() {
        let module = FakeNetworkModule()
        module.stub(FindUser.self, with: .status(404))
        let results = Results<NetworkResponse>()

        module.perform(request: FindUser(name: "Ada"), completion: results.completion)

        #expect(results.value?.statusCode == 404)
    }

    @Test("when stubbed with a transport error or a NetworkError, should fail with the mapped error")
    func errors() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .error(.timedOut), .failure(.invalidResponse))
        let results = Results<NetworkResponse>()

        module.perform(request: GetUser(id: 1), completion: results.completion)
        module.perform(request: GetUser(id: 1), completion: results.completion)

        #expect(results.errors == [.timedOut, .invalidResponse])
    }

    @Test("when the body does not decode or is empty, should fail as performAndDecode does on the real module")
    func decodingRules() {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .json(#"{"id":"one"}"#), .status(200))
        let results = Results<User>()

        module.performAndDecode(request: GetUser(id: 1), responseType: User.self, completion: results.completion)
        module.performAndDecode(request: GetUser(id: 1), responseType: User.self, completion: results.completion)

        let errors = results.errors
        guard case .decodingFailed(let failure)? = errors.first else {
            Issue.record("expected .decodingFailed, got \(errors)")
            return
        }
        #expect(failure.codingPath == "id")
        #expect(errors.last == .noResponseData)
    }

    @Test(
        "when the request cannot be built, should fail with .invalidRequest, record it without a URLRequest, and consult no stub"
    )
    func invalidRequest() {
        let messages = Messages()
        let module = FakeNetworkModule(onUnmatchedRequest: messages.hook)
        let results = Results<NetworkResponse>()

        module.perform(request: BadHeader(), completion: results.completion)

        guard case .invalidRequest? = results.error else {
            Issue.record("expected .invalidRequest, got \(String(describing: results.single))")
            return
        }
        #expect(module.performedRequests.count == 1)
        #expect(module.performedRequests.first?.urlRequest == nil)
        #expect(messages.all.isEmpty)
    }

    @Test("when no stub matches, should fail loudly with a message naming the call and listing the stubs")
    func unmatched() {
        let messages = Messages()
        let module = FakeNetworkModule(onUnmatchedRequest: messages.hook)
        module.stub(CreateUser.self, with: .status(201))
        let results = Results<NetworkResponse>()

        module.perform(request: GetUser(id: 3), completion: results.completion)

        let expected = """
            FakeNetworkModule: no stub matches GetUser(id: 3) (GET https://fake-network-module.invalid/users/3).
            Registered stubs (oldest first; the newest match answers):
              1. CreateUser
            """
        #expect(results.error?.statusCode == 501)
        #expect(results.error?.httpErrorResponse?.bodyText == expected)
        #expect(messages.all == [expected])
        #expect(module.unmatchedRequests.compactMap { ($0.request as? GetUser)?.id } == [3])
    }

    // MARK: Recording

    @Test("when calls are made, should record descriptions and built URLRequests in order")
    func recording() throws {
        let module = FakeNetworkModule()
        module.stub(.any, with: .status(200))
        let direct = URLRequest(url: URL(string: "https://cdn.example.com/a.png")!)

        module.perform(request: GetUser(id: 1)) { _ in }
        module.perform(request: CreateUser(name: "Ada")) { _ in }
        module.perform(urlRequest: direct) { _ in }

        let performed = module.performedRequests
        #expect(performed.count == 3)
        #expect(module.performed(GetUser.self).map(\.id) == [1])
        #expect(module.performed(CreateUser.self).map(\.name) == ["Ada"])
        #expect(performed[0].urlRequest?.url?.absoluteString == "https://fake-network-module.invalid/users/1")
        #expect(try performed[1].urlRequest?.bodyJSONObject() as? [String: String] == ["name": "Ada"])
        #expect(performed[2].request == nil)
        #expect(performed[2].urlRequest == direct)
    }

    @Test("when given the app's request builder, should build with it")
    func customBuilder() {
        let module = FakeNetworkModule(
            requestBuilder: DefaultRequestBuilder(
                baseURL: URL(string: "https://api.example.com/v2")!, defaultHeaders: ["X-App": "1"]))
        module.stub(.path("/v2/users/1") && .header("X-App", "1"), with: .status(204))
        let results = Results<NetworkResponse>()

        module.perform(request: GetUser(id: 1), completion: results.completion)

        #expect(results.value?.statusCode == 204)
        #expect(results.value?.request.url?.absoluteString == "https://api.example.com/v2/users/1")
    }

    // MARK: Delivery

    @Test("when calls complete, should deliver each exactly once through the completion executor")
    func executor() {
        let executor = RecordingExecutor()
        let module = FakeNetworkModule(completionExecutor: executor)
        module.stub(GetUser.self, with: .json(User(id: 1, name: "Ada")))
        let results = Results<User>()

        module.performAndDecode(request: GetUser(id: 1), responseType: User.self, completion: results.completion)
        module.perform(request: GetUser(id: 2)) { _ in }
        module.perform(request: BadHeader()) { _ in }

        #expect(executor.deliveryCount == 3)
        #expect(results.count == 1)
    }

    @Test("when a held call is cancelled, should deliver .cancelled once and nothing when released")
    func cancelHeld() {
        let module = FakeNetworkModule(holdingResponses: true)
        module.stub(GetUser.self, with: .json(User(id: 1, name: "Ada")))
        let results = Results<User>()
        let handle = module.performAndDecode(
            request: GetUser(id: 1), responseType: User.self, completion: results.completion)

        handle.cancel()
        module.releaseAll()
        handle.cancel()

        #expect(results.error == .cancelled)
        #expect(results.count == 1)
        #expect(module.cancelledCount == 1)
        #expect(module.heldCount == 0)
    }

    @Test("when held calls are released newest first, should complete in that order")
    func releaseOrder() {
        let module = FakeNetworkModule(holdingResponses: true)
        module.stub(GetUser.self) { request in .json(User(id: request.id, name: "")) }
        let order = Messages()
        for id in 1...3 {
            module.performAndDecode(request: GetUser(id: id), responseType: User.self) { result in
                order.hook("\((try? result.get())?.id ?? 0)")
            }
        }

        let heldBefore = module.heldCount
        module.releaseLast()
        module.releaseNext()
        module.releaseAll()

        #expect(heldBefore == 3)
        #expect(order.all == ["3", "1", "2"])
    }

    @Test("when a stub is delayed, should complete when the scheduler's time has passed, and cancel cleanly before")
    func delayed() {
        let scheduler = ManualDelayScheduler()
        let module = FakeNetworkModule(delayScheduler: scheduler)
        module.stub(GetUser.self, with: .status(200).delayed(by: 1))
        let late = Results<NetworkResponse>()
        let cancelled = Results<NetworkResponse>()

        module.perform(request: GetUser(id: 1), completion: late.completion)
        module.perform(request: GetUser(id: 2), completion: cancelled.completion).cancel()
        let countBefore = late.count
        scheduler.advance(by: 1)

        #expect(countBefore == 0)
        #expect(late.value?.statusCode == 200)
        #expect(cancelled.error == .cancelled)
        #expect(cancelled.count == 1)
    }

    @Test("when awaited, should return the decoded value")
    func async() async throws {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .json(User(id: 1, name: "Ada")))

        let user = try await module.performAndDecode(request: GetUser(id: 1), responseType: User.self)

        #expect(user == User(id: 1, name: "Ada"))
    }

    @Test("when used from many threads, should record and deliver every call exactly once")
    func threadSafety() {
        let executor = RecordingExecutor()
        let module = FakeNetworkModule(completionExecutor: executor)
        module.stub(GetUser.self) { request in .json(User(id: request.id, name: "")) }
        let results = Results<User>()

        DispatchQueue.concurrentPerform(iterations: 200) { index in
            if index.isMultiple(of: 20) { module.stub(CreateUser.self, with: .status(201)) }
            module.performAndDecode(
                request: GetUser(id: index), responseType: User.self, completion: results.completion)
        }

        #expect(Set(results.all.compactMap { try? $0.get().id }) == Set(0..<200))
        #expect(executor.deliveryCount == 200)
        #expect(module.performedRequests.count == 200)
    }

    // MARK: Typed requests

    @Test("when a typed request is stubbed by type, should deliver the decoded response and record the request")
    func typedRequest() {
        let module = FakeNetworkModule()
        module.stub(FetchUser.self, where: { $0.id == 1 }, with: .json(User(id: 1, name: "Ada")))
        let results = Results<User>()

        module.perform(FetchUser(id: 1), completion: results.completion)

        #expect(results.value == User(id: 1, name: "Ada"))
        #expect(module.performed(FetchUser.self).map(\.id) == [1])
    }

    @Test("when a typed request is cancelled while held, should deliver .cancelled once")
    func typedRequestCancelled() {
        let module = FakeNetworkModule(holdingResponses: true)
        module.stub(FetchUser.self, with: .json(User(id: 1, name: "Ada")))
        let results = Results<User>()
        let handle = module.perform(FetchUser(id: 1), completion: results.completion)

        handle.cancel()
        module.releaseAll()

        #expect(results.all.count == 1)
        #expect(results.error == .cancelled)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test("when the fake has a decoder, should decode typed requests with it, as the real module does")
    func typedRequestDecoder() throws {
        let module = FakeNetworkModule(decoder: PropertyListDecoder())
        let body = try PropertyListEncoder().encode(User(id: 2, name: "Grace"))
        module.stub(FetchUser.self, with: .status(200, body: body))

        let results = Results<User>()
        module.perform(FetchUser(id: 2), completion: results.completion)

        #expect(results.value == User(id: 2, name: "Grace"))
    }
}
