import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Attacks on the transport reporting the head its delegate received instead of the task's
/// response: a head the delegate gets that is not the response the task ends with.
@Suite("Integration: the head the transport reports", .integration)
struct HeadAttackIntegrationTests {
    static func raw(_ name: String) -> Endpoint {
        Endpoint(
            path: "/raw", queryItems: [URLQueryItem(name: "case", value: name)],
            acceptableStatusCodes: AcceptableStatusCodes(100..<600))
    }

    /// Linux's `URLSession` hands the delegate a 103 head, never the 302 that follows when the
    /// 302 cannot be followed (no Location, or one that is no URL), and ends the task with the
    /// 302 (`task.response`). The response reported must be the 302, not the informational 103.
    @Test(
        "when a 103 precedes a redirect that cannot be followed, should report the redirect, not the 103",
        arguments: ["early-hints-then-redirect-without-location", "early-hints-then-redirect-bad-location"])
    func informationalHeadBeforeUnfollowableRedirect(name: String) async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let response = try await module.perform(request: Self.raw(name))

        #expect(response.statusCode == 302)
        #expect(response.httpResponse.value(forHTTPHeaderField: "Link") == nil)
        #expect(response.data.isEmpty)
    }
}
