import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retry that waits for the network: a module on a fake session, a connectivity the test
/// reports, and a manual clock, so that every test is deterministic and none sleeps.
@Suite("Retry: waiting for the network")
struct NetworkConnectivityTests {
    let clock = ManualDelayScheduler()
    let retryClock = ManualDelayScheduler()

    /// A module that retries on `connectivity` (with a 30-second limit), on `session`.
    func module(_ session: FakeNetworkSession, _ connectivity: NetworkConnectivity) -> DefaultNetworkModule {
        makeModule(
            session: session, actions: [.retry(RetryPolicy.default.waitingForNetwork(on: connectivity, upTo: 30))],
            scheduler: retryClock)
    }

    func offline() -> NetworkConnectivity {
        NetworkConnectivity(isReachable: false, delayScheduler: clock)
    }

    @Test("when offline, should wait without sending, then retry at once when the network comes back")
    func waitsThenRetries() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.notConnectedToInternet), .status(200))
        let connectivity = offline()
        let results = ResultCollector<NetworkResponse>()

        module(session, connectivity).perform(request: TestRequest(), completion: results.completion)
        #expect(connectivity.waitingCount == 1)
        #expect(results.count == 0)
        #expect(session.recordedRequests.count == 1)

        connectivity.update(isReachable: true)

        #expect(results.singleValue?.statusCode == 200)
        #expect(session.recordedRequests.count == 2)
        #expect(connectivity.waitingCount == 0)
        #expect(retryClock.requestedDelays.isEmpty, "no backoff: retried when the network came back")
        #expect(clock.pendingCount == 0, "the time limit is cancelled")
    }

    @Test("when the network stays away past the limit, should fail with the error that made it wait")
    func timeLimit() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.networkConnectionLost))
        let connectivity = offline()
        let results = ResultCollector<NetworkResponse>()

        module(session, connectivity).perform(request: TestRequest(), completion: results.completion)
        clock.advance(by: 29.9)
        #expect(results.count == 0)
        clock.advance(by: 0.1)

        #expect(results.singleError == .networkConnectionLost)
        #expect(session.recordedRequests.count == 1)
        #expect(connectivity.waitingCount == 0)
    }

    @Test("when cancelled while waiting, should deliver .cancelled at once, leave the list, and never send again")
    func cancelWhileWaiting() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.notConnectedToInternet), .status(200))
        let connectivity = offline()
        let results = ResultCollector<NetworkResponse>()

        let handle = module(session, connectivity).perform(request: TestRequest(), completion: results.completion)
        handle.cancel()

        #expect(results.singleError == .cancelled)
        #expect(connectivity.waitingCount == 0, "a cancelled request waits no more")
        #expect(clock.pendingCount == 0, "its time limit is cancelled")
        connectivity.update(isReachable: true)
        clock.advance(by: 60)
        #expect(results.count == 1)
        #expect(session.recordedRequests.count == 1)
    }

    @Test("when the app stops waiting, should fail every waiting request with its error")
    func stopWaiting() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.notConnectedToInternet))
        let connectivity = offline()
        let module = module(session, connectivity)
        let results = ResultCollector<NetworkResponse>()
        module.perform(request: TestRequest(), completion: results.completion)
        module.perform(request: TestRequest(), completion: results.completion)
        #expect(connectivity.waitingCount == 2)

        connectivity.stopWaiting()

        let errors = results.results.map { result -> NetworkError? in
            if case .failure(let error) = result { error } else { nil }
        }
        #expect(errors == [.notConnectedToInternet, .notConnectedToInternet])
        #expect(connectivity.waitingCount == 0)
    }

    @Test(
        "when the failure is not for lack of network, or the network is reachable, should retry on the backoff",
        arguments: [(StubbedResponse.status(503), false), (.error(.notConnectedToInternet), true)])
    func backoffOtherwise(failure: StubbedResponse, reachable: Bool) {
        let session = FakeNetworkSession()
        session.stub(.any, with: failure, .status(200))
        let connectivity = NetworkConnectivity(isReachable: reachable, delayScheduler: clock)
        let results = ResultCollector<NetworkResponse>()

        module(session, connectivity).perform(request: TestRequest(), completion: results.completion)
        #expect(connectivity.waitingCount == 0)
        retryClock.runAll()

        #expect(retryClock.requestedDelays.count == 1)
        #expect(results.singleValue?.statusCode == 200)
    }

    @Test("when no attempt is left, should fail at once instead of waiting")
    func noAttemptLeft() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.notConnectedToInternet))
        let connectivity = offline()
        let results = ResultCollector<NetworkResponse>()
        let module = makeModule(
            session: session,
            actions: [.retry(RetryPolicy(maxAttempts: 1).waitingForNetwork(on: connectivity))], scheduler: retryClock)

        module.perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == .notConnectedToInternet)
        #expect(connectivity.waitingCount == 0)
    }

    @Test("when a transport error says data is not allowed, should wait as for no connection")
    func otherConnectivityCodes() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.dataNotAllowed), .status(200))
        let connectivity = offline()

        module(session, connectivity).perform(request: TestRequest()) { _ in }

        #expect(connectivity.waitingCount == 1)
    }

    @Test("when cancel, the network's return, the time limit and stopWaiting race, should complete once (stress)")
    func raceCompletesOnce() async {
        for _ in 0..<200 {
            let session = FakeNetworkSession()
            session.stub(.any, with: .error(.notConnectedToInternet), .status(200))
            let clock = ManualDelayScheduler()
            let connectivity = NetworkConnectivity(isReachable: false, delayScheduler: clock)
            let module = makeModule(
                session: session, actions: [.retry(RetryPolicy.default.waitingForNetwork(on: connectivity, upTo: 1))],
                scheduler: retryClock)
            let results = ResultCollector<NetworkResponse>()
            let handle = module.perform(request: TestRequest(), completion: results.completion)

            await withTaskGroup(of: Void.self) { group in
                group.addTask { handle.cancel() }
                group.addTask { connectivity.update(isReachable: true) }
                group.addTask { clock.advance(by: 1) }
                group.addTask { connectivity.stopWaiting() }
            }

            #expect(results.count == 1)
            #expect(connectivity.waitingCount == 0)
        }
    }

    #if canImport(FoundationNetworking)
        @Test("when following the system on Linux, which has no path monitor, should count the network as reachable")
        func linuxFallback() {
            let connectivity = NetworkConnectivity()

            let reachable = connectivity.isReachable
            connectivity.update(isReachable: false)

            #expect(reachable)
            #expect(!connectivity.isReachable, "a monitor of the app's own reports through update(isReachable:)")
        }
    #endif
}
