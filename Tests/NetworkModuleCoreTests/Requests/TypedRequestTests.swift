import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Typed requests: turning a response into the request's type")
struct TypedRequestTests {
    struct GetUser: TypedRequest {
        typealias Response = User
        var path: String { "/users/1" }
    }

    struct GetAvatar: TypedRequest {
        typealias Response = Data
        var path: String { "/avatar" }
    }

    struct GetGreeting: TypedRequest {
        typealias Response = String
        var path: String { "/greeting" }
    }

    struct Ping: TypedRequest {
        typealias Response = Void
        var path: String { "/ping" }
    }

    struct WrongType: Error {}

    /// Answers every call with a fixed user, whatever the bytes.
    struct FixedDecoder: ResponseDecoder {
        let user: User
        func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
            guard let value = user as? Value else { throw WrongType() }
            return value
        }
    }

    func response(_ body: String) -> NetworkResponse {
        let url = URL(string: "https://api.example.com/v2/x")!
        return NetworkResponse(
            data: Data(body.utf8),
            httpResponse: HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)!,
            request: URLRequest(url: url))
    }

    @Test("when the response is Decodable, should decode it with the decoder it is given")
    func decodableUsesGivenDecoder() throws {
        let request = GetUser()

        let user = try request.decodeResponse(
            response("not json"), decoder: FixedDecoder(user: User(id: 7, name: "Fixed")))

        #expect(user == User(id: 7, name: "Fixed"))
    }

    @Test("when the response is Decodable and the body is empty, should throw noResponseData")
    func decodableEmptyBody() {
        let request = GetUser()

        #expect(throws: NetworkError.noResponseData) {
            try request.decodeResponse(response(""), decoder: JSONResponseDecoder())
        }
    }

    @Test("when the response is Data, should hand over the body as it came, not decode it")
    func dataIsTheBody() throws {
        let request = GetAvatar()

        let data = try request.decodeResponse(response("\u{1}not json"), decoder: JSONResponseDecoder())

        #expect(data == Data("\u{1}not json".utf8))
    }

    @Test("when the response is String, should return the UTF-8 text and reject other bytes")
    func stringIsUTF8Text() throws {
        let request = GetGreeting()
        var invalid = response("")
        invalid = NetworkResponse(
            data: Data([0xFF, 0xFE]), httpResponse: invalid.httpResponse, request: invalid.request)

        let text = try request.decodeResponse(response("zażółć"), decoder: JSONResponseDecoder())

        #expect(text == "zażółć")
        #expect {
            try request.decodeResponse(invalid, decoder: JSONResponseDecoder())
        } throws: { error in
            guard case .decodingFailed(let failure) = error as? NetworkError else { return false }
            return failure.kind == .invalidTextEncoding
        }
    }

    @Test("when the response is Void, should ignore any body")
    func voidIgnoresBody() throws {
        let request = Ping()

        try request.decodeResponse(response("{\"ignored\": true}"), decoder: JSONResponseDecoder())
        try request.decodeResponse(response(""), decoder: JSONResponseDecoder())
    }

    @Test("when a request names no decoder, should leave the choice to the module")
    func noDecoderByDefault() {
        #expect(GetUser().decoder == nil)
    }
}
