import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built-in actions on the wire: httpbin checks the credentials and echoes what arrived.
@Suite("Integration: built-in actions", .integration)
struct ActionsIntegrationTests {
    /// A token provider whose refresh answers after a pause on another queue, counting calls.
    final class SlowRefreshTokens: AccessTokenProvider {
        let current: String
        let refreshed: String
        let refreshDelay: TimeInterval
        let currentDelay: TimeInterval
        private let counts = LockedCounts()

        init(current: String, refreshed: String, currentDelay: TimeInterval = 0, refreshDelay: TimeInterval = 0.2) {
            self.current = current
            self.refreshed = refreshed
            self.currentDelay = currentDelay
            self.refreshDelay = refreshDelay
        }

        var currentCalls: Int { counts.value.current }
        var refreshCalls: Int { counts.value.refresh }

        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            counts.bump(refresh: false)
            let token = current
            DispatchQueue.global().asyncAfter(deadline: .now() + currentDelay) { completion(.success(token)) }
        }

        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            counts.bump(refresh: true)
            let token = refreshed
            DispatchQueue.global().asyncAfter(deadline: .now() + refreshDelay) { completion(.success(token)) }
        }
    }

    /// Call counts behind a lock.
    final class LockedCounts: @unchecked Sendable {
        // @unchecked Sendable is safe: `counts` is only touched while holding `lock`.
        private let lock = NSLock()
        private var counts = (current: 0, refresh: 0)

        var value: (current: Int, refresh: Int) { lock.withLock { counts } }

        func bump(refresh: Bool) {
            lock.withLock {
                if refresh { counts.refresh += 1 } else { counts.current += 1 }
            }
        }
    }

    /// Everything a closure receives, behind a lock.
    final class Collected<Value: Sendable>: @unchecked Sendable {
        // @unchecked Sendable is safe: `values` is only touched while holding `lock`.
        private let lock = NSLock()
        private var values: [Value] = []

        var all: [Value] { lock.withLock { values } }

        func append(_ value: Value) { lock.withLock { values.append(value) } }
    }

    /// Records the delays asked for, and waits them out on a dispatch timer.
    struct RecordingScheduler: DelayScheduler {
        let delays = Collected<TimeInterval>()

        func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable {
            delays.append(delay)
            return DispatchDelayScheduler().schedule(after: delay, work)
        }
    }

    /// The scheduler of a `NetworkConnectivity`'s wait limits: signals when a request begins to
    /// wait (its limit is scheduled), and runs each limit as the system would.
    final class WaitSignallingScheduler: DelayScheduler, Sendable {
        private let waitScheduled = DispatchSemaphore(value: 0)

        func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable {
            defer { waitScheduled.signal() }
            return DispatchDelayScheduler().schedule(after: delay, work)
        }

        /// Waits until a request begins to wait, for at most `seconds`, on a thread of its own
        /// (see `WireCounter.waitUntilFinished`).
        func waitForFirstWait(within seconds: TimeInterval) async -> Bool {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { [waitScheduled] in
                    continuation.resume(returning: waitScheduled.wait(timeout: .now() + seconds) == .success)
                }
            }
        }
    }

    struct Authenticated: NetworkRequest {
        var path: String
        var requiresAuthentication: Bool { true }
    }

    // MARK: - Authentication

    @Test("when 50 concurrent requests all get 401, should refresh exactly once and deliver 50 successes")
    func fiftyConcurrent401s() async throws {
        let tokens = SlowRefreshTokens(current: "user:wrong", refreshed: "user:passwd")
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(), actions: [.authentication(tokens, scheme: .basic)])

        let statuses = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try? await module.outcome(of: Authenticated(path: "/basic-auth/user/passwd")).get().statusCode
                }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }

        #expect(tokens.refreshCalls == 1)
        #expect(tokens.currentCalls == 1)
        #expect(statuses.compactMap { $0 } == Array(repeating: 200, count: 50))
    }

    @Test("when a request needs the token, should send it to the API's origin and never to another host")
    func tokenStaysOnOrigin() async throws {
        let tokens = SlowRefreshTokens(current: "t0k", refreshed: "t0k")
        let faultServer = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(), actions: [.authentication(tokens)])

        let echoed = try await module.perform(request: Authenticated(path: "/bearer"))
        let elsewhere = try await module.perform(
            request: Authenticated(path: faultServer.appendingPathComponent("echo-headers").absoluteString))

        struct BearerEcho: Decodable {
            let authenticated: Bool
            let token: String
        }
        #expect(try echoed.decode(BearerEcho.self).token == "t0k")
        let elsewhereHeaders = try JSONSerialization.jsonObject(with: elsewhere.data) as? [String: Any]
        #expect(elsewhereHeaders?.keys.contains { $0.lowercased() == "authorization" } == false)
    }

    @Test("when fixed basic credentials are wrong, should deliver the 401 after one attempt")
    func wrongBasicCredentials() async throws {
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(),
            actions: [.basicAuthentication(username: "user", password: "nope")])

        let error = await module.outcome(of: Authenticated(path: "/basic-auth/user/passwd")).error

        #expect(error?.statusCode == 401)
    }

    // MARK: - Retry

    @Test("when the server keeps answering 503, should wait the policy's delays and deliver the third 503")
    func retryBackoff() async throws {
        let scheduler = RecordingScheduler()
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: 0.05, jitter: 0)
        let attempts = Collected<Int>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: try IntegrationServers.httpbin()),
            session: IntegrationServers.makeSession(),
            actions: [.retry(policy), .metrics { attempts.append($0.attempts) }],
            completionExecutor: .background, delayScheduler: scheduler)

        let error = await module.outcome(of: Endpoint(path: "/status/503")).error

        #expect(error?.statusCode == 503)
        #expect(scheduler.delays.all == [0.05, 0.1])
        #expect(attempts.all == [3])
    }

    @Test("when the response says Retry-After, should wait exactly that long")
    func retryAfterOnTheWire() async throws {
        let scheduler = RecordingScheduler()
        // httpbin sets any header on a 200; the validation action makes that 200 a failure.
        let policy = RetryPolicy(maxAttempts: 2, isRetryable: { $0.statusCode == 200 })
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: try IntegrationServers.httpbin()),
            session: IntegrationServers.makeSession(),
            actions: [.failing(statusCodes: [200]), .retry(policy)],
            completionExecutor: .background, delayScheduler: scheduler)

        let error = await module.outcome(
            of: Endpoint(path: "/response-headers", queryItems: [URLQueryItem(name: "Retry-After", value: "1")])
        ).error

        #expect(error?.statusCode == 200)
        #expect(scheduler.delays.all == [1])
    }

    @Test("when a connection is lost while the network is down, should wait for it and then send again")
    func retryWaitsForTheNetwork() async throws {
        let scheduler = RecordingScheduler()
        let waitStarted = WaitSignallingScheduler()
        let connectivity = NetworkConnectivity(isReachable: false, delayScheduler: waitStarted)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: try IntegrationServers.faultServer()),
            session: IntegrationServers.makeSession(),
            actions: [.retry(RetryPolicy.default.waitingForNetwork(on: connectivity))],
            completionExecutor: .background, delayScheduler: scheduler)
        // The first answer is cut off mid-body (.networkConnectionLost), the second is whole.
        let flaky = Endpoint(
            path: "/flaky",
            queryItems: [
                URLQueryItem(name: "key", value: UUID().uuidString), URLQueryItem(name: "first", value: "cut"),
                URLQueryItem(name: "then", value: "v2"),
            ])

        async let outcome = module.outcome(of: flaky)
        // The network comes back only once the request waits for it (its wait's limit is
        // scheduled): an event, not a poll, so a loaded machine that is slow to cut the first
        // answer cannot make the network come back before the request failed.
        let began = await waitStarted.waitForFirstWait(within: 60)
        let waited = connectivity.waitingCount
        connectivity.update(isReachable: true)

        let response = try await outcome.get()
        #expect(began, "the lost connection began to wait for the network within 60 s")
        #expect(waited == 1, "the lost connection waited for the network")
        #expect(response.data == Data("v2".utf8))
        #expect(scheduler.delays.all.isEmpty, "sent again when the network came back, not on the backoff")
    }

    // MARK: - Headers, logging, metrics

    @Test("when headers are injected, should reach the server")
    func headersOnTheWire() async throws {
        // The fault server echoes every header; httpbin hides X-Request-Id.
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.faultServer(),
            actions: [.headers(["User-Agent": "Notes/2.4.1"]), .requestID()])

        let echo = try await module.perform(request: Endpoint(path: "/echo-headers"))

        let headers = HTTPHeaders(try JSONSerialization.jsonObject(with: echo.data) as? [String: Any] ?? [:])
        #expect(headers["User-Agent"] == "Notes/2.4.1")
        #expect(headers["X-Request-ID"].flatMap(UUID.init(uuidString:)) != nil, "\(headers)")
    }

    @Test("when requests carry a token, a cookie and a secret query item, should keep every secret out of the log")
    func loggingRedactsOnTheWire() async throws {
        let log = Collected<String>()
        let tokens = SlowRefreshTokens(current: "bearer-secret", refreshed: "bearer-secret")
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(),
            defaultHeaders: ["Cookie": "session=cookie-secret"],
            actions: [
                .authentication(tokens),
                .logging(redaction: .default.adding(queryItems: ["token"]), curl: true, sink: { log.append($0) }),
            ])

        _ = try await module.perform(request: Authenticated(path: "/headers"))
        _ = try await module.perform(
            request: Endpoint(path: "/status/204", queryItems: [URLQueryItem(name: "token", value: "query-secret")]))

        let text = log.all.joined(separator: "\n")
        #expect(log.all.count == 2)
        for secret in ["bearer-secret", "cookie-secret", "query-secret"] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        #expect(text.contains("\"Authorization\" : \"REDACTED\""), "httpbin's echo of the header is masked too")
    }

    @Test("when a request waits for its token and the server, should report the time in each and the bytes")
    func metricsOnTheWire() async throws {
        let reports = Collected<RequestMetrics>()
        let tokens = SlowRefreshTokens(current: "t0k", refreshed: "t0k", currentDelay: 0.3)
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(),
            actions: [.authentication(tokens), .metrics { reports.append($0) }])
        struct SlowPost: NetworkRequest {
            var path: String { "/delay/1" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { .data(Data("twelve bytes".utf8), contentType: "text/plain") }
            var requiresAuthentication: Bool { true }
        }

        let response = try await module.perform(request: SlowPost())

        let metrics = try #require(reports.all.first)
        #expect(metrics.outcome == .success(200))
        #expect(metrics.attempts == 1)
        #expect(metrics.bytesSent == 12)
        #expect(metrics.bytesReceived == response.data.count)
        #expect(metrics.preparationDuration >= 0.3, "the token wait")
        #expect(metrics.inFlightDuration >= 1, "httpbin's delay")
        #expect(metrics.preparationDuration + metrics.inFlightDuration <= metrics.totalDuration)
    }
}
