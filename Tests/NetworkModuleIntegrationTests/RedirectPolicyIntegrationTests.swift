import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirect policies on the wire, through `URLSessionTransport`: httpbin's `/redirect/N` for
/// chains on one origin, the fault server's `/redirect-to` to send a request to httpbin on
/// another port.
@Suite("Integration: redirect policy", .integration)
struct RedirectPolicyIntegrationTests {
    struct HeadersEcho: Decodable, Sendable { let headers: [String: String] }

    /// A request of the suite, with a redirect policy.
    struct Redirected: NetworkRequest {
        var path: String
        var queryItems: [URLQueryItem] = []
        var headers: HTTPHeaders = [:]
        var redirectPolicy: RedirectPolicy?
        var acceptableStatusCodes: AcceptableStatusCodes = .moduleDefault
    }

    /// What a policy's callback saw, hop by hop.
    final class Hops: Sendable {
        struct Seen: Sendable {
            let number: Int
            let status: Int
            let location: String?
            let nextURL: String?
            let nextAuthorization: String?
        }

        private let seen = LockedState([Seen]())

        var all: [Seen] { seen.withLock { $0 } }

        func record(_ response: HTTPURLResponse, _ next: URLRequest, _ hopNumber: Int) {
            let entry = Seen(
                number: hopNumber, status: response.statusCode,
                location: response.value(forHTTPHeaderField: "Location"), nextURL: next.url?.path,
                nextAuthorization: next.value(forHTTPHeaderField: "Authorization"))
            seen.withLock { $0.append(entry) }
        }
    }

    @Test("when a redirect is refused, should deliver the 3xx with its Location and body")
    func refusedRedirectDeliversTheRedirect() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let response = try await module.perform(
            request: Redirected(
                path: "/redirect/2", redirectPolicy: .refuse, acceptableStatusCodes: AcceptableStatusCodes(300..<400)))

        #expect(response.statusCode == 302)
        #expect(!response.data.isEmpty, "httpbin's 302 has an HTML body, which should be delivered")
        #expect(response.headers["Location"]?.hasSuffix("/relative-redirect/1") == true)
        #expect(response.httpResponse.url?.path == "/redirect/2")
    }

    @Test("when a refused redirect's status is not acceptable, should fail with it, Location included")
    func refusedRedirectIsAnUnacceptableStatus() async throws {
        let fault = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(baseURL: fault)

        let error = await #expect(throws: NetworkError.self) {
            try await module.perform(
                request: Redirected(
                    path: "/redirect-to",
                    queryItems: [
                        URLQueryItem(name: "url", value: "/elsewhere"), URLQueryItem(name: "status", value: "307"),
                    ],
                    redirectPolicy: .refuse))
        }

        guard case .unacceptableStatusCode(let failure)? = error else {
            Issue.record("expected .unacceptableStatusCode, got \(String(describing: error))")
            return
        }
        #expect(failure.statusCode == 307)
        #expect(failure.headers["Location"] == "/elsewhere")
    }

    @Test("when the module refuses redirects, should deliver the 3xx, unless the request follows them")
    func moduleWidePolicy() async throws {
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: try IntegrationServers.httpbin()),
            session: IntegrationServers.makeSession(), completionExecutor: .background,
            acceptableStatusCodes: AcceptableStatusCodes(200..<400), redirectPolicy: .refuse)

        let refused = try await module.perform(request: Redirected(path: "/redirect/1"))
        let followed = try await module.perform(request: Redirected(path: "/redirect/1", redirectPolicy: .follow))

        #expect(refused.statusCode == 302)
        #expect(followed.statusCode == 200)
        #expect(followed.httpResponse.url?.path == "/get")
    }

    @Test("when a per-hop callback decides, should see each hop in order and follow to the end")
    func callbackSeesEachHop() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let hops = Hops()
        let policy = RedirectPolicy.decide { response, next, hopNumber in
            hops.record(response, next, hopNumber)
            return next
        }

        let response = try await module.perform(request: Redirected(path: "/redirect/3", redirectPolicy: policy))

        #expect(response.statusCode == 200)
        #expect(response.httpResponse.url?.path == "/get")
        #expect(hops.all.map(\.number) == [1, 2, 3])
        #expect(hops.all.map(\.status) == [302, 302, 302])
        #expect(hops.all.map(\.nextURL) == ["/relative-redirect/2", "/relative-redirect/1", "/get"])
    }

    @Test("when the callback stops at the second hop, should deliver that hop's 3xx")
    func callbackStops() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let hops = Hops()
        let policy = RedirectPolicy.decide { response, next, hopNumber in
            hops.record(response, next, hopNumber)
            return hopNumber < 2 ? next : nil
        }

        let response = try await module.perform(
            request: Redirected(
                path: "/redirect/3", redirectPolicy: policy, acceptableStatusCodes: AcceptableStatusCodes(200..<400)))

        #expect(response.statusCode == 302)
        #expect(response.httpResponse.url?.path == "/relative-redirect/2")
        #expect(hops.all.map(\.number) == [1, 2])
    }

    @Test("when the callback changes the next request, should send the changed request")
    func callbackChangesTheRequest() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let policy = RedirectPolicy.decide { _, next, hopNumber in
            var changed = next
            changed.url = next.url.flatMap { URL(string: "/headers", relativeTo: $0)?.absoluteURL }
            changed.setValue("\(hopNumber)", forHTTPHeaderField: "X-Hop")
            return changed
        }

        let echo = try await module.performAndDecode(
            request: Redirected(path: "/redirect/1", redirectPolicy: policy), responseType: HeadersEcho.self)

        #expect(echo.headers["X-Hop"] == "1")
    }

    @Test("when the callback puts credentials back on a cross-origin hop, should strip them anyway")
    func credentialsStrippedAfterTheCallback() async throws {
        let httpbin = try IntegrationServers.httpbin()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let target = httpbin.appendingPathComponent("headers").absoluteString
        let hops = Hops()
        let policy = RedirectPolicy.decide { response, next, hopNumber in
            hops.record(response, next, hopNumber)
            var changed = next
            changed.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
            changed.setValue("k3y", forHTTPHeaderField: "X-API-Key")
            changed.setValue("kept", forHTTPHeaderField: "X-Harmless")
            return changed
        }

        let echo = try await module.performAndDecode(
            request: Redirected(
                path: "/redirect-to", queryItems: [URLQueryItem(name: "url", value: target)],
                headers: ["Authorization": "Bearer s3cret"], redirectPolicy: policy),
            responseType: HeadersEcho.self)

        #expect(hops.all.count == 1)
        #expect(hops.all.first?.nextAuthorization == nil, "the callback should see the request already stripped")
        #expect(echo.headers["Authorization"] == nil)
        #expect(echo.headers["X-Api-Key"] == nil)
        #expect(echo.headers["X-Harmless"] == "kept")
    }
}
