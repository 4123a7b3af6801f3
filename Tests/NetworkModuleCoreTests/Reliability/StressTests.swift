import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Load with chaos: many threads, real (random) delays, random failures and retries, and
/// cancellations that land at every stage — while an action prepares, in flight, and while a
/// retry waits. Every request must complete exactly once, and nothing may hang.
///
/// 20,000 requests by default (`NETWORK_MODULE_STRESS_REQUESTS` changes it, for example under
/// a sanitizer); a watchdog fails the test instead of hanging CI.
@Suite("Stress")
struct StressTests {
    /// Prepares asynchronously after a random pause, so a cancel can land during preparation.
    struct SlowPreparation: NetworkModuleAction {
        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            let pause = Double(Int.random(in: 0...500)) / 1_000_000
            DispatchQueue.global().asyncAfter(deadline: .now() + pause) { completion(.success(urlRequest)) }
        }
    }

    /// Retries server errors twice, after a random pause, so a cancel can land during the wait.
    struct FlakyRetry: NetworkModuleAction {
        func retryDecision(
            for error: NetworkError, context: ActionContext, completion: @escaping @Sendable (RetryDecision) -> Void
        ) {
            guard case .serverError = error, context.attempt < 3 else {
                completion(.doNotRetry)
                return
            }
            completion(.retryAfter(Double(Int.random(in: 0...1_000)) / 1_000_000))
        }
    }

    @Test(
        "when 8 threads send requests with random delays, failures, retries and cancellations, should complete each exactly once"
    )
    func chaos() async throws {
        let total = ProcessInfo.processInfo.environment["NETWORK_MODULE_STRESS_REQUESTS"].flatMap(Int.init) ?? 20_000
        let threads = 8
        let session = FakeNetworkSession()
        session.stub(.any) { _ in
            let delay = Double(Int.random(in: 0...800)) / 1_000_000
            switch Int.random(in: 0..<10) {
            case 0..<6: return .json(#"{"ok":true}"#).delayed(by: delay)
            case 6..<8: return .status(503).delayed(by: delay)
            case 8: return .error(.networkConnectionLost).delayed(by: delay)
            default: return .status(404).delayed(by: delay)
            }
        }
        let executor = RecordingExecutor()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://stress.example.com")!),
            session: session, actions: [SlowPreparation(), FlakyRetry()], completionExecutor: executor)

        let deliveries = LockedState([Int](repeating: 0, count: total))
        let outcomes = LockedState([String: Int]())
        let allDone = DispatchSemaphore(value: 0)
        let remaining = LockedState(total)
        let perThread = (total + threads - 1) / threads

        for thread in 0..<threads {
            Thread.detachNewThread {
                for index in (thread * perThread)..<min(total, (thread + 1) * perThread) {
                    let handle = module.perform(request: StressRequest(index: index)) { result in
                        deliveries.withLock { $0[index] += 1 }
                        let outcome: String
                        switch result {
                        case .success: outcome = "success"
                        case .failure(.cancelled): outcome = "cancelled"
                        case .failure: outcome = "failure"
                        }
                        outcomes.withLock { $0[outcome, default: 0] += 1 }
                        if remaining.withLock({ count -> Int in
                            count -= 1
                            return count
                        }) == 0 {
                            allDone.signal()
                        }
                    }
                    if Int.random(in: 0..<10) < 3 {
                        let after = Double(Int.random(in: 0...2_000)) / 1_000_000
                        DispatchQueue.global().asyncAfter(deadline: .now() + after) { handle.cancel() }
                    }
                }
            }
        }

        let finished = await allDone.signalled(within: 120)
        let counts = deliveries.withLock { $0 }
        let missing = counts.indices.filter { counts[$0] == 0 }
        let duplicated = counts.indices.filter { counts[$0] > 1 }
        #expect(finished, "watchdog: \(missing.count) requests never completed, for example \(missing.prefix(5))")
        #expect(duplicated.isEmpty, "delivered more than once: \(duplicated.prefix(5))")
        let tally = outcomes.withLock { $0 }
        #expect(tally.values.reduce(0, +) == total)
        #expect(executor.deliveryCount == total)
        #expect(
            tally["success", default: 0] > 0 && tally["failure", default: 0] > 0 && tally["cancelled", default: 0] > 0,
            "every kind of outcome should occur: \(tally)")
    }
}

struct StressRequest: NetworkRequest {
    let index: Int
    var path: String { "/items/\(index)" }
}
