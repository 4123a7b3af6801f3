import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("One-line responses")
struct ResponseMakeTests {
    @Test("when an HTTPURLResponse is made, should carry the status, headers and URL given")
    func httpURLResponse() throws {
        let url = URL(string: "https://api.example.com/users/1")!

        let response = try HTTPURLResponse.make(
            url: url, statusCode: 404, headers: ["Content-Type": "application/json"])

        #expect(response.statusCode == 404)
        #expect(response.value(forHTTPHeaderField: "content-type") == "application/json")
        #expect(response.url == url)
    }

    @Test("when made without arguments, should be a 200 with no headers")
    func defaults() throws {
        let response = try HTTPURLResponse.make()

        #expect(response.statusCode == 200)
        #expect(response.allHeaderFields.isEmpty)
    }

    @Test("when a NetworkResponse is made, should carry the status, headers, body and a request for its URL")
    func networkResponse() throws {
        let url = URL(string: "https://api.example.com/a")!

        let response = try NetworkResponse.make(
            statusCode: 201, headers: ["ETag": "x"], body: Data("hi".utf8), url: url)

        #expect(response.statusCode == 201)
        #expect(response.headers["etag"] == "x")
        #expect(try response.text() == "hi")
        #expect(response.request.url == url)
    }

    @Test("when a JSON NetworkResponse is made from text or a value, should decode with the module's rules")
    func json() throws {
        let fromText = try NetworkResponse.make(json: #"{"id": 1, "name": "Ada"}"#)
        let fromValue = try NetworkResponse.make(json: User(id: 2, name: "Grace"), statusCode: 202)

        #expect(try fromText.decode(User.self) == User(id: 1, name: "Ada"))
        #expect(try fromValue.decode(User.self) == User(id: 2, name: "Grace"))
        #expect(fromValue.statusCode == 202)
        #expect(fromValue.headers["Content-Type"] == "application/json")
    }
}
