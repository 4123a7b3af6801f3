import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Attacks on the tracing action (issue 42) on loopback, through the framework's transport and
/// a plain `URLSession`: what reaches the servers, and many requests at once with cancels.
@Suite("Integration: tracing attacks", .integration)
struct TracingAttackIntegrationTests {
    static let sessionKinds = ["URLSessionTransport", "URLSession"]

    static func session(_ kind: String) -> any NetworkSession {
        kind == "URLSession"
            ? URLSessionAdapter(URLSession(configuration: .ephemeral)) : IntegrationServers.makeSession()
    }

    /// The header fields a server echoed, as `name → values`, names as they came.
    static func echoed(_ data: Data) throws -> [String: [String]] {
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        // httpbin nests them under "headers"; the fault server's /echo-headers does not.
        let fields = (object["headers"] as? [String: Any]) ?? object
        return fields.mapValues { value in (value as? [String]) ?? [(value as? String) ?? "\(value)"] }
    }

    /// `base` with `path` after it, one slash between.
    static func join(_ base: URL, _ path: String) -> String {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text + path
    }

    static func traceFields(_ fields: [String: [String]]) -> [String: [String]] {
        fields.filter { ["traceparent", "tracestate"].contains($0.key.lowercased()) }
    }

    static let parent = TraceContext(
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "congo=t61rcWkgMzE")

    // MARK: - What the servers receive

    @Test(
        "when a redirect leaves the allowed origin on loopback, the other origin should receive no trace header; a same-origin hop should receive the attempt's",
        arguments: sessionKinds)
    func redirectsOnLoopback(kind: String) async throws {
        let fault = try IntegrationServers.faultServer()
        let httpbin = try IntegrationServers.httpbin()
        let spans = SpanRecorder()
        let module = IntegrationServers.module(
            baseURL: fault, session: Self.session(kind),
            actions: [.tracing(parent: { _ in Self.parent }, report: spans.record)])
        let targets = [
            (Self.join(fault, "/echo-headers"), true),
            (Self.join(httpbin, "/headers"), false),
        ]

        for (target, sameOrigin) in targets {
            spans.removeAll()
            let response = try await module.perform(
                request: Endpoint(path: "/redirect-to", queryItems: [URLQueryItem(name: "url", value: target)]))
            let received = Self.traceFields(try Self.echoed(response.data))
            let attempt = try #require(spans.spans.first { $0.kind == .attempt })
            print("\(kind) redirect to \(target): received \(received)")
            if sameOrigin {
                #expect(
                    received.values.flatMap { $0 } == [attempt.context.traceparent, "congo=t61rcWkgMzE"]
                        || received.values.flatMap { $0 } == ["congo=t61rcWkgMzE", attempt.context.traceparent])
            } else if kind == "URLSession" {
                // A plain URLSession follows redirects itself, out of the framework's sight: on
                // Linux it forwards the trace headers as it forwards credentials, as the action's
                // documentation and the Sessions guide say. Pinned, so that the documentation
                // changes if swift-corelibs-foundation starts to drop them.
                #if canImport(FoundationNetworking)
                    #expect(!received.isEmpty, "the other origin got \(received)")
                #endif
            } else {
                #expect(received.isEmpty, "the other origin got \(received)")
            }
        }
    }

    @Test(
        "when a redirect policy puts traceparent back on a cross-origin hop through the transport, the other origin should still receive none"
    )
    func policyCannotPutThemBack() async throws {
        let fault = try IntegrationServers.faultServer()
        let httpbin = try IntegrationServers.httpbin()
        let spans = SpanRecorder()
        let policy = RedirectPolicy.decide { _, next, _ in
            var next = next
            next.setValue("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", forHTTPHeaderField: "TraceParent")
            next.setValue("congo=t61rcWkgMzE", forHTTPHeaderField: "TraceState")
            return next
        }
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: fault), session: IntegrationServers.makeSession(),
            actions: [.tracing(report: spans.record)], completionExecutor: .background, redirectPolicy: policy)

        let response = try await module.perform(
            request: Endpoint(
                path: "/redirect-to", queryItems: [URLQueryItem(name: "url", value: Self.join(httpbin, "/headers"))]))

        let received = Self.traceFields(try Self.echoed(response.data))
        print("policy puts them back, transport: the other origin received \(received)")
        #expect(received.isEmpty)
    }

    @Test(
        "when the URLRequest carries traceparent in two casings, the allowed origin should receive one, the attempt's, and another origin none",
        arguments: sessionKinds)
    func twoCasingsOnTheWire(kind: String) async throws {
        let fault = try IntegrationServers.faultServer()
        let httpbin = try IntegrationServers.httpbin()
        let spans = SpanRecorder()
        let module = IntegrationServers.module(
            baseURL: fault, session: Self.session(kind), actions: [.tracing(report: spans.record)])

        for (url, allowed) in [
            (Self.join(fault, "/echo-headers"), true),
            (Self.join(httpbin, "/headers"), false),
        ] {
            spans.removeAll()
            var request = URLRequest(url: try #require(URL(string: url)))
            request.allHTTPHeaderFields = [
                "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "TraceParent": "00-11111111111111111111111111111111-2222222222222222-01",
            ]
            let response = try await module.perform(urlRequest: request)
            let received = Self.traceFields(try Self.echoed(response.data))
            let attempt = try #require(spans.spans.first { $0.kind == .attempt })
            print("\(kind) two casings to \(url): received \(received)")
            // Found broken: the action replaced or removed one casing only, so the other reached
            // another origin, or the allowed one instead of (or beside) the attempt's.
            if allowed {
                #expect(received.values.flatMap { $0 } == [attempt.context.traceparent])
            } else {
                #expect(received.isEmpty)
            }
        }
    }

    // MARK: - Many requests at once, in a child process

    /// Requests the stress sends: `NETWORK_MODULE_STRESS_REQUESTS`, else 320.
    static var stressCount: Int {
        ProcessInfo.processInfo.environment["NETWORK_MODULE_STRESS_REQUESTS"].flatMap(Int.init) ?? 320
    }

    /// The tracing action's entries still in its table.
    static func openTraces(_ action: TracingAction) -> Int {
        let table = Mirror(reflecting: action).children.first { $0.label == "traces" }?.value
        return (table as? LockedState<[UUID: TracingAction.RequestTrace]>)?.withLock { $0.count } ?? -1
    }

    /// Runs the stress on `kind` and checks it: each request completed once, each request span
    /// once, every attempt span at most once and before its request's, no entry left.
    static func stress(kind: String) async throws {
        let httpbin = try IntegrationServers.httpbin()
        let count = stressCount
        let spans = SpanRecorder()
        let tracing = TracingAction(origins: nil, parent: { _ in nil }, redaction: .default, report: spans.record)
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: 0.01, maxDelay: 0.05)
        let deduplicated = Self.session(kind).deduplicated()
        let module = IntegrationServers.module(
            baseURL: httpbin, session: deduplicated.cached(),
            actions: [BuiltInAction(tracing), .retry(policy)], executor: .background)
        let completions = LockedState([Int: Int]())
        let tasks = LockedState([Int: any NetworkCancellable]())
        let inFlight = DispatchSemaphore(value: 32)
        let paths = ["/cache/60", "/get", "/status/503", "/anything/a", "/delay/1", "/bytes/2048"]

        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = LockedState(0)
            Thread.detachNewThread {
                for index in 0..<count {
                    inFlight.wait()
                    let path = paths[index % paths.count]
                    let task = module.perform(request: Endpoint(path: path)) { _ in
                        completions.withLock { $0[index, default: 0] += 1 }
                        // An earlier request is cancelled when this one ends: cancels land in
                        // every phase, without a clock.
                        if index % 3 == 0 { tasks.withLock { $0[index - 3] }?.cancel() }
                        inFlight.signal()
                        if finished.withLock({ value in
                            value += 1
                            return value == count
                        }) {
                            continuation.resume()
                        }
                    }
                    tasks.withLock { $0[index] = task }
                    if index % 7 == 0 { task.cancel() }  // on the line after perform
                }
            }
        }

        let all = spans.spans
        let requests = all.filter { $0.kind == .request }
        let twice = completions.withLock { $0.filter { $0.value != 1 } }
        let problems = SpanChecks.problems(in: all)
        let cancelled = requests.filter(\.isCancelled).count
        let answers = Dictionary(grouping: all.filter { $0.kind == .attempt }, by: { $0.answer?.rawValue ?? "none" })
            .mapValues(\.count)
        let joined = deduplicated.statistics.joined
        print(
            "stress \(kind): \(count) requests, \(requests.count) request spans (\(cancelled) cancelled), \(all.count - requests.count) attempt spans, answers \(answers), \(joined) joined a shared call, \(problems.count) problems, \(openTraces(tracing)) entries left"
        )
        // Some joiners are cancelled (their spans have no answer); among twenty, some are not.
        if joined >= 20 {
            // Found broken: under a cache (deduplicated().cached()) no joined attempt said so.
            #expect(answers["sharedCall", default: 0] > 0)
        }
        #expect(completions.withLock { $0.count } == count)
        #expect(twice.isEmpty, "completed other than once: \(twice)")
        #expect(requests.count == count)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(openTraces(tracing) == 0)
    }

    @Test(
        "probe (child process only): 320 requests, 32 in flight, tracing + retry + dedup + cache on the transport, with cancels",
        .enabled(if: ChildProcess.isProbe("trace-stress-URLSessionTransport")))
    func probeStressTransport() async throws {
        try await Self.stress(kind: "URLSessionTransport")
    }

    @Test(
        "probe (child process only): 320 requests, 32 in flight, tracing + retry + dedup + cache on a plain URLSession, with cancels",
        .enabled(if: ChildProcess.isProbe("trace-stress-URLSession")))
    func probeStressURLSession() async throws {
        try await Self.stress(kind: "URLSession")
    }

    @Test(
        "when 320 requests (32 in flight) with tracing, retry, dedup and cache meet cancels, every request should complete once and every span be well formed and counted",
        arguments: sessionKinds)
    func stressInAChildProcess(kind: String) async throws {
        #if os(Linux)
            _ = try IntegrationServers.httpbin()
            let filter = kind == "URLSession" ? "probeStressURLSession" : "probeStressTransport"

            let outcome = try await ChildProcess.run(probe: "trace-stress-\(kind)", filter: filter, timeout: 900)

            let summary = outcome.output.split(separator: "\n").filter {
                $0.contains("stress ") || $0.contains("✘") || $0.contains("ThreadSanitizer")
            }
            print(summary.joined(separator: "\n"))
            #expect(outcome.succeeded, "\(outcome.output.suffix(4_000))")
        #endif
    }
}
