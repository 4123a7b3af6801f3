import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TransferringSession.underlyingTransport`, and the policy `BackgroundTransfers` keeps with it:
/// how background transfers find the transport whose credential header names and `serverTrust`
/// their own `URLSession` must apply, and what they do when they cannot.
@Suite("Underlying transport")
struct UnderlyingTransportTests {
    static let pin = Data(repeating: 1, count: 32).base64EncodedString()
    static let pinned = ServerTrustPolicy.pinnedPublicKeys(sha256: [pin])

    /// A decorator of the app's own: it forwards every request, and the framework cannot see
    /// what it wraps.
    final class AppLoggingSession: NetworkSession {
        let wrapped: any NetworkSession
        init(wrapping session: any NetworkSession) { wrapped = session }
        func dataTask(
            with request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            wrapped.dataTask(with: request, completionHandler: completionHandler)
        }
    }

    @Test("when the transport is wrapped in the framework's decorators or the HAR recorder, should still find it")
    func throughDecorators() throws {
        let transport = URLSessionTransport(credentialHeaderNames: ["X-Api-Key"], serverTrust: Self.pinned)
        let wrapped: [any NetworkSession] = [
            transport, transport.cached(), transport.deduplicated(), transport.throttled(maxConcurrent: 2),
            transport.deduplicated().throttled(maxConcurrent: 2).cached(),
            HARRecordingSession(wrapping: transport),
            HARRecordingSession(wrapping: transport.cached()).throttled(
                maxConcurrent: 1),
        ]

        for session in wrapped {
            let found = try #require(session.transferring.underlyingTransport, "\(type(of: session))")
            #expect(found === transport)
            #expect(found.serverTrust == Self.pinned)
            #expect(found.credentialHeaderNames == ["X-Api-Key"])
        }
    }

    @Test("when the session is not the framework's transport, or hides it, should find none")
    func otherSessions() {
        let pinnedTransport = URLSessionTransport(serverTrust: Self.pinned)
        let sessions: [any NetworkSession] = [
            FakeNetworkSession(), FakeNetworkSession().cached(), URLSessionAdapter(URLSession.shared),
            AppLoggingSession(wrapping: pinnedTransport), AppLoggingSession(wrapping: pinnedTransport).cached(),
        ]
        for session in sessions {
            #expect(session.transferring.underlyingTransport == nil, "\(type(of: session))")
        }
    }

    @Test("should keep the policy given, else the transport's, and know none when neither is there")
    func backgroundPolicy() {
        let transport = URLSessionTransport(serverTrust: Self.pinned)
        let delegated = URLSession(
            configuration: .ephemeral, delegate: URLSessionTransport().delegate, delegateQueue: nil)
        defer { delegated.invalidateAndCancel() }

        #expect(BackgroundTransfers.serverTrust(given: nil, session: transport.cached()) == Self.pinned)
        #expect(BackgroundTransfers.serverTrust(given: .system, session: transport) == .system)
        #expect(BackgroundTransfers.serverTrust(given: Self.pinned, session: FakeNetworkSession()) == Self.pinned)
        #expect(BackgroundTransfers.serverTrust(given: nil, session: URLSessionTransport()) == .system)
        // A plain URLSession without a delegate answers no challenge: the system's trust.
        #expect(BackgroundTransfers.serverTrust(given: nil, session: URLSessionAdapter(URLSession.shared)) == .system)
        // A session of the app's own in front of a pinned transport, or a URLSession whose
        // delegate may pin: unknown, so nothing starts (BackgroundTransfersTests.serverTrustUnknown),
        // instead of the system's trust alone.
        #expect(BackgroundTransfers.serverTrust(given: nil, session: AppLoggingSession(wrapping: transport)) == nil)
        #expect(BackgroundTransfers.serverTrust(given: nil, session: URLSessionAdapter(delegated)) == nil)
    }
}
