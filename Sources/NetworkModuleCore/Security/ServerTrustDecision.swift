import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Security) && !canImport(FoundationNetworking)
    import Security
#endif

/// What a `URLSession` delegate answers an authentication challenge, decided from values only
/// (the challenge's method, the transport's ``ServerTrustPolicy``, the trust evaluation, the
/// platform), so it is compiled and tested on every platform. The delegates evaluate the trust
/// (`SecTrust`, Apple only), ask ``decide(method:policy:evaluation:proposedCredential:platform:)``,
/// keep its refusal for the task and answer the challenge; ``reportedError(for:url:)`` then says
/// what the refusal makes of the cancel `URLSession` reports.
enum ServerTrustDecision {
    /// What evaluating the server's trust against the policy gave.
    enum Evaluation: Sendable, Equatable {
        /// The chain leads to a pin (with the host name and dates valid).
        case accepted
        /// The chain was evaluated, and leads to no pin.
        case refused
        /// There was nothing to evaluate: no `SecTrust` in the challenge, or a platform without
        /// one (Linux).
        case notEvaluable
    }

    /// Whose `URLSession` raised the challenge.
    enum Platform: Sendable, Equatable {
        /// Apple's: server trust and HTTP authentication, and default handling completes a task
        /// with the 401 that asked for credentials.
        case apple
        /// swift-corelibs-foundation's: default handling with no credential never completes
        /// the task.
        case linux

        /// The platform this code runs on.
        static var current: Platform { LinuxURLSessionQuirks.apply ? .linux : .apple }
    }

    /// Why the task fails, whatever `URLSession` reports when it ends.
    enum Refusal: Sendable, Equatable {
        /// The server's certificate leads to no pin: cancelling the challenge makes `URLSession`
        /// report a cancel, which must be reported as an untrusted certificate.
        case untrustedServer
        /// An HTTP authentication challenge was declined (Linux), so that the 401 already
        /// received is reported as it is, as on Apple platforms, instead of a cancel.
        case declinedChallenge
    }

    /// The answer to one challenge.
    struct Outcome: Equatable {
        /// What to call the challenge's handler with (with the trust's credential for
        /// `.useCredential`, no credential otherwise).
        let disposition: URLSession.AuthChallengeDisposition
        /// What the task must report when it ends, if the challenge was refused or declined.
        let refusal: Refusal?
    }

    /// The authentication method of a server-trust challenge. Linux marks
    /// `NSURLAuthenticationMethodServerTrust` unavailable (it raises no such challenge), so the
    /// constant's value stands in for it there.
    static var serverTrustMethod: String {
        #if canImport(FoundationNetworking)
            "NSURLAuthenticationMethodServerTrust"
        #else
            NSURLAuthenticationMethodServerTrust
        #endif
    }

    /// What the server's trust in `space` gives under `policy`, with the credential that trusts
    /// it when accepted. Evaluated only for a server-trust challenge under a pinned policy, and
    /// only on Apple platforms (`SecTrust` exists nowhere else): not evaluable otherwise, which
    /// ``decide(method:policy:evaluation:proposedCredential:platform:)`` refuses when pinned.
    static func evaluate(
        _ space: URLProtectionSpace, against policy: ServerTrustPolicy
    ) -> (Evaluation, URLCredential?) {
        #if canImport(Security) && !canImport(FoundationNetworking)
            guard policy.isPinned, space.authenticationMethod == serverTrustMethod, let trust = space.serverTrust
            else { return (.notEvaluable, nil) }
            return policy.accepts(trust, host: space.host) ? (.accepted, URLCredential(trust: trust)) : (.refused, nil)
        #else
            return (.notEvaluable, nil)
        #endif
    }

    /// The answer to a challenge of `method` (``serverTrustMethod``, or an HTTP
    /// authentication method), under `policy`, with the server's trust evaluated as
    /// `evaluation` (ignored unless the policy pins), `proposedCredential` saying whether
    /// `URLSession` proposed one.
    ///
    /// | method | policy | evaluation | platform | disposition | refusal |
    /// |---|---|---|---|---|---|
    /// | server trust | system | any | any | default handling | none |
    /// | server trust | pinned | accepted | any | use credential | none |
    /// | server trust | pinned | refused, not evaluable | any | cancel | untrusted server |
    /// | other | any | any | Apple | default handling | none |
    /// | other | any | any | Linux, credential proposed | default handling | none |
    /// | other | any | any | Linux, none proposed | cancel | declined challenge |
    static func decide(
        method: String, policy: ServerTrustPolicy, evaluation: Evaluation, proposedCredential: Bool,
        platform: Platform = .current
    ) -> Outcome {
        if method == serverTrustMethod {
            guard policy.isPinned else { return Outcome(disposition: .performDefaultHandling, refusal: nil) }
            // Fail closed: only a chain evaluated and found to lead to a pin is trusted.
            guard evaluation == .accepted else {
                return Outcome(disposition: .cancelAuthenticationChallenge, refusal: .untrustedServer)
            }
            return Outcome(disposition: .useCredential, refusal: nil)
        }
        // HTTP authentication: the module's actions answer a 401 themselves.
        if platform == .linux, !proposedCredential {
            // Linux's default handling with no credential never completes the task; declining
            // ends it, and the 401 that already arrived is reported.
            return Outcome(disposition: .cancelAuthenticationChallenge, refusal: .declinedChallenge)
        }
        return Outcome(disposition: .performDefaultHandling, refusal: nil)
    }

    /// The error a task refused for `refusal` reports instead of the cancel `URLSession` ends
    /// it with, for a request to `url`; `nil` when the refusal is no error (a declined challenge
    /// reports the 401 that arrived).
    static func reportedError(for refusal: Refusal, url: URL?) -> URLError? {
        switch refusal {
        case .untrustedServer:
            return URLError(
                .serverCertificateUntrusted,
                message: "The server's certificate chain leads to none of the transport's pinned certificates or keys.",
                failingURL: url)
        case .declinedChallenge:
            return nil
        }
    }
}
