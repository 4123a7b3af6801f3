import Foundation
@testable import NetworkModuleCore
import NetworkModuleTesting
import Testing

// sample: getting-started-foundation-networking
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
// end-sample

/// The samples of docs/getting-started.md.
@Suite("Getting started samples")
struct GettingStartedSamples {
    // sample: getting-started-types
    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct NewUser: Encodable, Sendable {
        let name: String
        let email: String
    }

    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
    }

    struct CreateUser: NetworkRequest {
        let user: NewUser
        var path: String { "/users" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .json(user) }
        var acceptableStatusCodes: AcceptableStatusCodes { [201] }
    }
    // end-sample

    // sample: getting-started-client
    struct UserAPI: Sendable {
        let module: any NetworkModule

        func user(id: Int) async throws(NetworkError) -> User {
            try await module.performAndDecode(request: GetUser(id: id), responseType: User.self)
        }

        func create(_ user: NewUser) async throws(NetworkError) -> User {
            try await module.performAndDecode(request: CreateUser(user: user), responseType: User.self)
        }
    }
    // end-sample

    /// A fake backend with user 1 that creates users with id 3.
    static func backend(holdingResponses: Bool = false) -> FakeNetworkSession {
        let session = FakeNetworkSession(holdingResponses: holdingResponses)
        session.stub(.method(.get) && .path("/v2/users/1"), with: .json(User(id: 1, name: "Ada", email: "ada@example.com")))
        session.stub(.method(.post) && .path("/v2/users")) { request in
            struct Incoming: Decodable { let name: String; let email: String }
            guard let body = request.httpBody, let incoming = try? JSONDecoder().decode(Incoming.self, from: body) else {
                return .status(400)
            }
            return .json(User(id: 3, name: incoming.name, email: incoming.email), status: 201)
        }
        return session
    }

    @Test("when the module builds a request, should add the default headers and timeout")
    func creatingTheModule() throws {
        // sample: getting-started-module
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(
                baseURL: URL(string: "https://api.example.com/v2")!,
                defaultHeaders: ["Accept": "application/json"],
                defaultTimeout: 30
            ),
            session: URLSessionTransport.shared,
            completionExecutor: .main
        )
        // end-sample

        let urlRequest = try module.requestBuilder.build(request: GetUser(id: 1))
        #expect(urlRequest.url?.absoluteString == "https://api.example.com/v2/users/1")
        #expect(urlRequest.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(urlRequest.timeoutInterval == 30)
    }

    @Test("when a user is created, should post JSON and decode the created user")
    func callback() throws {
        let session = Self.backend()
        let module = makeSampleModule(session: session)

        let printed = Transcript.recording {
            // sample: getting-started-callback
            let newUser = NewUser(name: "Grace", email: "grace@example.com")
            module.performAndDecode(request: CreateUser(user: newUser), responseType: User.self) { result in
                switch result {
                case .success(let user):
                    print("Created user \(user.id)")
                case .failure(let error):
                    print("Could not create the user: \(error)")
                }
            }
            // end-sample
        }

        #expect(printed == ["Created user 3"])
        let sent = try #require(session.recordedRequests.first)
        #expect(sent.httpMethod == "POST")
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test("when CreateUser gets a 200 instead of its 201, should fail with .unacceptableStatusCode")
    func acceptableCodesMatter() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(User(id: 3, name: "Grace", email: "grace@example.com"), status: 200))
        let module = makeSampleModule(session: session)
        let outcome = LockedLines()

        module.performAndDecode(
            request: CreateUser(user: NewUser(name: "Grace", email: "grace@example.com")), responseType: User.self
        ) { result in
            if case .failure(.unacceptableStatusCode(let response)) = result { outcome.append("\(response.statusCode)") }
        }

        #expect(outcome.lines == ["200"])
    }

    @Test("when performed without decoding, should return the status, headers and body")
    func rawResponse() async throws {
        let module = makeSampleModule(session: Self.backend())

        let printed = try await Transcript.recording {
            // sample: getting-started-response
            let response = try await module.perform(request: GetUser(id: 1))
            print(response.statusCode)
            print(response.headers["content-type"] ?? "no content type")
            let user = try response.decode(User.self)
            print(user.email)
            // end-sample
        }

        #expect(printed == ["200", "application/json", "ada@example.com"])
    }

    @Test("when the Task is cancelled, should cancel the request and throw .cancelled")
    func taskCancellation() async {
        let session = Self.backend(holdingResponses: true)
        let module = makeSampleModule(session: session)

        let printed = await Transcript.recording {
            // sample: getting-started-task-cancel
            let task = Task {
                try await module.performAndDecode(request: GetUser(id: 1), responseType: User.self)
            }
            task.cancel()
            if case .failure(NetworkError.cancelled) = await task.result {
                print("Cancelled")
            }
            // end-sample
        }

        #expect(printed == ["Cancelled"])
        #expect(session.heldCount == 0)
    }

    @Test("when the API client runs on a fake session, should fetch the user without a network")
    func offline() async throws {
        let printed = try await Transcript.recording {
            // sample: getting-started-offline
            let session = FakeNetworkSession()
            session.stub(.path("/v2/users/1"), with: .json(User(id: 1, name: "Ada", email: "ada@example.com")))
            let api = UserAPI(
                module: DefaultNetworkModule(
                    requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
                    session: session,
                    completionExecutor: .immediate
                ))

            let user = try await api.user(id: 1)
            print(user.name)
            print(session.recordedRequests.map { $0.url?.absoluteString ?? "" })
            // end-sample
        }

        #expect(printed == ["Ada", #"["https://api.example.com/v2/users/1"]"#])
    }

    @Test("when a user is not found, should describe the error with its status, URL and what to check")
    func errorDescription() async {
        let session = Self.backend()
        session.stub(.path("/v2/users/9"), with: .status(404))
        let module = makeSampleModule(session: session)

        do {
            _ = try await module.perform(request: GetUser(id: 9))
            Issue.record("expected a 404")
        } catch {
            #expect(error.description == "HTTP 404 from https://api.example.com/v2/users/9: check the base URL and the request's path.")
        }
    }

    @Test("when the API client creates a user, should return the created user")
    func clientCreates() async throws {
        let api = UserAPI(module: makeSampleModule(session: Self.backend()))

        let created = try await api.create(NewUser(name: "Grace", email: "grace@example.com"))

        #expect(created.id == 3)
        #expect(created.name == "Grace")
    }
}
