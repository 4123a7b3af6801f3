import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Attacks on the request timeouts on loopback after the deadlines began running every expiry
/// through `CompletionHandlerQueue` themselves (48fc25b), through the framework's transport and a
/// plain `URLSession`: exactly one result per request, no head-of-line blocking between
/// timeouts, every timeout value safe. Anything that could crash or hang runs in a child process.
@Suite("Integration: deadline attacks", .integration)
struct DeadlineAttackIntegrationTests {
    static let sessionKinds = ["URLSessionTransport", "URLSession"]

    static func module(
        _ kind: String, baseURL: URL, actions: [any NetworkModuleAction] = [],
        executor: some CompletionExecutor = .immediate
    ) -> DefaultNetworkModule {
        let builder = DefaultRequestBuilder(baseURL: baseURL)
        if kind == "URLSession" {
            return DefaultNetworkModule(
                requestBuilder: builder, session: URLSession(configuration: .ephemeral), actions: actions,
                completionExecutor: executor)
        }
        return DefaultNetworkModule(
            requestBuilder: builder, session: IntegrationServers.makeSession(), actions: actions,
            completionExecutor: executor)
    }

    /// Waits, off Swift concurrency's threads (``waitOffThePool(_:)``), until `done()` or `seconds`
    /// pass; then `settle` seconds more so that a late second result has a chance to show.
    static func wait(until done: @escaping @Sendable () -> Bool, seconds: Double, settle: Double = 1) async -> Bool {
        await waitOffThePool {
            let end = Date().addingTimeInterval(seconds)
            while !done() && Date() < end { usleep(5_000) }
            let ok = done()
            usleep(UInt32(settle * 1_000_000))
            return ok
        }
    }

    /// One result per index: how many times each completion ran, and what the first said.
    final class Results: Sendable {
        let counts: LockedState<[Int]>
        let outcomes: LockedState<[String]>
        let count: Int

        init(_ count: Int) {
            self.count = count
            counts = LockedState(Array(repeating: 0, count: count))
            outcomes = LockedState(Array(repeating: "", count: count))
        }

        func record(_ index: Int, _ result: Result<NetworkResponse, NetworkError>) {
            let text: String
            switch result {
            case .success(let response): text = "success \(response.statusCode)"
            case .failure(.timedOut): text = "timedOut"
            case .failure(.cancelled): text = "cancelled"
            case .failure(let error): text = "other \(error)"
            }
            counts.withLock { $0[index] += 1 }
            outcomes.withLock { if $0[index].isEmpty { $0[index] = text } }
        }

        var completed: Int { counts.withLock { $0.filter { $0 > 0 }.count } }
        var notOnce: [(Int, Int)] {
            counts.withLock { counts in counts.enumerated().filter { $0.element != 1 }.map { ($0.offset, $0.element) } }
        }
        func outcomeSummary() -> [String: Int] {
            outcomes.withLock { Dictionary($0.map { ($0, 1) }, uniquingKeysWith: +) }
        }
    }

    // MARK: - Many tiny timeouts racing cancels

    static func stress(kind: String, count: Int) async throws {
        let fault = try IntegrationServers.faultServer()
        let hooks = HookOrder()
        let module = Self.module(kind, baseURL: fault, actions: [hooks])
        let results = Results(count)
        let cancellables = LockedState<[Int: any NetworkCancellable]>([:])

        // Requests started from many threads, each with a 1–20 ms timeout; every other one is
        // cancelled from another thread at a moment of 0–20 ms, around its timeout.
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let timeout = Double(1 + index % 20) / 1000
            let request = Endpoint(
                path: "/slow-headers", queryItems: [URLQueryItem(name: "delay_ms", value: "150")], timeout: timeout)
            let cancellable = module.perform(request: request) { results.record(index, $0) }
            cancellables.withLock { $0[index] = cancellable }
            if index % 2 == 0 {
                let delay = Double(index * 7 % 21) / 1000
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                    cancellables.withLock { $0[index] }?.cancel()
                    // A second cancel and a cancel racing the timeout must change nothing.
                    cancellables.withLock { $0[index] }?.cancel()
                }
            }
        }

        let allDone = await wait(until: { results.completed == count }, seconds: 120, settle: 2)
        let summary = results.outcomeSummary()
        print("stress \(kind) \(count): completed \(results.completed), outcomes \(summary), hooks \(hooks.summary())")
        #expect(allDone, "only \(results.completed) of \(count) requests completed")
        let notOnce = results.notOnce
        #expect(notOnce.isEmpty, "completed other than once (index, times): \(notOnce.prefix(20))")
        let unexpected = summary.keys.filter { $0 != "timedOut" && $0 != "cancelled" }
        #expect(unexpected.isEmpty, "outcomes other than timedOut/cancelled: \(summary)")
        #expect(hooks.problems().isEmpty, "\(hooks.problems().prefix(20))")
    }

    @Test(
        "probe (child process only): 2000 requests with 1–20 ms timeouts racing cancels on the transport",
        .enabled(if: ChildProcess.isProbe("deadline-stress-URLSessionTransport")))
    func probeStressTransport() async throws {
        try await Self.stress(kind: "URLSessionTransport", count: 2000)
    }

    @Test(
        "probe (child process only): 2000 requests with 1–20 ms timeouts racing cancels on a plain URLSession",
        .enabled(if: ChildProcess.isProbe("deadline-stress-URLSession")))
    func probeStressURLSession() async throws {
        try await Self.stress(kind: "URLSession", count: 2000)
    }

    @Test(
        "when 2000 requests with 1–20 ms timeouts race cancels from other threads, each should complete exactly once, timed out or cancelled, with didFinish last",
        arguments: sessionKinds)
    func stressInAChildProcess(kind: String) async throws {
        #if os(Linux)
            _ = try IntegrationServers.faultServer()
            let filter = kind == "URLSession" ? "probeStressURLSession" : "probeStressTransport"
            let outcome = try await ChildProcess.run(probe: "deadline-stress-\(kind)", filter: filter, timeout: 600)
            let summary = outcome.output.split(separator: "\n").filter {
                $0.contains("stress ") || $0.contains("✘") || $0.contains("Fatal") || $0.contains("ThreadSanitizer")
            }
            print(summary.joined(separator: "\n"))
            #expect(outcome.succeeded, "\(outcome.output.suffix(4_000))")
        #endif
    }

    // MARK: - Completions that block, or start and cancel other requests

    @Test(
        "when 64 timed-out requests' .immediate completions all block until another request times out, that timeout should still come",
        arguments: sessionKinds)
    func manyBlockedCompletionsHoldUpNoTimeout(kind: String) async throws {
        let module = Self.module(kind, baseURL: try IntegrationServers.faultServer())
        let sentinelTimedOut = DispatchSemaphore(value: 0)
        let blockedCount = 64
        let results = Results(blockedCount)
        let sawSentinel = LockedState(0)

        for index in 0..<blockedCount {
            module.perform(request: Endpoint(path: "/hang", timeout: 0.1)) { result in
                results.record(index, result)
                if sentinelTimedOut.wait(timeout: .now() + 15) == .success {
                    sentinelTimedOut.signal()  // pass it on to the next blocked completion
                    sawSentinel.withLock { $0 += 1 }
                }
            }
        }
        // Its timeout falls due while every completion above is blocked.
        module.perform(request: Endpoint(path: "/hang", timeout: 0.5)) { result in
            if case .failure(.timedOut) = result { sentinelTimedOut.signal() }
        }

        #expect(await Self.wait(until: { results.completed == blockedCount }, seconds: 30, settle: 0))
        #expect(await Self.wait(until: { sawSentinel.withLock { $0 } == blockedCount }, seconds: 30, settle: 0))
        #expect(sawSentinel.withLock { $0 } == blockedCount, "blocked completions never saw the other timeout")
        #expect(results.outcomeSummary() == ["timedOut": blockedCount])
    }

    @Test(
        "when each timed-out request's .immediate completion blocks 200 ms, every request should still time out exactly once",
        arguments: sessionKinds)
    func slowCompletionsEachTimeOutOnce(kind: String) async throws {
        let module = Self.module(kind, baseURL: try IntegrationServers.faultServer())
        let count = 100
        let results = Results(count)
        for index in 0..<count {
            module.perform(request: Endpoint(path: "/hang", timeout: Double(1 + index % 20) / 1000)) { result in
                results.record(index, result)
                usleep(200_000)
            }
        }
        #expect(await Self.wait(until: { results.completed == count }, seconds: 60))
        #expect(results.notOnce.isEmpty, "\(results.notOnce.prefix(20))")
        #expect(results.outcomeSummary() == ["timedOut": count])
    }

    @Test(
        "when a timed-out request's .immediate completion starts the next request and cancels a sibling, every request should complete once",
        arguments: sessionKinds)
    func completionsStartAndCancelOthers(kind: String) async throws {
        let module = Self.module(kind, baseURL: try IntegrationServers.faultServer())
        let depth = 60
        let chain = Results(depth)
        let siblings = Results(depth)

        @Sendable func step(_ index: Int) {
            guard index < depth else { return }
            let sibling = module.perform(request: Endpoint(path: "/hang", timeout: 0.005)) {
                siblings.record(index, $0)
            }
            module.perform(request: Endpoint(path: "/hang", timeout: 0.003)) { result in
                chain.record(index, result)
                sibling.cancel()
                step(index + 1)
            }
        }
        step(0)

        #expect(await Self.wait(until: { chain.completed == depth && siblings.completed == depth }, seconds: 60))
        #expect(chain.notOnce.isEmpty, "chain: \(chain.notOnce.prefix(20))")
        #expect(siblings.notOnce.isEmpty, "siblings: \(siblings.notOnce.prefix(20))")
        #expect(chain.outcomeSummary() == ["timedOut": depth])
        let siblingOutcomes = siblings.outcomeSummary()
        #expect(Set(siblingOutcomes.keys).isSubset(of: ["timedOut", "cancelled"]), "\(siblingOutcomes)")
    }

    // MARK: - Actions, retries, a released module

    @Test(
        "when an action's prepare never answers, the request should time out once, with didFinish last",
        arguments: sessionKinds)
    func hangingPrepareTimesOut(kind: String) async throws {
        let hooks = HookOrder()
        let module = Self.module(
            kind, baseURL: try IntegrationServers.httpbin(), actions: [HangingPrepare(), hooks])
        let count = 20
        let results = Results(count)
        for index in 0..<count {
            module.perform(request: Endpoint(path: "/get", headers: ["X-Hang": "yes"], timeout: 0.05)) {
                results.record(index, $0)
            }
        }
        #expect(await Self.wait(until: { results.completed == count }, seconds: 30))
        #expect(results.notOnce.isEmpty, "\(results.notOnce)")
        #expect(results.outcomeSummary() == ["timedOut": count])
        #expect(hooks.problems().isEmpty, "\(hooks.problems())")
    }

    @Test(
        "when an action's prepare answers only after the timeout, the request should time out once and send nothing",
        arguments: sessionKinds)
    func latePrepareAfterTimeout(kind: String) async throws {
        let hooks = HookOrder()
        let module = Self.module(
            kind, baseURL: try IntegrationServers.httpbin(), actions: [LatePrepare(delay: 0.3), hooks])
        let count = 20
        let results = Results(count)
        for index in 0..<count {
            module.perform(request: Endpoint(path: "/get", timeout: 0.05)) { results.record(index, $0) }
        }
        #expect(await Self.wait(until: { results.completed == count }, seconds: 30, settle: 1.5))
        #expect(results.notOnce.isEmpty, "\(results.notOnce)")
        #expect(results.outcomeSummary() == ["timedOut": count])
        #expect(hooks.problems().isEmpty, "\(hooks.problems())")
        #expect(hooks.received() == 0, "an attempt was sent after its request timed out")
    }

    @Test(
        "when every attempt of a retried request times out, and some are cancelled meanwhile, each should complete once with didFinish last",
        arguments: sessionKinds)
    func retriedTimeouts(kind: String) async throws {
        let hooks = HookOrder()
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: 0.01, jitter: 0)
        let module = Self.module(
            kind, baseURL: try IntegrationServers.faultServer(), actions: [.retry(policy, random: { 0.5 }), hooks])
        let count = 40
        let results = Results(count)
        for index in 0..<count {
            let cancellable = module.perform(request: Endpoint(path: "/hang", timeout: 0.02 + Double(index % 5) / 100))
            {
                results.record(index, $0)
            }
            if index % 4 == 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + Double(index % 12) / 100) { cancellable.cancel() }
            }
        }
        #expect(await Self.wait(until: { results.completed == count }, seconds: 60, settle: 1.5))
        #expect(results.notOnce.isEmpty, "\(results.notOnce)")
        let summary = results.outcomeSummary()
        #expect(Set(summary.keys).isSubset(of: ["timedOut", "cancelled"]), "\(summary)")
        #expect((summary["timedOut"] ?? 0) >= count * 3 / 4, "\(summary)")
        #expect(hooks.problems().isEmpty, "\(hooks.problems().prefix(20))")
        print("retried timeouts \(kind): \(summary), hooks \(hooks.summary())")
    }

    @Test(
        "when a module and its session are released with timed-out requests in flight, each should still complete once",
        arguments: sessionKinds)
    func releasedModule(kind: String) async throws {
        let fault = try IntegrationServers.faultServer()
        let count = 100
        let results = Results(count)
        do {
            let module = Self.module(kind, baseURL: fault)
            for index in 0..<count {
                module.perform(request: Endpoint(path: "/hang", timeout: Double(1 + index % 50) / 1000)) {
                    results.record(index, $0)
                }
            }
        }
        #expect(await Self.wait(until: { results.completed == count }, seconds: 60))
        #expect(results.notOnce.isEmpty, "\(results.notOnce)")
        #expect(results.outcomeSummary() == ["timedOut": count])
    }

    // MARK: - Every timeout value

    static let oddTimeouts: [Double] = [
        0, -0.0, -1, .nan, -.nan, .signalingNaN, .infinity, -.infinity, 1e300, .greatestFiniteMagnitude,
        1.8e10, 1e9, 1e9 + 1, 1e-300, .leastNonzeroMagnitude, 1e-9, 1e-6,
    ]

    static func oddTimeoutValues(kind: String) async throws {
        let httpbin = try IntegrationServers.httpbin()
        let module = Self.module(kind, baseURL: httpbin)
        var lines: [String] = []
        for seconds in oddTimeouts {
            let viaBuilder = await module.outcome(of: Endpoint(path: "/get", timeout: seconds))
            var urlRequest = URLRequest(url: httpbin.appendingPathComponent("get"))
            urlRequest.timeoutInterval = seconds
            let viaURLRequest = await withCheckedContinuation { continuation in
                module.perform(urlRequest: urlRequest) { continuation.resume(returning: $0) }
            }
            lines.append("\(seconds): builder \(Self.describe(viaBuilder)); urlRequest \(Self.describe(viaURLRequest))")
            if !(seconds.isFinite && seconds > 0) {
                if case .failure(.invalidRequest(.invalidTimeout)) = viaBuilder {
                } else {
                    Issue.record("timeout \(seconds) in the builder gave \(viaBuilder)")
                }
                // 60 s meaning: httpbin answers at once.
                #expect(
                    (try? viaURLRequest.get().statusCode) == 200, "timeoutInterval \(seconds) gave \(viaURLRequest)")
            } else if seconds >= 1 {
                #expect((try? viaBuilder.get().statusCode) == 200, "timeout \(seconds) gave \(viaBuilder)")
                #expect(
                    (try? viaURLRequest.get().statusCode) == 200, "timeoutInterval \(seconds) gave \(viaURLRequest)")
            }
        }
        print("odd timeouts \(kind):\n" + lines.joined(separator: "\n"))
    }

    static func describe(_ result: Result<NetworkResponse, NetworkError>) -> String {
        switch result {
        case .success(let response): return "\(response.statusCode)"
        case .failure(let error): return "\(error)"
        }
    }

    @Test(
        "probe (child process only): odd timeout values on the transport",
        .enabled(if: ChildProcess.isProbe("deadline-odd-URLSessionTransport")))
    func probeOddTransport() async throws {
        try await Self.oddTimeoutValues(kind: "URLSessionTransport")
    }

    @Test(
        "probe (child process only): odd timeout values on a plain URLSession",
        .enabled(if: ChildProcess.isProbe("deadline-odd-URLSession")))
    func probeOddURLSession() async throws {
        try await Self.oddTimeoutValues(kind: "URLSession")
    }

    @Test(
        "when a timeout is 0, negative, NaN, infinite, huge or tiny, in the request or its URLRequest, should fail clearly or mean 60 s, never trap",
        arguments: sessionKinds)
    func oddTimeoutsInAChildProcess(kind: String) async throws {
        #if os(Linux)
            _ = try IntegrationServers.httpbin()
            let filter = kind == "URLSession" ? "probeOddURLSession" : "probeOddTransport"
            let outcome = try await ChildProcess.run(probe: "deadline-odd-\(kind)", filter: filter, timeout: 300)
            print(
                outcome.output.split(separator: "\n").filter { $0.contains("builder") || $0.contains("✘") }
                    .joined(separator: "\n"))
            #expect(outcome.succeeded, "\(outcome.output.suffix(4_000))")
        #endif
    }
}

/// Records each request's hooks: didFinish at most once, and nothing after it.
private final class HookOrder: NetworkModuleAction, Sendable {
    private struct State {
        var finished: Set<UUID> = []
        var problems: [String] = []
        var received = 0
        var finishedCount = 0
    }
    private let state = LockedState(State())

    func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        state.withLock { state in
            state.received += 1
            if state.finished.contains(context.requestID) {
                state.problems.append("didReceive after didFinish for \(context.requestID)")
            }
        }
    }

    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        state.withLock { state in
            state.finishedCount += 1
            if !state.finished.insert(context.requestID).inserted {
                state.problems.append("didFinish twice for \(context.requestID)")
            }
        }
    }

    func problems() -> [String] { state.withLock { $0.problems } }
    func received() -> Int { state.withLock { $0.received } }
    func summary() -> String { state.withLock { "didReceive \($0.received), didFinish \($0.finishedCount)" } }
}

/// Never answers `prepare` for a request with an `X-Hang` header.
private struct HangingPrepare: NetworkModuleAction {
    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        if urlRequest.value(forHTTPHeaderField: "X-Hang") == nil { completion(.success(urlRequest)) }
    }
}

/// Answers `prepare` only after `delay` seconds.
private struct LatePrepare: NetworkModuleAction {
    let delay: TimeInterval

    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { completion(.success(urlRequest)) }
    }
}
