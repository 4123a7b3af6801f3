import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 40 attack, on the wire: a header field with CR/LF that a redirect policy's `decide`
/// puts in the request it returns. The one check sits before the session: does the hop the
/// transport sends itself pass any check?
@Suite("Integration: issue 40 attack", .integration)
struct Issue40AttackIntegrationTests {
    struct Redirected: NetworkRequest {
        var path: String
        var queryItems: [URLQueryItem] = []
        var redirectPolicy: RedirectPolicy?
    }

    @Test("when a redirect policy returns a request with CR/LF in a header value, should not send the injected header")
    func redirectPolicyInjectedHeader() async throws {
        let marker = "redirect-\(UUID().uuidString)"
        let server = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(baseURL: server)
        let policy = RedirectPolicy.decide { _, next, _ in
            var request = next
            var fields = request.allHTTPHeaderFields ?? [:]
            fields["X-Marker"] = "safe\r\nX-Injected: \(marker)"
            request.allHTTPHeaderFields = fields
            return request
        }
        let outcome: Result<NetworkResponse, NetworkError>
        do {
            outcome = .success(
                try await module.perform(
                    request: Redirected(
                        path: "/redirect-to",
                        queryItems: [URLQueryItem(name: "url", value: "\(server)/echo?m=1")],
                        redirectPolicy: policy)))
        } catch {
            outcome = .failure(error)
        }
        var injected: [String] = []
        if case .success(let response) = outcome,
            let echo = try? JSONDecoder().decode(WireEcho.self, from: response.data)
        {
            injected = echo.headerValues("X-Injected")
        }
        print("redirect decide with CR/LF header:", outcome.map(\.statusCode), "injected on the wire:", injected)
        #expect(injected.isEmpty)
        #expect(outcome.map(\.statusCode) == .failure(.invalidRequest(.invalidHeaderValue(name: "X-Marker"))))
    }
}
