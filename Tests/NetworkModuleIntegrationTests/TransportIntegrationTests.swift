import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports on the wire: what `URLSessionTransport` adds, and how a plain `URLSession`
/// behaves on this platform, pinned so a change in Foundation shows up here.
@Suite("Integration: transports", .integration)
struct TransportIntegrationTests {
    struct HeadersEcho: Decodable, Sendable { let headers: [String: String] }

    @Test("when a redirect leads to another origin, should not forward Authorization or Cookie")
    func crossOriginRedirectStripsCredentials() async throws {
        let httpbin = try IntegrationServers.httpbin()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let target = httpbin.appendingPathComponent("headers").absoluteString

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/redirect-to", queryItems: [URLQueryItem(name: "url", value: target)],
                headers: ["Authorization": "Bearer s3cret", "Cookie": "session=abc", "X-Harmless": "kept"]),
            responseType: HeadersEcho.self)

        #expect(echo.headers["Authorization"] == nil)
        #expect(echo.headers["Cookie"] == nil)
        #expect(echo.headers["X-Harmless"] == "kept")
    }

    @Test("when a redirect stays on the same origin, should keep Authorization")
    func sameOriginRedirectKeepsCredentials() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/redirect-to", queryItems: [URLQueryItem(name: "url", value: "/headers")],
                headers: ["Authorization": "Bearer s3cret"]),
            responseType: HeadersEcho.self)

        #expect(echo.headers["Authorization"] == "Bearer s3cret")
    }

    @Test("when a configured credential header meets a cross-origin redirect, should strip it too")
    func customCredentialHeader() async throws {
        let httpbin = try IntegrationServers.httpbin()
        let transport = URLSessionTransport(configuration: .ephemeral, credentialHeaderNames: ["X-API-Key"])
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer(), session: transport)

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/redirect-to",
                queryItems: [
                    URLQueryItem(name: "url", value: httpbin.appendingPathComponent("headers").absoluteString)
                ],
                headers: ["X-API-Key": "k3y"]),
            responseType: HeadersEcho.self)

        #expect(echo.headers["X-Api-Key"] == nil)
    }

    @Test("when a body is larger than the limit, should fail with .responseTooLarge without reading it all")
    func responseSizeLimit() async throws {
        let transport = URLSessionTransport(configuration: .ephemeral, maximumResponseSize: 1024 * 1024)
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer(), session: transport)

        let large = await module.outcome(
            of: Endpoint(path: "/large", queryItems: [URLQueryItem(name: "bytes", value: "\(2 * 1024 * 1024)")]))
        let endless = await module.outcome(of: Endpoint(path: "/endless"))
        let fits = await module.outcome(
            of: Endpoint(path: "/large", queryItems: [URLQueryItem(name: "bytes", value: "\(1024 * 1024)")]))

        #expect(large.error == .responseTooLarge(limit: 1024 * 1024))
        #expect(endless.error == .responseTooLarge(limit: 1024 * 1024))
        #expect((try? fits.get())?.data.count == 1024 * 1024)
    }

    @Test("when a 401 carries WWW-Authenticate and no credential is stored, should deliver the 401")
    func unauthorizedChallengeIsDelivered() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let error = await module.outcome(of: Endpoint(path: "/basic-auth/ada/s3cret", timeout: 10)).error

        #expect(error?.kindName == "unauthorized")
        #expect(error?.httpErrorResponse?.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
    }

    @Test("when using a plain URLSession, should still honour the request timeout and map libcurl errors")
    func plainURLSession() async throws {
        let httpbinModule = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(), session: URLSessionAdapter(URLSession(configuration: .ephemeral))
        )
        let faultModule = IntegrationServers.module(
            baseURL: try IntegrationServers.faultServer(),
            session: URLSessionAdapter(URLSession(configuration: .ephemeral)))

        let (slow, seconds) = await httpbinModule.timedOutcome(of: Endpoint(path: "/delay/10", timeout: 1))
        let truncated = await faultModule.outcome(of: Endpoint(path: "/close-mid-body")).error
        let ok = try await httpbinModule.perform(request: Endpoint(path: "/get"))

        #expect(slow.error == .timedOut)
        #expect(seconds < 6, "timed out after \(seconds) s for a 1 s timeout; the server answers after 10 s")
        #expect(truncated == .networkConnectionLost)
        #expect(ok.statusCode == 200)
    }

    #if canImport(FoundationNetworking)
        @Test(
            "when a plain URLSession on Linux meets a 401 challenge, should end at the request timeout instead of hanging"
        )
        func plainURLSessionChallengeOnLinux() async throws {
            // swift-corelibs-foundation leaves such a task waiting forever; the framework's
            // deadline ends it. URLSessionTransport delivers the 401 instead (test above).
            let module = IntegrationServers.module(
                baseURL: try IntegrationServers.httpbin(),
                session: URLSessionAdapter(URLSession(configuration: .ephemeral)))

            let error = await module.outcome(of: Endpoint(path: "/basic-auth/ada/s3cret", timeout: 1)).error

            #expect(error == .timedOut)
        }
    #endif
}
