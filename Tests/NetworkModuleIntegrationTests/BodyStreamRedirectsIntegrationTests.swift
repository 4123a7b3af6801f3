import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 39, item 8 on the wire: a file or streamed body sent again through more than one 307
/// or 308, and across origins, is the whole body each time, and its credentials stay behind.
@Suite("Integration: body streams through redirect chains", .integration)
struct BodyStreamRedirectsIntegrationTests {
    static func redirect(to url: String, status: Int) -> [URLQueryItem] {
        [URLQueryItem(name: "url", value: url), URLQueryItem(name: "status", value: "\(status)")]
    }

    @Test(
        "when a file body goes through two 307s on one origin, should reach the end whole (307 and 308)",
        arguments: [307, 308])
    func twoHops(status: Int) async throws {
        let fault = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(baseURL: fault)
        let (url, data) = try UploadIntegrationTests.patternFile(bytes: 300_000)
        defer { try? FileManager.default.removeItem(at: url) }
        var second = URLComponents(url: fault.appendingPathComponent("redirect-to"), resolvingAgainstBaseURL: false)!
        second.queryItems = Self.redirect(to: fault.appendingPathComponent("echo").absoluteString, status: status)

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/redirect-to", method: .post, queryItems: Self.redirect(to: second.string!, status: status),
                body: .file(url)),
            responseType: WireEcho.self)

        #expect(echo.target == "/echo")
        #expect(echo.bodyLength == data.count)
        #expect(echo.bodyCRC32 == CRC32.checksum(data))
    }

    @Test(
        "when a file body is redirected with 307 to another origin, should send it whole there, without its credentials"
    )
    func crossOrigin() async throws {
        let httpbin = try IntegrationServers.httpbin()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let text = String(repeating: "the file's text, line by line\n", count: 2_000)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/redirect-to", method: .post,
                queryItems: Self.redirect(to: httpbin.appendingPathComponent("anything").absoluteString, status: 307),
                headers: ["Authorization": "Bearer only-for-the-fault-server", "X-API-Key": "k3y"],
                body: .file(url, contentType: "text/plain")),
            responseType: HTTPBinEcho.self)

        #expect(echo.data == text)
        #expect(echo.headers["Authorization"] == nil, "\(echo.headers)")
        #expect(echo.headers["X-Api-Key"] == nil, "\(echo.headers)")
    }

    /// Fails the first attempt's validation with a retryable error: the retry sends the request
    /// again, through the same 307.
    struct FailFirstAttempt: NetworkModuleAction {
        func validate(_ response: NetworkResponse, context: ActionContext) throws {
            if context.attempt == 1 { throw NetworkError.networkConnectionLost }
        }
    }

    @Test(
        "when a retried request's file body is redirected with 307, should send it whole on every attempt",
        arguments: [false, true])
    func retriedThrough307(asURLRequest: Bool) async throws {
        let fault = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(
            baseURL: fault,
            actions: [.retry(RetryPolicy(maxAttempts: 2, initialDelay: 0.01, jitter: 0)), FailFirstAttempt()])
        let (url, data) = try UploadIntegrationTests.patternFile(bytes: 100_000)
        defer { try? FileManager.default.removeItem(at: url) }
        let endpoint = Endpoint(
            path: "/redirect-to", method: .put, queryItems: Self.redirect(to: "/echo", status: 307), body: .file(url))

        // The caller builds the URLRequest with the framework's builder, then sends it.
        let result: Result<NetworkResponse, NetworkError>
        if asURLRequest {
            let request = try DefaultRequestBuilder(baseURL: fault).build(request: endpoint)
            do throws(NetworkError) {
                result = .success(try await module.perform(urlRequest: request))
            } catch {
                result = .failure(error)
            }
        } else {
            result = await module.outcome(of: endpoint)
        }

        let echo = try? JSONDecoder().decode(WireEcho.self, from: (try? result.get())?.data ?? Data())
        #expect(echo?.bodyLength == data.count, "attempt 2 ended: \(result)")
        #expect(echo?.bodyCRC32 == CRC32.checksum(data))
    }
}
