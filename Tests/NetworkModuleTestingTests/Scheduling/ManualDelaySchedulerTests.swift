import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ManualDelayScheduler")
struct ManualDelaySchedulerTests {
    @Test("when time advances, should run what falls due in due order, including work scheduled meanwhile")
    func advance() {
        let scheduler = ManualDelayScheduler()
        let ran = Messages()
        _ = scheduler.schedule(after: 3) { ran.hook("3 s") }
        _ = scheduler.schedule(after: 1) {
            ran.hook("1 s")
            _ = scheduler.schedule(after: 1) { ran.hook("1 s + 1 s") }
        }

        scheduler.advance(by: 2.5)

        #expect(ran.all == ["1 s", "1 s + 1 s"])
        #expect(scheduler.now == 2.5)
        #expect(scheduler.pendingCount == 1)
        #expect(scheduler.requestedDelays == [3, 1, 1])
    }

    @Test("when scheduled work is cancelled, should never run it")
    func cancel() {
        let scheduler = ManualDelayScheduler()
        let ran = Messages()
        let timer = scheduler.schedule(after: 1) { ran.hook("ran") }

        timer.cancel()
        scheduler.runAll()

        #expect(ran.all.isEmpty)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("when running all, should run everything however far ahead and move time to the last")
    func runAll() {
        let scheduler = ManualDelayScheduler()
        let ran = Messages()
        _ = scheduler.schedule(after: 60) { ran.hook("minute") }
        _ = scheduler.schedule(after: 5) { ran.hook("five") }

        scheduler.runAll()

        #expect(ran.all == ["five", "minute"])
        #expect(scheduler.now == 60)
    }

    @Test("when an action prepares later and the request is retried twice, should list the retry waits alone")
    func requestedDelaysAreWaitsOnly() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
            session: session,
            actions: [
                PreparesOnNextTick(scheduler: scheduler),
                .retry(RetryPolicy(initialDelay: 0.5, jitter: 0)),
            ],
            completionExecutor: .immediate, delayScheduler: scheduler)
        let status = LockedState<Int?>(nil)

        module.perform(request: Ping()) { result in status.withLock { $0 = try? result.get().statusCode } }
        scheduler.runAll()

        #expect(status.withLock { $0 } == 200)
        #expect(
            scheduler.requestedDelays == [0, 0.5, 0, 1, 0], "the 60 s time limits of the preparations are not waits")
    }
}

private struct Ping: NetworkRequest {
    var path: String { "/ping" }
}

/// An action that prepares each attempt later (a zero wait on the scheduler), as a token
/// provider that fetches does: the module bounds that wait by the request's 60 s timeout.
private struct PreparesOnNextTick: NetworkModuleAction {
    let scheduler: ManualDelayScheduler

    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        _ = scheduler.schedule(after: 0) { completion(.success(urlRequest)) }
    }
}
