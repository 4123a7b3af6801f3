import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// After a burst of requests, everything a module was made of is freed once the caller lets
/// go of it: the module, its session decorators, its actions and what they hold. A retain
/// cycle anywhere keeps one of the weak references below alive.
@Suite("Lifetime")
struct LifetimeTests {
    /// An object captured by an action's closure: freed only if the action is.
    final class Sentinel: Sendable {}

    /// A token provider that answers at once.
    final class TokenProvider: AccessTokenProvider {
        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(.success("token"))
        }

        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(.success("fresh-token"))
        }
    }

    struct BurstRequest: NetworkRequest {
        var path: String
        var requiresAuthentication: Bool
    }

    @Test(
        "when a burst of requests has finished and the module is released, should free the module, its sessions and its actions"
    )
    func burstThenRelease() {
        weak var weakModule: DefaultNetworkModule?
        weak var weakFake: FakeNetworkSession?
        weak var weakThrottled: ThrottledSession?
        weak var weakDeduplicated: DeduplicatedSession?
        weak var weakCached: CachedSession?
        weak var weakAuthentication: AuthenticationAction?
        weak var weakProvider: TokenProvider?
        weak var weakScheduler: ManualDelayScheduler?
        weak var weakLoggingSentinel: Sentinel?
        weak var weakMetricsSentinel: Sentinel?
        weak var weakHeaderSentinel: Sentinel?
        let results = ResultCollector<NetworkResponse>()
        let count = 300

        do {
            let fake = FakeNetworkSession()
            let unauthorizedOnce = LockedState<Set<String>>([])
            fake.stub(.any) { request in
                let path = request.url?.path ?? ""
                if path.hasSuffix("/flaky") { return .status(503) }
                if path.hasSuffix("/expired") {
                    let first = unauthorizedOnce.withLock { $0.insert(path).inserted }
                    if first { return .status(401) }
                }
                return .json(#"{"ok":true}"#, headers: ["Cache-Control": "max-age=60"])
            }
            let throttled = ThrottledSession(wrapping: fake, maxConcurrent: 4)
            let deduplicated = throttled.deduplicated()
            let cached = deduplicated.cached()
            let provider = TokenProvider()
            let authentication = AuthenticationAction.authentication(provider)
            let scheduler = ManualDelayScheduler()
            let loggingSentinel = Sentinel()
            let metricsSentinel = Sentinel()
            let headerSentinel = Sentinel()
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL),
                session: cached,
                actions: [
                    BuiltInAction.header("X-Trace") { _ in
                        _ = headerSentinel
                        return "t"
                    },
                    authentication,
                    BuiltInAction.retry(RetryPolicy(maxAttempts: 2), random: { 0.5 }),
                    BuiltInAction.logging(sink: { _ in _ = loggingSentinel }),
                    BuiltInAction.metrics { _ in _ = metricsSentinel },
                ],
                completionExecutor: .immediate, delayScheduler: scheduler)
            weakModule = module
            weakFake = fake
            weakThrottled = throttled
            weakDeduplicated = deduplicated
            weakCached = cached
            weakAuthentication = authentication
            weakProvider = provider
            weakScheduler = scheduler
            weakLoggingSentinel = loggingSentinel
            weakMetricsSentinel = metricsSentinel
            weakHeaderSentinel = headerSentinel

            for index in 0..<count {
                let path = ["/users/\(index % 7)", "/flaky", "/expired/\(index % 5)", "/items/\(index)"][index % 4]
                let task = module.perform(
                    request: BurstRequest(path: path, requiresAuthentication: index % 3 == 0),
                    completion: results.completion)
                if index % 11 == 0 { task.cancel() }
            }
            while scheduler.pendingCount > 0 { scheduler.runAll() }
        }

        #expect(results.count == count)
        let outcomes = results.results
        #expect(outcomes.contains { (try? $0.get())?.statusCode == 200 }, "some requests succeed")
        #expect(outcomes.contains { if case .failure(.serverError) = $0 { true } else { false } }, "retried 503s fail")
        #expect(outcomes.contains { if case .failure(.cancelled) = $0 { true } else { false } }, "some are cancelled")
        #expect(weakModule == nil, "the module is kept alive")
        #expect(weakCached == nil, "CachedSession is kept alive")
        #expect(weakDeduplicated == nil, "DeduplicatedSession is kept alive")
        #expect(weakThrottled == nil, "ThrottledSession is kept alive")
        #expect(weakFake == nil, "the session at the bottom is kept alive")
        #expect(weakAuthentication == nil, "AuthenticationAction is kept alive")
        #expect(weakProvider == nil, "the token provider is kept alive")
        #expect(weakScheduler == nil, "the delay scheduler is kept alive")
        #expect(weakLoggingSentinel == nil, "LoggingAction's sink is kept alive")
        #expect(weakMetricsSentinel == nil, "MetricsAction's report is kept alive")
        #expect(weakHeaderSentinel == nil, "HeadersAction's value closure is kept alive")
    }
}
