import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkResponse")
struct NetworkResponseTests {
    struct User: Decodable, Equatable {
        var id: Int
        var fullName: String
    }

    /// The `NetworkError` that `body` throws, or `nil` if it throws none.
    func thrownError<T>(_ body: () throws(NetworkError) -> T) -> NetworkError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    // MARK: - decode

    @Test("when the body is JSON of the type, should decode it")
    func decode() throws {
        let response = try NetworkResponse.make(json: #"{"id":1,"fullName":"Ada Lovelace"}"#)
        #expect(try response.decode(User.self) == User(id: 1, fullName: "Ada Lovelace"))
    }

    @Test("when decode is given a decoder, should use it")
    func decodeWithDecoder() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let response = try NetworkResponse.make(json: #"{"id":1,"full_name":"Ada"}"#)
        #expect(try response.decode(User.self, decoder: decoder) == User(id: 1, fullName: "Ada"))
    }

    @Test("when the body is empty, decode should throw noResponseData")
    func decodeEmpty() throws {
        let response = try NetworkResponse.make(statusCode: 204)
        #expect(thrownError { () throws(NetworkError) in try response.decode(User.self) } == .noResponseData)
    }

    @Test("when the body is not valid JSON, decode should throw decodingFailed with kind dataCorrupted")
    func decodeBadJSON() throws {
        let response = try NetworkResponse.make(json: #"{"id":1,"#)
        let error = thrownError { () throws(NetworkError) in try response.decode(User.self) }
        guard case .decodingFailed(let failure) = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(failure.typeName == "User")
        #expect(failure.kind == .dataCorrupted)
    }

    @Test("when the body lacks a key, decode should throw decodingFailed naming the key")
    func decodeMissingKey() throws {
        let response = try NetworkResponse.make(json: #"{"id":1}"#)
        let error = thrownError { () throws(NetworkError) in try response.decode(User.self) }
        guard case .decodingFailed(let failure) = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .keyNotFound("fullName"))
        #expect(failure.codingPath == "")
    }

    // MARK: - decodeIfPresent

    @Test("when the body is empty, decodeIfPresent should return nil")
    func decodeIfPresentEmpty() throws {
        let response = try NetworkResponse.make(statusCode: 204)
        #expect(try response.decodeIfPresent(User.self) == nil)
    }

    @Test("when the body is JSON of the type, decodeIfPresent should decode it")
    func decodeIfPresentValue() throws {
        let response = try NetworkResponse.make(json: #"{"id":2,"fullName":"Grace"}"#)
        #expect(try response.decodeIfPresent(User.self) == User(id: 2, fullName: "Grace"))
    }

    @Test("when the body is present but not valid JSON, decodeIfPresent should throw decodingFailed")
    func decodeIfPresentBadJSON() throws {
        let response = try NetworkResponse.make(statusCode: 200, body: Data("not json".utf8))
        let error = thrownError { () throws(NetworkError) in try response.decodeIfPresent(User.self) }
        guard case .decodingFailed(let failure) = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(failure.typeName == "User")
        #expect(failure.kind == .dataCorrupted)
    }

    @Test("when the body is whitespace only, decodeIfPresent should throw rather than return nil")
    func decodeIfPresentWhitespace() throws {
        let response = try NetworkResponse.make(statusCode: 200, body: Data(" ".utf8))
        let error = thrownError { () throws(NetworkError) in try response.decodeIfPresent(User.self) }
        guard case .decodingFailed = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
    }

    // MARK: - text

    @Test(
        "when the body is valid UTF-8, text should return it exactly",
        arguments: ["", "plain", "Zoë 日本語 🙂", "line1\r\nline2\0end"])
    func text(text: String) throws {
        let response = try NetworkResponse.make(body: Data(text.utf8))
        #expect(try response.text() == text)
    }

    @Test(
        "when the body is not valid UTF-8, text should throw decodingFailed with kind invalidTextEncoding",
        arguments: [[0xFF, 0xFE], [0x61, 0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80]] as [[UInt8]])
    func invalidText(bytes: [UInt8]) throws {
        let response = try NetworkResponse.make(body: Data(bytes))
        let error = thrownError { () throws(NetworkError) in try response.text() }
        #expect(
            error
                == .decodingFailed(
                    DecodingFailure(
                        typeName: "String", kind: .invalidTextEncoding, codingPath: "",
                        debugDescription: "the body is not valid UTF-8")))
    }

    // MARK: - headers and status

    @Test(
        "when headers are looked up in any casing, should find them",
        arguments: ["X-Request-ID", "x-request-id", "X-REQUEST-ID"])
    func headers(name: String) throws {
        let response = try NetworkResponse.make(headers: ["X-Request-ID": "abc-123", "ETag": "\"v1\""])
        #expect(response.headers[name] == "abc-123")
        #expect(response.headers["etag"] == "\"v1\"")
        #expect(response.headers["Missing"] == nil)
        #expect(response.headers.count == 2)
    }

    @Test("when made from JSON text, should have status 200, a JSON Content-Type and the exact bytes")
    func makeJSON() throws {
        let response = try NetworkResponse.make(json: #"{"a":1}"#)
        #expect(response.statusCode == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.data == Data(#"{"a":1}"#.utf8))
        #expect(response.duration == 0)
    }

    @Test("when made with a status and URL, should report them and the request for that URL")
    func statusAndURL() throws {
        let url = try #require(URL(string: "https://api.example.com/v2/items?page=2"))
        let response = try NetworkResponse.make(statusCode: 201, url: url)
        #expect(response.statusCode == 201)
        #expect(response.httpResponse.url == url)
        #expect(response.request.url == url)
        #expect(response.data.isEmpty)
    }

    @Test("when created directly, should keep every value it was given")
    func memberwise() throws {
        let url = try #require(URL(string: "https://api.example.com/a"))
        let httpResponse = try HTTPURLResponse.make(url: url, statusCode: 202, headers: ["A": "1"])
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        let response = NetworkResponse(
            data: Data([1, 2]), httpResponse: httpResponse, request: request, duration: 0.25)
        #expect(response.data == Data([1, 2]))
        #expect(response.statusCode == 202)
        #expect(response.request.httpMethod == "PUT")
        #expect(response.duration == 0.25)
        #expect(response.headers["a"] == "1")
    }

    // MARK: - Equality

    @Test(
        "when two responses hold the same body, status, URL, headers and request, should be equal whatever their duration"
    )
    func equalResponses() throws {
        let url = URL(string: "https://api.example.com/users/1")!
        let first = try NetworkResponse.make(
            statusCode: 200, headers: ["Content-Type": "text/plain"], body: Data("a".utf8), url: url)
        let second = NetworkResponse(
            data: Data("a".utf8),
            httpResponse: try .make(url: url, statusCode: 200, headers: ["content-type": "text/plain"]),
            request: URLRequest(url: url), duration: 3)

        #expect(first == second)
    }

    @Test("when two responses differ in body, status, URL, headers or request, should not be equal")
    func unequalResponses() throws {
        let url = URL(string: "https://api.example.com/users/1")!
        let base = try NetworkResponse.make(statusCode: 200, headers: ["A": "1"], body: Data("a".utf8), url: url)
        var otherRequest = URLRequest(url: url)
        otherRequest.httpMethod = "POST"

        #expect(
            base != (try NetworkResponse.make(statusCode: 200, headers: ["A": "1"], body: Data("b".utf8), url: url)))
        #expect(
            base != (try NetworkResponse.make(statusCode: 201, headers: ["A": "1"], body: Data("a".utf8), url: url)))
        #expect(
            base != (try NetworkResponse.make(statusCode: 200, headers: ["A": "2"], body: Data("a".utf8), url: url)))
        #expect(
            base
                != (try NetworkResponse.make(
                    statusCode: 200, headers: ["A": "1"], body: Data("a".utf8),
                    url: URL(string: "https://api.example.com/2")!)))
        #expect(base != NetworkResponse(data: base.data, httpResponse: base.httpResponse, request: otherRequest))
    }
}
