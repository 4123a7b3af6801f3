import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 39, item 10 on the wire: a task that gets more than one response head (informational
/// 103 heads before the final 200). Whatever heads come first, the body is the final response's,
/// once: in memory, in a download's file and in a stream.
@Suite("Integration: informational heads before the response", .integration)
struct InformationalHeadsIntegrationTests {
    static func raw(_ name: String, accepting statusCodes: AcceptableStatusCodes = .successful) -> Endpoint {
        Endpoint(
            path: "/raw", queryItems: [URLQueryItem(name: "case", value: name)], acceptableStatusCodes: statusCodes)
    }

    /// Linux's `URLSession` hands the delegate a 103 head, never the 302 that follows when the
    /// 302 cannot be followed (no Location, or one that is no URL), and ends the task with the
    /// 302. The transport reports the head its delegate got rather than read the task's
    /// response back: the 302 must be reported, not the 103 (helper-44's attack).
    @Test(
        "when a 103 precedes a redirect that cannot be followed, should report the redirect, not the 103",
        arguments: ["early-hints-then-redirect-without-location", "early-hints-then-redirect-bad-location"])
    func beforeAnUnfollowableRedirect(name: String) async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let response = try await module.perform(request: Self.raw(name, accepting: AcceptableStatusCodes(100..<600)))

        #expect(response.statusCode == 302)
        #expect(response.httpResponse.value(forHTTPHeaderField: "Link") == nil)
        #expect(response.data.isEmpty)
    }

    @Test(
        "when 103 heads precede the 200, should report the 200's body once",
        arguments: ["early-hints", "two-early-hints"])
    func inMemory(name: String) async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let response = try await module.perform(request: Self.raw(name))

        #expect(response.statusCode == 200)
        #expect(response.data == Data("hello".utf8))
    }

    @Test(
        "when 103 heads precede the 200 of a download, should write the 200's body to the file once",
        arguments: ["early-hints", "two-early-hints"])
    func toFile(name: String) async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let destination = folder.appendingPathComponent("file.bin")

        let download = try await module.downloadOutcome(of: Self.raw(name), to: DownloadDestination(destination)).get()

        #expect(download.statusCode == 200)
        #expect(try Data(contentsOf: destination) == Data("hello".utf8))
    }

    @Test(
        "when 103 heads precede the 200 of a stream, should hand over the 200's body once",
        arguments: ["early-hints", "two-early-hints"])
    func streamed(name: String) async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        var received = Data()

        for try await chunk in module.stream(request: Self.raw(name), bufferSize: 1024) {
            received.append(chunk)
        }

        #expect(received == Data("hello".utf8))
    }
}
