import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Adding query items to a request")
struct RequestWithQueryItemsTests {
    struct Search: TypedRequest {
        typealias Response = [String]
        var path: String { "/search" }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "q", value: "a b")] }
        var method: HTTPMethod { .post }
        var headers: HTTPHeaders { ["X-Tag": "1"] }
        var requiresAuthentication: Bool { true }
        var retryPolicy: RetryPolicy? { .never }
        var redirectPolicy: RedirectPolicy? { .refuse }
        var timeout: TimeInterval? { 7 }
    }

    @Test("when query items are added, should send them after the request's own, encoded, and keep everything else")
    func addsAfterOwnItems() throws {
        let request = Search().addingQueryItems([
            URLQueryItem(name: "page", value: "2+3"), URLQueryItem(name: "all", value: nil),
        ])

        let built = try DefaultRequestBuilder(baseURL: apiBaseURL).build(request: request)

        #expect(built.url?.absoluteString == "https://api.example.com/v2/search?q=a%20b&page=2%2B3&all")
        #expect(built.httpMethod == "POST")
        #expect(built.value(forHTTPHeaderField: "X-Tag") == "1")
        #expect(built.timeoutInterval == 7)
        #expect(request.requiresAuthentication)
        #expect(request.retryPolicy?.maxAttempts == RetryPolicy.never.maxAttempts)
        #expect(request.redirectPolicy?.isFollow == false)
    }

    @Test("when the request is typed, should stay typed with the same response")
    func staysTyped() async throws {
        let session = FakeNetworkSession()
        session.stub(.query("page", "2"), with: .json(#"["a", "b"]"#))

        let found = try await makeModule(session: session).send(
            Search().addingQueryItems([URLQueryItem(name: "page", value: "2")]))

        #expect(found == ["a", "b"])
    }
}
