import Foundation
@testable import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of README.md.
@Suite("README samples")
struct ReadmeSamples {
    // sample: readme-request
    struct User: Decodable, Sendable {
        let id: Int
        let name: String
    }

    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
    }
    // end-sample

    /// A fake backend that knows user 1, Ada; has no user 42; and fails for user 7.
    static func adaSession(holdingResponses: Bool = false) -> FakeNetworkSession {
        let session = FakeNetworkSession(holdingResponses: holdingResponses)
        session.stub(.path("/v2/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))
        session.stub(.path("/v2/users/42"), with: .json(#"{"error": "no such user"}"#, status: 404))
        session.stub(.path("/v2/users/7"), with: .status(503))
        return session
    }

    /// The module the tour's samples use, on the fake backend.
    let module = makeSampleModule(session: ReadmeSamples.adaSession())

    @Test("when the tour's module builds GetUser, should join the base URL and the path")
    func creatingTheModule() throws {
        // sample: readme-module
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: URLSessionTransport.shared,
            completionExecutor: .main
        )
        // end-sample

        let urlRequest = try module.requestBuilder.build(request: GetUser(id: 1))
        #expect(urlRequest.url?.absoluteString == "https://api.example.com/v2/users/1")
        #expect(urlRequest.httpMethod == "GET")
    }

    @Test("when performAndDecode completes, should deliver the decoded user to the callback")
    func callback() {
        let printed = Transcript.recording {
            // sample: readme-callback
            module.performAndDecode(request: GetUser(id: 1), responseType: User.self) { result in
                switch result {
                case .success(let user):
                    print("Hello, \(user.name)")
                case .failure(let error):
                    print("Failed: \(error)")
                }
            }
            // end-sample
        }

        #expect(printed == ["Hello, Ada"])
    }

    @Test("when performAndDecode is awaited, should return the decoded user")
    func asyncAwait() async throws {
        let printed = try await Transcript.recording {
            // sample: readme-async
            let user = try await module.performAndDecode(request: GetUser(id: 1), responseType: User.self)
            print("Hello, \(user.name)")
            // end-sample
        }

        #expect(printed == ["Hello, Ada"])
    }

    // sample: readme-errors
    func greet(userID: Int) async {
        do {
            let user = try await module.performAndDecode(request: GetUser(id: userID), responseType: User.self)
            print("Hello, \(user.name)")
        } catch .notFound {
            print("No such user")
        } catch {
            print("Failed: \(error) (retryable: \(error.isRetryable))")
        }
    }
    // end-sample

    @Test("when the user is missing or the server fails, should catch .notFound and say whether other errors are retryable")
    func errors() async {
        let found = await Transcript.recording { await greet(userID: 1) }
        let notFound = await Transcript.recording { await greet(userID: 42) }
        let unavailable = await Transcript.recording { await greet(userID: 7) }

        #expect(found == ["Hello, Ada"])
        #expect(notFound == ["No such user"])
        #expect(unavailable.count == 1)
        #expect(unavailable.first?.hasPrefix("Failed: HTTP 503 from https://api.example.com/v2/users/7") == true)
        #expect(unavailable.first?.hasSuffix("(retryable: true)") == true)
    }

    @Test("when a request in flight is cancelled, should deliver .cancelled")
    func cancel() {
        let session = Self.adaSession(holdingResponses: true)
        let module = makeSampleModule(session: session)

        let printed = Transcript.recording {
            // sample: readme-cancel
            let task = module.perform(request: GetUser(id: 1)) { result in
                if case .failure(.cancelled) = result {
                    print("Cancelled")
                }
            }
            task.cancel()
            // end-sample
        }

        #expect(printed == ["Cancelled"])
        #expect(session.cancelledCount == 1)
        #expect(session.heldCount == 0)
    }
}
