import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Hostile and odd responses")
struct HostileResponseTests {
    private func perform(_ stub: StubbedResponse) -> ResultCollector<NetworkResponse> {
        let session = FakeNetworkSession()
        session.stub(.any, with: stub)
        let results = ResultCollector<NetworkResponse>()
        makeModule(session: session).perform(request: TestRequest(), completion: results.completion)
        return results
    }

    @Test("when the response is not HTTP, should fail with .invalidResponse")
    func nonHTTPResponse() throws {
        let url = try #require(URL(string: "https://api.example.com"))
        let response = URLResponse(url: url, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        #expect(perform(.raw(data: Data(), response: response, error: nil)).singleError == .invalidResponse)
    }

    @Test("when the session gives neither response nor error, should fail with .invalidResponse")
    func nothingAtAll() {
        #expect(perform(.raw(data: nil, response: nil, error: nil)).singleError == .invalidResponse)
    }

    @Test("when a 200 comes with nil data, should succeed with an empty body")
    func nilDataWith200() throws {
        let response = try HTTPURLResponse.make(statusCode: 200)
        let results = perform(.raw(data: nil, response: response, error: nil))
        #expect(results.singleValue?.data == Data())
    }

    @Test("when the error is not a URLError, should fail with it as the underlying error, never crash")
    func foreignError() {
        struct Weird: Error {}
        let error = perform(.raw(data: nil, response: nil, error: Weird())).singleError
        #expect((error.flatMap { if case .underlying(let underlying) = $0 { underlying } else { nil } }) is Weird)
    }

    @Test("when the error is an NSError in the URL domain, should map its code")
    func nsErrorInURLDomain() {
        let error = NSError(domain: NSURLErrorDomain, code: URLError.timedOut.rawValue)
        #expect(perform(.raw(data: nil, response: nil, error: error)).singleError == .timedOut)
    }

    @Test("when decoding invalid JSON, should fail with .decodingFailed saying the data is corrupted")
    func invalidJSON() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"id": 1, "name": "#))
        let results = ResultCollector<User>()

        makeModule(session: session).performAndDecode(
            request: TestRequest(), responseType: User.self, completion: results.completion)

        guard case .decodingFailed(let failure)? = results.singleError else {
            Issue.record("expected .decodingFailed, got \(results.results)")
            return
        }
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.typeName == "User")
    }

    @Test("when a key is missing, should say which key and where")
    func missingKey() {
        struct Envelope: Decodable, Sendable { let users: [User] }
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"users": [{"id": 1, "name": "Ada"}, {"id": 2}]}"#))
        let results = ResultCollector<Envelope>()

        makeModule(session: session).performAndDecode(
            request: TestRequest(), responseType: Envelope.self, completion: results.completion)

        guard case .decodingFailed(let failure)? = results.singleError else {
            Issue.record("expected .decodingFailed, got \(results.results)")
            return
        }
        #expect(failure.kind == .keyNotFound("name"))
        #expect(failure.codingPath == "users[1]")
    }

    @Test("when decoding an empty body, should fail with .noResponseData")
    func emptyBodyDecode() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(204))
        let results = ResultCollector<User>()

        makeModule(session: session).performAndDecode(
            request: TestRequest(), responseType: User.self, completion: results.completion)

        #expect(results.singleError == .noResponseData)
    }

    @Test("when the body is not UTF-8, should fail to read it as text with .invalidTextEncoding")
    func nonUTF8Body() throws {
        let results = perform(.status(200, headers: ["Content-Type": "text/plain"], body: Data([0xFF, 0xFE, 0xFD])))
        let response = try #require(results.singleValue)
        #expect(throws: NetworkError.self) { try response.text() }
        do {
            _ = try response.text()
        } catch {
            guard case .decodingFailed(let failure) = error else {
                Issue.record("expected .decodingFailed, got \(error)")
                return
            }
            #expect(failure.kind == .invalidTextEncoding)
        }
    }

    @Test("when the status is not acceptable for the request, should fail even for a 2xx")
    func customAcceptableCodes() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/a"), with: .status(202))
        session.stub(.path("/v2/b"), with: .status(304))
        let module = makeModule(session: session)
        let strict = ResultCollector<NetworkResponse>()
        let lenient = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest(path: "a", acceptableStatusCodes: [200]), completion: strict.completion)
        module.perform(
            request: TestRequest(path: "b", acceptableStatusCodes: AcceptableStatusCodes(200..<300, 304..<305)),
            completion: lenient.completion)

        #expect(strict.singleError?.statusCode == 202)
        if case .unacceptableStatusCode? = strict.singleError {
        } else {
            Issue.record("a 202 outside the acceptable codes is .unacceptableStatusCode, got \(strict.results)")
        }
        #expect(lenient.singleValue?.statusCode == 304)
    }
}
