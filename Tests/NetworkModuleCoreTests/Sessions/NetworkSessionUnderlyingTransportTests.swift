import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `NetworkSession.underlyingTransport`: how `BackgroundTransfers` finds the transport whose
/// credential header names and `serverTrust` its own `URLSession` must apply.
@Suite("NetworkSession.underlyingTransport")
struct NetworkSessionUnderlyingTransportTests {
    static let pin = Data(repeating: 1, count: 32).base64EncodedString()

    @Test("when the transport is wrapped in decorators, should still find it, with its pins and credential names")
    func throughDecorators() throws {
        let transport = URLSessionTransport(
            credentialHeaderNames: ["X-Api-Key"], serverTrust: .pinnedPublicKeys(sha256: [Self.pin]))
        let wrapped: [any NetworkSession] = [
            transport, transport.cached(), transport.deduplicated(), transport.throttled(maxConcurrent: 2),
            transport.deduplicated().throttled(maxConcurrent: 2).cached(),
        ]

        for session in wrapped {
            let found = try #require(session.underlyingTransport, "\(type(of: session))")
            #expect(found === transport)
            #expect(found.serverTrust == .pinnedPublicKeys(sha256: [Self.pin]))
            #expect(found.credentialHeaderNames == ["X-Api-Key"])
        }
    }

    @Test("when the session is not the framework's transport, should find none")
    func otherSessions() {
        #expect(FakeNetworkSession().underlyingTransport == nil)
        #expect(FakeNetworkSession().cached().underlyingTransport == nil)
        #expect(URLSessionAdapter(URLSession.shared).underlyingTransport == nil)
    }
}
