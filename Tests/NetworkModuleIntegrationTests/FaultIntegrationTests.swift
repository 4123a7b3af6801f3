import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Broken servers and broken connections: each case ends in a specific error, quickly,
/// never a crash or a hang.
@Suite("Integration: transport faults", .integration)
struct FaultIntegrationTests {
    @Test("when nothing listens on the port, should fail with .cannotConnectToHost")
    func connectionRefused() async throws {
        let port = try closedLoopbackPort()
        let module = IntegrationServers.module(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")))

        #expect(await module.outcome(of: Endpoint(path: "/")).error == .cannotConnectToHost)
    }

    @Test("when the server accepts and never answers, should fail with .timedOut at the request timeout")
    func hangingServer() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let (result, seconds) = await module.timedOutcome(of: Endpoint(path: "/hang", timeout: 1))

        #expect(result.error == .timedOut)
        #expect(seconds < 6, "the hang ends at the 1 s timeout, not at the 60 s default: took \(seconds) s")
    }

    @Test(
        "when the connection breaks mid-body, should fail with .networkConnectionLost",
        arguments: ["/close-mid-body", "/short-body"])
    func truncatedBody(path: String) async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        #expect(await module.outcome(of: Endpoint(path: path)).error == .networkConnectionLost)
    }

    @Test("when the status line is garbage, should fail with a bad-server-response transport error")
    func malformedStatusLine() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        #expect(
            await module.outcome(of: Endpoint(path: "/malformed-status")).error == .transportError(.badServerResponse))
    }

    @Test("when the body trickles in byte by byte, should deliver it whole")
    func slowBody() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let response = try await module.perform(
            request: Endpoint(
                path: "/slow",
                queryItems: [URLQueryItem(name: "bytes", value: "8"), URLQueryItem(name: "delay_ms", value: "30")]))

        #expect(response.data.count == 8)
    }

    @Test("when a 200 has an empty body, should succeed with empty data and fail decoding with .noResponseData")
    func emptyBody() async throws {
        struct Anything: Decodable, Sendable {}
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let response = try await module.perform(request: Endpoint(path: "/empty-200"))
        let decoded = await withCheckedContinuation { continuation in
            module.performAndDecode(request: Endpoint(path: "/empty-200"), responseType: Anything.self) {
                continuation.resume(returning: $0)
            }
        }

        #expect(response.data.isEmpty)
        #expect(decoded.error == .noResponseData)
    }

    @Test("when the JSON is invalid, should fail with .decodingFailed")
    func invalidJSON() async throws {
        struct Anything: Decodable, Sendable { let a: Int }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        do {
            _ = try await module.performAndDecode(request: Endpoint(path: "/not-json"), responseType: Anything.self)
            Issue.record("invalid JSON decoded")
        } catch {
            guard case .decodingFailed(let failure) = error else {
                Issue.record("expected .decodingFailed, got \(error)")
                return
            }
            #expect(failure.kind == .dataCorrupted)
        }
    }

    @Test("when text is not UTF-8, should fail to read it with .invalidTextEncoding")
    func nonUTF8() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let response = try await module.perform(request: Endpoint(path: "/non-utf8"))

        #expect(response.data == Data([0xFF, 0xFE, 0xFD]))
        #expect(throws: NetworkError.self) { try response.text() }
    }
}
