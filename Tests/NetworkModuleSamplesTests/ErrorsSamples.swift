import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of docs/errors.md.
@Suite("Errors samples")
struct ErrorsSamples {
    struct Profile: Codable, Sendable {
        let email: String
    }

    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let profile: Profile
    }

    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
    }

    struct DeleteUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
        var method: HTTPMethod { .delete }
    }

    struct RenameUser: NetworkRequest {
        let id: Int
        let name: String
        var path: String { "/users/\(id)" }
        var method: HTTPMethod { .patch }
        var body: RequestBody? { .json(["name": name]) }
    }

    let session: FakeNetworkSession
    let module: DefaultNetworkModule

    init() {
        session = FakeNetworkSession()
        session.stub(
            .path("/v2/users/1"),
            with: .json(User(id: 1, name: "Ada", profile: Profile(email: "ada@example.com"))))
        session.stub(.path("/v2/users/2"), with: .json(#"{"id": 2, "name": "Bob", "profile": {}}"#))
        session.stub(.method(.delete) && .path("/v2/users/1"), with: .status(204))
        session.stub(
            .method(.patch) && .path("/v2/users/1"),
            with: .json(#"{"code": "name_taken", "message": "That name is taken."}"#, status: 409))
        session.stub(.path("/v2/users/3"), with: .text("Service Unavailable", status: 503, headers: ["Retry-After": "120"]))
        session.stub(
            .path("/v2/users/4"),
            with: .raw(
                data: nil, response: nil,
                error: URLError(
                    .cannotConnectToHost,
                    userInfo: [
                        NSLocalizedDescriptionKey: "Connection refused",
                        NSURLErrorFailingURLErrorKey: URL(string: "https://api.example.com/v2/users/4")!,
                    ])))
        session.stub(
            .path("/v2/users/5"),
            with: .raw(
                data: nil, response: nil,
                error: VPNError(reason: "The VPN is off.")))
        module = makeSampleModule(session: session)
    }

    // MARK: - Handling errors by case

    // sample: errors-switch
    func message(for error: NetworkError) -> String? {
        switch error {
        case .cancelled:
            return nil  // the user cancelled: say nothing
        case .notConnectedToInternet:
            return "You are offline."
        case .timedOut, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost:
            return "The server cannot be reached. Try again later."
        case .unauthorized:
            return "Please sign in again."
        case .notFound:
            return "Not found."
        case .serverError(let response) where response.statusCode == 503:
            return "Down for maintenance."
        default:
            return "Something went wrong."
        }
    }
    // end-sample

    @Test("when errors are matched by case, should pick the message for each")
    func matchingCases() {
        #expect(message(for: .cancelled) == nil)
        #expect(message(for: .notConnectedToInternet) == "You are offline.")
        #expect(message(for: NetworkError(URLError(.dnsLookupFailed))) == "The server cannot be reached. Try again later.")
        #expect(message(for: .unauthorized(HTTPErrorResponse(statusCode: 401))) == "Please sign in again.")
        #expect(message(for: .serverError(HTTPErrorResponse(statusCode: 503))) == "Down for maintenance.")
        #expect(message(for: .serverError(HTTPErrorResponse(statusCode: 500))) == "Something went wrong.")
        #expect(message(for: .invalidRequest(.missingURL)) == "Something went wrong.")
    }

    @Test("when a do block in a closure names its error type, should match NetworkError cases")
    func doThrowsInClosure() async {
        let printed = await Transcript.recording {
            // sample: errors-do-throws
            do throws(NetworkError) {
                let user = try await module.performAndDecode(request: GetUser(id: 3), responseType: User.self)
                print(user.name)
            } catch .unauthorized {
                print("Please sign in again.")
            } catch {
                print(error.isRetryable ? "Try again later." : "Something went wrong.")
            }
            // end-sample
        }

        #expect(printed == ["Try again later."])
    }

    // MARK: - HTTP status errors

    @Test("when the server answers 503, should keep its status, headers and body")
    func httpErrorResponse() {
        let printed = Transcript.recording {
            // sample: errors-http-response
            module.perform(request: GetUser(id: 3)) { result in
                guard case .failure(let error) = result, let response = error.httpErrorResponse else { return }
                print(response.statusCode)  // 503
                print(response.headers["retry-after"] ?? "no Retry-After")  // 120
                print(response.bodyText ?? "the body is not UTF-8")  // Service Unavailable
            }
            // end-sample
        }

        #expect(printed == ["503", "120", "Service Unavailable"])
    }

    @Test("when the server answers 503, should be a server error by its status class")
    func statusClasses() {
        let printed = Transcript.recording {
            module.perform(request: GetUser(id: 3)) { result in
                if case .failure(let error) = result, error.isServerError {
                    print("the server failed; try again later")
                }
            }
        }

        #expect(printed == ["the server failed; try again later"])
    }

    struct APIProblem: Decodable, Sendable {
        let code: String
        let message: String
    }

    @Test("when the server describes its error in JSON, should decode that body")
    func decodingAnErrorBody() {
        let printed = Transcript.recording {
            // sample: errors-decoded-body
            struct APIProblem: Decodable, Sendable {
                let code: String
                let message: String
            }

            module.perform(request: RenameUser(id: 1, name: "Grace")) { result in
                guard case .failure(let error) = result else { return }
                if let problem = try? error.httpErrorResponse?.decodeBody(as: APIProblem.self) {
                    print("\(error.statusCode ?? 0) \(problem.code): \(problem.message)")  // 409 name_taken: That name is taken.
                } else {
                    print(error)
                }
            }
            // end-sample
        }

        #expect(printed == ["409 name_taken: That name is taken."])
    }

    @Test("when an error body does not decode, decodeBody should say why")
    func decodeBodyThrows() {
        let printed = Transcript.recording {
            module.perform(request: GetUser(id: 3)) { result in
                guard case .failure(.serverError(let response)) = result else { return }
                do {
                    let problem = try response.decodeBody(as: APIProblem.self)
                    print(problem.message)
                } catch {
                    print(error)
                }
            }
        }

        #expect(printed.count == 1)
        #expect(printed.first?.hasPrefix("The response could not be decoded: APIProblem: invalid data") == true)
    }

    // MARK: - Transport and underlying errors

    @Test("when the transport fails, the error should keep the session's code, message and failing URL")
    func transportFailure() {
        let printed = Transcript.recording {
            // sample: errors-transport-failure
            module.perform(request: GetUser(id: 4)) { result in
                switch result {
                case .failure(.cannotConnectToHost(let failure)):
                    print(failure.code == .cannotConnectToHost, failure.message ?? "no message")  // true Connection refused
                    print(failure.failingURL?.absoluteString ?? "no URL")  // https://api.example.com/v2/users/4
                case .failure(.underlying(let underlying as VPNError)):
                    print(underlying.reason)  // The VPN is off.
                default:
                    break
                }
            }
            // end-sample
        }

        #expect(printed == ["true Connection refused", "https://api.example.com/v2/users/4"])
    }

    @Test("when a session reports an error that is not a URLError, the error should be the session's own")
    func underlyingError() {
        let printed = Transcript.recording {
            module.perform(request: GetUser(id: 5)) { result in
                guard case .failure(.underlying(let underlying as VPNError)) = result else { return }
                print(underlying.reason)
            }
        }

        #expect(printed == ["The VPN is off."])
    }

    @Test("when errors are made from an error, a URLError or a status, should map them as the module does")
    func makingErrors() {
        let printed = Transcript.recording {
            // sample: errors-making
            let timedOut = NetworkError(URLError(.timedOut))
            let vpn = NetworkError(NSError(domain: "com.example.vpn", code: 420))
            let notFound = NetworkError(statusCode: 404, body: Data(#"{"error":"no such user"}"#.utf8))
            print(timedOut == .timedOut, vpn.description.contains("com.example.vpn error 420"), notFound.statusCode ?? 0)
            // true true 404
            // end-sample
        }

        #expect(printed == ["true true 404"])
    }

    // MARK: - Retrying

    @Test("when errors are transient, isRetryable should say so")
    func retryable() {
        let printed = Transcript.recording {
            let unavailable = NetworkError.serverError(HTTPErrorResponse(statusCode: 503))
            let conflict = NetworkError.clientError(HTTPErrorResponse(statusCode: 409))
            print(unavailable.isRetryable, conflict.isRetryable, NetworkError.timedOut.isRetryable)
        }

        #expect(printed == ["true false true"])
    }

    @Test(
        "when the server answers a status, isRetryable should be true only for 408, 429, 500, 502, 503 and 504",
        arguments: [400, 401, 403, 404, 408, 409, 422, 429, 500, 501, 502, 503, 504, 505, 304])
    func retryableStatuses(status: Int) {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(status))
        let retryable = LockedLines()

        makeSampleModule(session: session).perform(request: GetUser(id: 1)) { result in
            if case .failure(let error) = result { retryable.append("\(error.isRetryable)") }
        }

        #expect(retryable.lines == ["\([408, 429, 500, 502, 503, 504].contains(status))"])
    }

    @Test("when the transport fails, isRetryable should be true only for the transient failures")
    func retryableTransport() {
        let retryable: [URLError.Code] = [.timedOut, .networkConnectionLost, .notConnectedToInternet, .cannotConnectToHost]
        let notRetryable: [URLError.Code] = [.cannotFindHost, .secureConnectionFailed, .badURL, .cancelled, .unknown]

        for code in retryable { #expect(NetworkError(URLError(code)).isRetryable, "\(code)") }
        for code in notRetryable { #expect(!NetworkError(URLError(code)).isRetryable, "\(code)") }
        #expect(!NetworkError.noResponseData.isRetryable)
        #expect(!NetworkError.invalidResponse.isRetryable)
    }

    // MARK: - Decoding

    @Test("when a key is missing, DecodingFailure should name the type, key and path")
    func decodingFailure() {
        let printed = Transcript.recording {
            // sample: errors-decoding-failure
            module.performAndDecode(request: GetUser(id: 2), responseType: User.self) { result in
                guard case .failure(.decodingFailed(let failure)) = result else { return }
                print(failure)  // User: key "email" not found at "profile"
                print(failure.kind == .keyNotFound("email"), failure.codingPath)  // true profile
            }
            // end-sample
        }

        #expect(printed == [#"User: key "email" not found at "profile""#, "true profile"])
    }

    @Test("when a 204 has no body, decodeIfPresent should return nil and performAndDecode should fail")
    func emptyBody() async throws {
        let printed = try await Transcript.recording {
            // sample: errors-empty-body
            let response = try await module.perform(request: DeleteUser(id: 1))
            let deleted = try response.decodeIfPresent(User.self)
            print(response.statusCode, deleted == nil ? "no body" : "the deleted user")  // 204 no body
            // end-sample
        }
        let decoded = LockedLines()
        module.performAndDecode(request: DeleteUser(id: 1), responseType: User.self) { result in
            if case .failure(let error) = result { decoded.append("\(error == .noResponseData)") }
        }

        #expect(printed == ["204 no body"])
        #expect(decoded.lines == ["true"])
    }

    // MARK: - Action failures

    // sample: errors-action-failure
    struct SignedOut: LocalizedError {
        var errorDescription: String? { "The user is signed out." }
    }

    struct RequireSignIn: NetworkModuleAction {
        let isSignedIn: @Sendable () -> Bool

        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) throws {
            guard isSignedIn() else { throw SignedOut() }
        }
    }
    // end-sample

    @Test("when an action throws, should fail with .actionFailed naming the action and keeping the error")
    func actionFailure() {
        let session = FakeNetworkSession()
        let module = makeSampleModule(session: session, actions: [RequireSignIn(isSignedIn: { false })])

        let printed = Transcript.recording {
            // sample: errors-action-failure-handled
            module.perform(request: GetUser(id: 1)) { result in
                guard case .failure(.actionFailed(let action, let error)) = result else { return }
                print(action, "-", error.localizedDescription)  // RequireSignIn - The user is signed out.
                print(error is SignedOut)  // true
            }
            // end-sample
        }

        #expect(printed == ["RequireSignIn - The user is signed out.", "true"])
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when errors are compared, should be equal by case and payload, an action's error by its domain and code")
    func equatable() {
        #expect(NetworkError(URLError(.cancelled)) == .cancelled)
        #expect(NetworkError(URLError(.serverCertificateUntrusted)) == .secureConnectionFailed(.serverCertificateUntrusted))
        #expect(NetworkError(URLError(.badServerResponse)) == .transportError(.badServerResponse))
        #expect(NetworkError.actionFailed(action: "A", error: SignedOut()) == .actionFailed(action: "A", error: SignedOut()))
    }
}

/// A session's own error, as a VPN layer might report it.
private struct VPNError: Error {
    let reason: String
}
