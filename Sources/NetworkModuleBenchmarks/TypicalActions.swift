import Foundation
import NetworkModuleCore

/// The three actions of case (c): what a typical app puts around every request.
enum TypicalActions {
    static func make() -> [any NetworkModuleAction] {
        [
            .headers(["User-Agent": "network-module-benchmarks/1.0", "Accept-Language": "en"]),
            .authentication(CachedToken()),
            .metrics { metrics in blackHole(metrics) },
        ]
    }

    /// A token provider whose token is already known: the cached-token path of authentication.
    private struct CachedToken: AccessTokenProvider {
        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(.success("benchmark-token"))
        }

        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(.success("benchmark-token-2"))
        }
    }
}
