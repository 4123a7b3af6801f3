import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

@Suite("HTTPErrorResponse")
struct HTTPErrorResponseTests {
    struct APIError: Codable, Equatable {
        var code: String
        var message: String
    }

    func response(body: String) -> HTTPErrorResponse {
        HTTPErrorResponse(statusCode: 422, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }

    @Test("when created with only a status, should have no headers, an empty body and no URL")
    func defaults() {
        let response = HTTPErrorResponse(statusCode: 503)
        #expect(response.statusCode == 503)
        #expect(response.headers.isEmpty)
        #expect(response.body.isEmpty)
        #expect(response.url == nil)
    }

    @Test("when created with headers, should look them up case-insensitively")
    func headers() {
        let response = HTTPErrorResponse(statusCode: 429, headers: ["Retry-After": "120"])
        #expect(response.headers["retry-after"] == "120")
    }

    @Test("when the body is the server's error JSON, should decode it")
    func decodeBody() throws {
        let response = response(body: #"{"code":"invalid_email","message":"Email is invalid"}"#)
        #expect(
            try response.decodeBody(as: APIError.self) == APIError(code: "invalid_email", message: "Email is invalid"))
    }

    @Test("when decodeBody is given a decoder, should use it")
    func decodeBodyWithDecoder() throws {
        struct SnakeError: Decodable, Equatable { var errorCode: Int }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(
            try response(body: #"{"error_code":7}"#).decodeBody(as: SnakeError.self, decoder: decoder)
                == SnakeError(errorCode: 7))
    }

    @Test("when the body is empty, should throw noResponseData")
    func emptyBody() {
        #expect(throws: NetworkError.noResponseData) {
            try HTTPErrorResponse(statusCode: 500).decodeBody(as: APIError.self)
        }
    }

    @Test("when the body is not JSON, should throw decodingFailed naming the type with kind dataCorrupted")
    func badJSON() throws {
        let error = #expect(throws: NetworkError.self) {
            try response(body: "<html>oops</html>").decodeBody(as: APIError.self)
        }
        guard case .decodingFailed(let failure) = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(failure.typeName == "APIError")
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.codingPath == "")
    }

    @Test("when the body is JSON without a required key, should throw decodingFailed with keyNotFound")
    func missingKey() throws {
        let error = #expect(throws: NetworkError.self) {
            try response(body: #"{"code":"x"}"#).decodeBody(as: APIError.self)
        }
        guard case .decodingFailed(let failure) = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .keyNotFound("message"))
        #expect(failure.description == #"APIError: key "message" not found"#)
    }

    @Test("when the body is UTF-8, should give it as text; otherwise nil")
    func bodyText() {
        #expect(response(body: "Zoë says no").bodyText == "Zoë says no")
        #expect(HTTPErrorResponse(statusCode: 500).bodyText == "")
        #expect(HTTPErrorResponse(statusCode: 500, body: Data([0xFF, 0xFE])).bodyText == nil)
    }

    @Test("when two responses have the same status and body, should be equal whatever their headers and URL")
    func equality() throws {
        let url = try #require(URL(string: "https://api.example.com/a"))
        let response = HTTPErrorResponse(statusCode: 404, headers: ["A": "1"], body: Data("b".utf8), url: url)
        #expect(response == HTTPErrorResponse(statusCode: 404, headers: ["A": "2"], body: Data("b".utf8), url: nil))
        #expect(response == HTTPErrorResponse(statusCode: 404, body: Data("b".utf8)))
        #expect(response != HTTPErrorResponse(statusCode: 410, headers: ["A": "1"], body: Data("b".utf8), url: url))
        #expect(response != HTTPErrorResponse(statusCode: 404, headers: ["A": "1"], body: Data("c".utf8), url: url))
    }

    @Test("when a stubbed server error is expected by its status alone, should match the thrown error")
    func expectedByStatus() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(500, headers: ["X-Request-ID": "7"]))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!), session: session,
            completionExecutor: .immediate)

        await #expect(throws: NetworkError.serverError(HTTPErrorResponse(statusCode: 500))) {
            _ = try await module.perform(request: TestRequest(path: "/a"))
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test("when the API speaks property lists, should decode the error body with the module's decoder")
    func errorBodyWithModuleDecoder() throws {
        let body = try PropertyListEncoder().encode(APIError(code: "locked", message: "Try later"))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
            decoder: PropertyListDecoder())
        let error = NetworkError(statusCode: 423, body: body)

        let decoded = (try? error.httpErrorResponse?.decodeBody(as: APIError.self, decoder: module.decoder))

        #expect(decoded == APIError(code: "locked", message: "Try later"))
        #expect((try? error.httpErrorResponse?.decodeBody(as: APIError.self)) == nil)
    }
}
