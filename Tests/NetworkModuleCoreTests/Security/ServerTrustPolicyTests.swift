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
    static let keyPin = ServerTrustPolicy.pinnedPublicKeys(sha256: [rsaPin])
    /// Both kinds of pinning.
    static let pins = [pin, keyPin]

    /// The pins openssl gives the test certificates' keys
    /// (`openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`).
    static let rsaPin = "syylW4P+74BB0/bnZ0t8SVx37Log0yKeCCk7w6G4NKw="
    static let ecPin = "5mc2+X2cwPoFM7A1CjmqXQTIXjYcKJgv9/XnVJk4zHY="

    @Test("when public keys are pinned, should keep only the pins that are the Base64 of 32 bytes")
    func malformedPinsAreDropped() {
        let valid = Data(repeating: 7, count: 32).base64EncodedString()

        let policy = ServerTrustPolicy.pinnedPublicKeys(sha256: [
            valid, "not base64", Data(count: 20).base64EncodedString(),
        ])

        #expect(policy == .pinnedPublicKeys(sha256: [valid]))
        #expect(policy != .pinnedPublicKeys(sha256: []))
        #expect(policy.isPinned)
        #expect(ServerTrustPolicy.pinnedPublicKeys(sha256: []).isPinned, "pins nothing: trusts no server")
    }

    @Test("when any certificate of the chain holds a pinned key, should accept it; when none does, refuse")
    func anyCertificateOfTheChain() {
        let rsa = SubjectPublicKeyInfoTests.rsaCertificate
        let ec = SubjectPublicKeyInfoTests.ecCertificate
        let onlyEC = ServerTrustPolicy.pinnedPublicKeys(sha256: [Self.ecPin])
        let rotation = ServerTrustPolicy.pinnedPublicKeys(sha256: [Self.rsaPin, Self.ecPin])

        #expect(onlyEC.holdsPinnedKey([rsa, ec]), "the intermediate or root may match")
        #expect(!onlyEC.holdsPinnedKey([rsa]))
        #expect(rotation.holdsPinnedKey([rsa]))
        #expect(rotation.holdsPinnedKey([ec]))
        #expect(!rotation.holdsPinnedKey([]))
        #expect(!rotation.holdsPinnedKey([Data([0x30, 0x00]), Data("junk".utf8)]))
        #expect(ServerTrustPolicy.system.holdsPinnedKey([]), "no keys pinned: not asked")
    }

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
            "when certificates or keys are pinned on Linux, should fail an HTTPS request closed, saying why, unsent",
            arguments: pins)
        func linuxRefusesPinnedHTTPS(policy: ServerTrustPolicy) async throws {
            // Port 9 on loopback: nothing is there, so a request that was sent would fail
            // differently (cannot connect), not with the pinning error.
            let transport = URLSessionTransport(configuration: .ephemeral, serverTrust: policy)

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
                error.description.contains(
                    "Pinning (URLSessionTransport serverTrust: .pinnedCertificates or .pinnedPublicKeys)")
            )
            #expect(error.transportFailure?.failingURL?.absoluteString == "https://127.0.0.1:9/get")
        }
    #endif
}

private struct PinnedRequest: NetworkRequest {
    var path: String { "/get" }
}
