import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("StubbedResponse")
struct StubbedResponseTests {
    /// The answer a fake session gives to `GET /x` when stubbed with `response`.
    private func answer(_ response: StubbedResponse) -> SessionAnswer? {
        let session = FakeNetworkSession()
        session.stub(.any, with: response)
        return session.send(makeURLRequest("/x")).log.single
    }

    @Test("when stubbed with a status, headers and body, should answer exactly those, for the request's URL")
    func status() {
        let answer = answer(.status(418, headers: ["X-Tea": "green"], body: Data("short".utf8)))

        #expect(answer?.statusCode == 418)
        #expect(answer?.header("X-Tea") == "green")
        #expect(answer?.text == "short")
        #expect(answer?.response?.url == makeURLRequest("/x").url)
        #expect(answer?.error == nil)
    }

    @Test("when stubbed with an Encodable, should answer its JSON with a JSON content type unless one is given")
    func jsonEncodable() throws {
        let answer = answer(.json(User(id: 1, name: "Ada"), status: 201))
        let custom = self.answer(.json(User(id: 1, name: "Ada"), headers: ["Content-Type": "application/vnd.api+json"]))

        #expect(answer?.statusCode == 201)
        #expect(answer?.header("Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(User.self, from: #require(answer?.data)) == User(id: 1, name: "Ada"))
        #expect(custom?.header("Content-Type") == "application/vnd.api+json")
    }

    @Test("when stubbed with JSON text, should answer the text as it is")
    func jsonText() {
        let answer = answer(.json(#"{"id": 1}"#))

        #expect(answer?.text == #"{"id": 1}"#)
        #expect(answer?.header("Content-Type") == "application/json")
    }

    @Test("when stubbed with text, should answer UTF-8 with a plain-text content type")
    func text() {
        let answer = answer(.text("Grüße", status: 503, headers: ["Retry-After": "2"]))

        #expect(answer?.statusCode == 503)
        #expect(answer?.text == "Grüße")
        #expect(answer?.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(answer?.header("Retry-After") == "2")
    }

    @Test("when stubbed with a fixture file, should answer its contents with the given content type")
    func fixture() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kit-fixture-\(UUID().uuidString).json")
        try Data(#"{"id": 7}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let answer = answer(.fixture(file))

        #expect(answer?.statusCode == 200)
        #expect(answer?.text == #"{"id": 7}"#)
        #expect(answer?.header("Content-Type") == "application/json")
    }

    @Test("when the fixture file cannot be read, should answer 500 naming the file")
    func missingFixture() {
        let answer = answer(.fixture(URL(fileURLWithPath: "/no/such/fixture.json")))

        #expect(answer?.statusCode == 500)
        #expect(answer?.text?.contains("/no/such/fixture.json") == true)
    }

    @Test("when stubbed with a URLError code, should fail with that code and the failing URL, without a response")
    func urlError() {
        let answer = answer(.error(.timedOut))

        #expect(answer?.urlErrorCode == .timedOut)
        #expect(answer?.response == nil)
        #expect((answer?.error as? URLError)?.failingURL == makeURLRequest("/x").url)
    }

    @Test("when stubbed with a NetworkError, should make the module fail with exactly that error")
    func networkError() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .failure(.invalidResponse))
        let results = Results<NetworkResponse>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session, completionExecutor: .immediate
        )

        module.perform(request: GetUser(id: 1), completion: results.completion)

        #expect(results.error == .invalidResponse)
    }

    @Test("when stubbed raw, should hand the completion handler exactly those values")
    func raw() {
        let answer = answer(.raw(data: Data("x".utf8), response: nil, error: nil))

        #expect(answer?.text == "x")
        #expect(answer?.response == nil)
        #expect(answer?.error == nil)
    }

    @Test("when an Encodable cannot be encoded, should answer 500 saying so")
    func unencodable() {
        let answer = answer(.json(Double.infinity))

        #expect(answer?.statusCode == 500)
        #expect(answer?.text?.hasPrefix("FakeNetworkSession: the stub's body could not be encoded") == true)
    }

    @Test("when a response is delayed, should keep the delay and the content")
    func delayed() {
        let response = StubbedResponse.status(204).delayed(by: 1.5)

        #expect(response.delay == 1.5)
        #expect(StubbedResponse.status(204).delay == 0)
    }
}
