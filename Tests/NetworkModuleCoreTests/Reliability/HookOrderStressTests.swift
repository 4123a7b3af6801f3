import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `didFinish` is the last hook, under load: cancels race every hook on other threads, and an
/// auditing action counts any hook that runs after, or during, a request's `didFinish`. The
/// built-in actions that keep per-request entries (authentication, logging) must keep none once
/// every request has finished.
///
/// 20,000 requests by default (`NETWORK_MODULE_STRESS_REQUESTS` changes it, as for the chaos
/// test); a watchdog fails the test instead of hanging CI.
@Suite("Hook order under load")
struct HookOrderStressTests {
    /// Counts hooks per request: any hook after `didFinish`, any `didFinish` while another hook of
    /// the same request runs, and any second `didFinish`.
    final class HookAuditor: NetworkModuleAction {
        struct Audit {
            var running: [UUID: Int] = [:]
            var finished: Set<UUID> = []
            var hooksAfterFinish = 0
            var finishWhileRunning = 0
            var duplicateFinishes = 0
        }

        let audit = LockedState(Audit())

        private func hook(_ context: ActionContext, _ body: () -> Void) {
            audit.withLock { audit in
                if audit.finished.contains(context.requestID) { audit.hooksAfterFinish += 1 }
                audit.running[context.requestID, default: 0] += 1
            }
            // Giving up the processor inside the hook (to the racing threads: there are more than
            // cores) gives a racing cancel a window to land in, without waiting on the clock.
            if Int.random(in: 0..<4) == 0 { for _ in 0..<Int.random(in: 1...4) { sched_yield() } }
            body()
            audit.withLock { audit in
                audit.running[context.requestID, default: 1] -= 1
                if audit.running[context.requestID] == 0 { audit.running[context.requestID] = nil }
            }
        }

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            hook(context) {}
            if Int.random(in: 0..<3) == 0 {
                DispatchQueue.global().async { completion(.success(urlRequest)) }
            } else {
                completion(.success(urlRequest))
            }
        }

        func validate(_ response: NetworkResponse, context: ActionContext) throws {
            hook(context) {}
        }

        func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            hook(context) {}
        }

        func retryDecision(
            for error: NetworkError, context: ActionContext, completion: @escaping @Sendable (RetryDecision) -> Void
        ) {
            hook(context) {}
            completion(context.attempt < 3 && error.statusCode == 503 ? .retryAfter(0.000_1) : .doNotRetry)
        }

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            audit.withLock { audit in
                if audit.running[context.requestID] != nil { audit.finishWhileRunning += 1 }
                if !audit.finished.insert(context.requestID).inserted { audit.duplicateFinishes += 1 }
            }
        }
    }

    /// Answers with a token after a random pause, or at once.
    struct RandomDelayTokens: AccessTokenProvider {
        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            answer(completion)
        }

        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            answer(completion)
        }

        private func answer(_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            if Bool.random() {
                completion(.success("token"))
            } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.000_2) { completion(.success("token")) }
            }
        }
    }

    @Test("when cancels race every hook of 20,000 requests, should run no hook after didFinish and leak no entry")
    func cancelsRaceHooks() async throws {
        let total = ProcessInfo.processInfo.environment["NETWORK_MODULE_STRESS_REQUESTS"].flatMap(Int.init) ?? 20_000
        let threads = 8
        let session = FakeNetworkSession()
        session.stub(.any) { _ in
            let delay = Double(Int.random(in: 0...300)) / 1_000_000
            switch Int.random(in: 0..<10) {
            case 0..<5: return .status(200).delayed(by: delay)
            case 5..<7: return .status(503).delayed(by: delay)
            case 7: return .status(401).delayed(by: delay)
            case 8: return .status(200)
            default: return .error(.networkConnectionLost)
            }
        }
        let auditor = HookAuditor()
        let authentication = AuthenticationAction.authentication(RandomDelayTokens())
        let logging = LoggingAction(
            redaction: .default, headers: false, bodies: false, maxBodyLength: 2048, curl: false, sink: { _ in })
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://stress.example.com")!),
            session: session, actions: [authentication, auditor, logging], completionExecutor: .immediate)

        let remaining = LockedState(total)
        let deliveries = LockedState(0)
        let allDone = DispatchSemaphore(value: 0)
        let perThread = (total + threads - 1) / threads
        for thread in 0..<threads {
            Thread.detachNewThread {
                for index in (thread * perThread)..<min(total, (thread + 1) * perThread) {
                    let handle = module.perform(request: StressRequest(index: index)) { _ in
                        deliveries.withLock { $0 += 1 }
                        if remaining.withLock({ count -> Int in
                            count -= 1
                            return count
                        }) == 0 {
                            allDone.signal()
                        }
                    }
                    switch Int.random(in: 0..<4) {
                    case 0: handle.cancel()
                    case 1:
                        let after = Double(Int.random(in: 0...600)) / 1_000_000
                        DispatchQueue.global().asyncAfter(deadline: .now() + after) { handle.cancel() }
                    default: break
                    }
                }
            }
        }

        let finished = await allDone.signalled(within: 120)
        #expect(finished, "watchdog: \(remaining.value) requests never completed")
        #expect(deliveries.value == total)
        let audit = auditor.audit.value
        #expect(audit.hooksAfterFinish == 0)
        #expect(audit.finishWhileRunning == 0)
        #expect(audit.duplicateFinishes == 0)
        #expect(audit.finished.count == total)
        #expect(authentication.recordedRequestCount == 0)
        #expect(logging.requestEntryCount == 0)
    }
}
