import Foundation
import NetworkModuleCore

/// The demo's actions, built-in ones only: each request gets a `User-Agent` and a request ID,
/// transient failures are retried with a short backoff, every attempt is logged (secrets
/// masked), and the metrics of the last request are kept for the tour to show.
enum DemoActions {
    static func make(metrics: LastMetrics) -> [any NetworkModuleAction] {
        [
            .headers(["User-Agent": "network-module-demo"]),
            .requestID(),
            .retry(RetryPolicy(maxAttempts: 3, initialDelay: 0.2, jitter: 0)),
            .logging(
                headers: false, bodies: false,
                sink: { entry in
                    print(entry.split(separator: "\n").map { "    [log] \($0)" }.joined(separator: "\n"))
                }),
            .metrics { metrics.store($0) },
        ]
    }
}

/// The metrics of the request that finished last.
final class LastMetrics: Sendable {
    private let state = LockedState<RequestMetrics?>(nil)

    var value: RequestMetrics? { state.withLock { $0 } }

    func store(_ metrics: RequestMetrics) {
        state.withLock { $0 = metrics }
    }
}
