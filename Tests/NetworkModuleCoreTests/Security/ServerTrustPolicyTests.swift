import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The pinning opt-in of `URLSessionTransport`, where it can be checked without a server:
/// on Linux a transport that pins certificates refuses HTTPS before anything is sent.
/// (Against a real TLS server: SecurityIntegrationTests.)
@Suite("Server trust policy")
struct ServerTrustPolicyTests {
    static let pin = ServerTrustPolicy.pinnedCertificates([Data([0x30, 0x82, 0x01, 0x00])])

    /// Performs `url` on `transport` and waits for the session's outcome.
    static func outcome(of url: String, on transport: URLSessionTransport, cancelFirst: Bool = false) async
        -> (any Error)?
    {
        await withCheckedContinuation { continuation in
            let task = transport.dataTask(with: URLRequest(url: URL(string: url)!)) { _, _, error in
                continuation.resume(returning: error)
            }
            if cancelFirst { task.cancel() }
            task.resume()
        }
    }

    @Test("when no policy is given, should use the platform's validation")
    func defaultIsSystem() {
        let transport = URLSessionTransport(configuration: .ephemeral)

        let policy = transport.serverTrust

        #expect(policy == .system)
        #expect(policy != Self.pin)
    }

    #if canImport(FoundationNetworking)
        @Test(
            "when certificates are pinned on Linux, should fail an HTTPS request closed, saying why, without sending it"
        )
        func linuxRefusesPinnedHTTPS() async throws {
            // Port 9 on loopback: nothing is there, so a request that was sent would fail
            // differently (cannot connect), not with the pinning error.
            let transport = URLSessionTransport(configuration: .ephemeral, serverTrust: Self.pin)

            let error = await Self.outcome(of: "https://127.0.0.1:9/get", on: transport)

            let urlError = try #require(error as? URLError)
            #expect(urlError.code == .secureConnectionFailed)
            #expect(urlError.localizedDescription.contains("not supported by URLSession on this platform"))
            #expect(NetworkError(urlError) == .secureConnectionFailed(.secureConnectionFailed))
        }

        @Test("when a refused HTTPS task is cancelled before it is resumed, should report the cancellation once")
        func linuxRefusedTaskCancelled() async throws {
            let transport = URLSessionTransport(configuration: .ephemeral, serverTrust: Self.pin)

            let error = await Self.outcome(of: "https://127.0.0.1:9/get", on: transport, cancelFirst: true)

            #expect((error as? URLError)?.code == .cancelled)
        }

        @Test("when certificates are pinned on Linux, a module should fail HTTPS requests with .secureConnectionFailed")
        func linuxModuleFailsClosed() async {
            let transport = URLSessionTransport(configuration: .ephemeral, serverTrust: Self.pin)
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://127.0.0.1:9")!),
                session: transport, completionExecutor: .immediate)

            let result = await withCheckedContinuation { continuation in
                module.perform(request: PinnedRequest()) { continuation.resume(returning: $0) }
            }

            guard case .failure(let error) = result else {
                Issue.record("expected a failure, got \(result)")
                return
            }
            #expect(error == .secureConnectionFailed(.secureConnectionFailed))
            #expect(error.transportFailure?.message?.contains("not supported by URLSession on this platform") == true)
            #expect(
                error.description.contains("Certificate pinning (URLSessionTransport serverTrust: .pinnedCertificates)")
            )
            #expect(error.transportFailure?.failingURL?.absoluteString == "https://127.0.0.1:9/get")
        }
    #endif
}

private struct PinnedRequest: NetworkRequest {
    var path: String { "/get" }
}
