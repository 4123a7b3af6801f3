import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every row of the challenge decision the delegates share: (method, policy, evaluation,
/// platform) in, (disposition, refusal) out. No session and no `SecTrust`: the evaluation is a
/// value here, so the rows of both platforms run on Linux.
@Suite("Server trust decision")
struct ServerTrustDecisionTests {
    private static let trust = ServerTrustDecision.serverTrustMethod
    private static let basic = NSURLAuthenticationMethodHTTPBasic
    private static let pins = [ServerTrustPolicyTests.pin, ServerTrustPolicyTests.keyPin]
    private static let platforms: [ServerTrustDecision.Platform] = [.apple, .linux]
    private static let evaluations: [ServerTrustDecision.Evaluation] = [.accepted, .refused, .notEvaluable]

    private static func decide(
        _ method: String, _ policy: ServerTrustPolicy, _ evaluation: ServerTrustDecision.Evaluation,
        proposed: Bool = false, on platform: ServerTrustDecision.Platform
    ) -> ServerTrustDecision.Outcome {
        ServerTrustDecision.decide(
            method: method, policy: policy, evaluation: evaluation, proposedCredential: proposed,
            platform: platform)
    }

    @Test("when the policy is the system's, should leave server trust to the platform, whatever the evaluation")
    func systemPolicy() {
        for platform in Self.platforms {
            for evaluation in Self.evaluations {
                let outcome = Self.decide(Self.trust, .system, evaluation, on: platform)
                #expect(
                    outcome == .init(disposition: .performDefaultHandling, refusal: nil), "\(platform) \(evaluation)")
            }
        }
    }

    @Test("when the policy pins and the chain leads to a pin, should use the trust's credential")
    func pinnedAndAccepted() {
        for platform in Self.platforms {
            for policy in Self.pins {
                let outcome = Self.decide(Self.trust, policy, .accepted, on: platform)
                #expect(outcome == .init(disposition: .useCredential, refusal: nil), "\(platform) \(policy)")
            }
        }
    }

    @Test("when the policy pins and the chain leads to no pin or cannot be evaluated, should cancel as untrusted")
    func pinnedAndRefused() {
        for platform in Self.platforms {
            for policy in Self.pins {
                for evaluation in [ServerTrustDecision.Evaluation.refused, .notEvaluable] {
                    let outcome = Self.decide(Self.trust, policy, evaluation, proposed: true, on: platform)
                    #expect(
                        outcome == .init(disposition: .cancelAuthenticationChallenge, refusal: .untrustedServer),
                        "\(platform) \(policy) \(evaluation)")
                }
            }
        }
    }

    @Test("when an HTTP authentication challenge comes on Apple platforms, should leave it to default handling")
    func httpAuthenticationOnApple() {
        for policy in [ServerTrustPolicy.system] + Self.pins {
            for proposed in [false, true] {
                let outcome = Self.decide(Self.basic, policy, .notEvaluable, proposed: proposed, on: .apple)
                #expect(outcome == .init(disposition: .performDefaultHandling, refusal: nil))
            }
        }
    }

    @Test("when an HTTP authentication challenge comes on Linux with no credential, should decline it")
    func httpAuthenticationOnLinux() {
        for policy in [ServerTrustPolicy.system] + Self.pins {
            #expect(
                Self.decide(Self.basic, policy, .notEvaluable, proposed: false, on: .linux)
                    == .init(disposition: .cancelAuthenticationChallenge, refusal: .declinedChallenge))
            #expect(
                Self.decide(Self.basic, policy, .notEvaluable, proposed: true, on: .linux)
                    == .init(disposition: .performDefaultHandling, refusal: nil))
        }
    }

    @Test("when a task was refused for its server, should report an untrusted certificate; when declined, no error")
    func reportedErrors() {
        let url = URL(string: "https://127.0.0.1/pinned")

        let untrusted = ServerTrustDecision.reportedError(for: .untrustedServer, url: url)

        #expect(untrusted?.code == .serverCertificateUntrusted)
        #expect(untrusted?.failingURL == url)
        #expect(NetworkError(untrusted ?? URLError(.unknown)) == .secureConnectionFailed(.serverCertificateUntrusted))
        #expect(ServerTrustDecision.reportedError(for: .declinedChallenge, url: url) == nil)
    }

    @Test("when asked which platform runs, should answer the one this test runs on")
    func currentPlatform() {
        #if canImport(FoundationNetworking)
            #expect(ServerTrustDecision.Platform.current == .linux)
        #else
            #expect(ServerTrustDecision.Platform.current == .apple)
        #endif
    }
}
