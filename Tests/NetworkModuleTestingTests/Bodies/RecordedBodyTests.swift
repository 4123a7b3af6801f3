import Foundation
import NetworkModuleCore
import Testing

@testable import NetworkModuleTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Reading recorded request bodies")
struct RecordedBodyTests {
    private struct Note: Codable, Equatable, Sendable {
        let text: String
    }

    private struct PostNote: NetworkRequest {
        var path: String { "/notes" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .json(Note(text: "Hi")) }
    }

    private struct Login: NetworkRequest {
        var path: String { "/login" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .formURLEncoded(["user": "ada lovelace", "pass": "a+b&c=d/é"]) }
    }

    /// The request `request` became on the wire, as a fake session recorded it.
    private func recorded(_ request: any NetworkRequest) throws -> URLRequest {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(204))
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session, completionExecutor: .immediate
        ).perform(request: request) { _ in }
        return try #require(session.recordedRequests.first)
    }

    @Test("when a JSON body is read back as a Decodable, should give the value sent")
    func decodable() throws {
        let request = try recorded(PostNote())

        let note = try request.bodyJSON(as: Note.self)

        #expect(note == Note(text: "Hi"))
    }

    @Test("when a JSON body is read back as an object, should give JSONSerialization's value")
    func jsonObject() throws {
        let request = try recorded(PostNote())

        let object = try request.bodyJSONObject() as? [String: String]

        #expect(object == ["text": "Hi"])
    }

    @Test("when a form body is read back, should give the fields in order, plus and percent decoded")
    func formFields() throws {
        let request = try recorded(Login())

        let fields = try request.bodyFormFields()

        #expect(
            fields == [
                URLQueryItem(name: "user", value: "ada lovelace"), URLQueryItem(name: "pass", value: "a+b&c=d/é"),
            ])
    }

    @Test("when a form field has no '=', should read it with a nil value, and skip empty pairs")
    func formBareName() throws {
        let request = makeURLRequest("/", method: "POST", body: Data("flag&&a=1+2&b=".utf8))

        let fields = try request.bodyFormFields()

        #expect(
            fields == [
                URLQueryItem(name: "flag", value: nil), URLQueryItem(name: "a", value: "1 2"),
                URLQueryItem(name: "b", value: ""),
            ])
    }

    @Test("when a body is read back as text, should give the UTF-8 text")
    func text() throws {
        let request = makeURLRequest("/", method: "POST", body: Data("Grüße".utf8))

        #expect(try request.bodyText() == "Grüße")
    }

    @Test("when there is no body, should throw an error naming the request")
    func noBody() {
        let request = makeURLRequest("/users")

        let error = #expect(throws: RecordedBodyError.self) { try request.bodyText() }

        #expect(error?.description == "the body of GET https://api.example.com/users is empty")
    }

    @Test("when the body is not UTF-8, should throw instead of guessing")
    func notUTF8() {
        let request = makeURLRequest("/", method: "POST", body: Data([0xFF, 0xFE]))

        let error = #expect(throws: RecordedBodyError.self) { try request.bodyText() }

        #expect(error?.description == "the body of POST https://api.example.com/ is not UTF-8 text (2 bytes)")
    }

    @Test("when the JSON does not decode, should throw saying as what and showing the body")
    func doesNotDecode() {
        let request = makeURLRequest("/", method: "POST", body: Data(#"{"title":"x"}"#.utf8))

        let error = #expect(throws: RecordedBodyError.self) { try request.bodyJSON(as: Note.self) }

        #expect(error?.description.contains("does not decode as Note") == true)
        #expect(error?.description.hasSuffix(#"body: {"title":"x"}"#) == true)
    }

    @Test("when the body is not JSON, should throw from bodyJSONObject")
    func notJSON() {
        let request = makeURLRequest("/", method: "POST", body: Data("a=1".utf8))

        let error = #expect(throws: RecordedBodyError.self) { try request.bodyJSONObject() }

        #expect(error?.description == "the body of POST https://api.example.com/ is not JSON: a=1")
    }

    @Test("when a form field has an invalid percent escape, should throw naming it")
    func invalidPercentEscape() {
        let request = makeURLRequest("/", method: "POST", body: Data("a=%ZZ".utf8))

        let error = #expect(throws: RecordedBodyError.self) { try request.bodyFormFields() }

        #expect(
            error?.description
                == "the body of POST https://api.example.com/ has an invalid percent escape in the form field \"%ZZ\"")
    }

    @Test("when the body is a stream, should say it cannot be read back")
    func stream() {
        var request = makeURLRequest("/", method: "POST")
        request.httpBodyStream = InputStream(data: Data("x".utf8))

        let error = #expect(throws: RecordedBodyError.self) { try request.bodyText() }

        #expect(
            error?.description == "the body of POST https://api.example.com/ is a stream, which cannot be read back")
    }
}
