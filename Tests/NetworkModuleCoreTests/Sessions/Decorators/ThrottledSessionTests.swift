import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ThrottledSession")
struct ThrottledSessionTests {
    /// A manual fake that answers every request with its path as the body.
    func manualFake() -> FakeNetworkSession {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any) { request in .text(request.url?.lastPathComponent ?? "") }
        return fake
    }

    func sentPaths(_ fake: FakeNetworkSession) -> [String] {
        fake.recordedRequests.map { $0.url?.lastPathComponent ?? "" }
    }

    @Test("when more requests than the limit are resumed, should send only the limit and queue the rest")
    func limitsRequestsInFlight() {
        let fake = manualFake()
        let session = fake.throttled(maxConcurrent: 2)

        let outcomes = (1...5).map { session.start(sessionRequest("/\($0)")).outcomes }

        #expect(sentPaths(fake) == ["1", "2"])
        #expect(session.statistics == .init(inFlight: 2, waiting: 3))
        #expect(outcomes.allSatisfy { $0.count == 0 })
    }

    @Test("when requests finish, should start the waiters in the order they were resumed")
    func startsWaitersInFIFOOrder() {
        let fake = manualFake()
        let session = fake.throttled(maxConcurrent: 2)
        let outcomes = (1...5).map { session.start(sessionRequest("/\($0)")).outcomes }

        fake.releaseNext()

        #expect(sentPaths(fake) == ["1", "2", "3"])
        #expect(outcomes[0].single?.body == "1")
        #expect(session.statistics == .init(inFlight: 2, waiting: 2))
        fake.releaseAll()
        #expect(sentPaths(fake) == ["1", "2", "3", "4", "5"])
        #expect(outcomes.map { $0.single?.body } == ["1", "2", "3", "4", "5"])
        #expect(session.statistics == .init(inFlight: 0, waiting: 0))
    }

    @Test("when a waiting request is cancelled, should complete it as cancelled at once and never send it")
    func cancelWhileWaiting() {
        let fake = manualFake()
        let session = fake.throttled(maxConcurrent: 1)
        session.start(sessionRequest("/1"))
        let (waiting, waitingOutcomes) = session.start(sessionRequest("/2"))
        let last = session.start(sessionRequest("/3")).outcomes

        waiting.cancel()

        #expect(waitingOutcomes.single?.errorCode == .cancelled)
        #expect(session.statistics == .init(inFlight: 1, waiting: 1))
        fake.releaseAll()
        #expect(sentPaths(fake) == ["1", "3"])
        #expect(waitingOutcomes.count == 1)
        #expect(last.single?.body == "3")
        #expect(fake.cancelledCount == 0, "a waiting request never reached the wrapped session")
    }

    @Test("when a request in flight is cancelled, should complete it as cancelled, cancel it below and start the next")
    func cancelInFlightStartsNext() {
        let fake = manualFake()
        let session = fake.throttled(maxConcurrent: 1)
        let (first, firstOutcomes) = session.start(sessionRequest("/1"))
        let second = session.start(sessionRequest("/2")).outcomes

        first.cancel()

        #expect(firstOutcomes.single?.errorCode == .cancelled)
        #expect(fake.cancelledCount == 1)
        #expect(sentPaths(fake) == ["1", "2"])
        #expect(session.statistics == .init(inFlight: 1, waiting: 0))
        fake.releaseAll()
        #expect(second.single?.body == "2")
        #expect(firstOutcomes.count == 1)
    }

    @Test("when cancelled twice or after finishing, should report only once")
    func cancelIsIdempotent() {
        let fake = manualFake()
        let session = fake.throttled(maxConcurrent: 1)
        let (task, outcomes) = session.start(sessionRequest("/1"))
        fake.releaseNext()

        task.cancel()
        task.cancel()

        #expect(outcomes.single?.body == "1")
        #expect(session.statistics == .init(inFlight: 0, waiting: 0))
    }

    @Test("when cancelled before being resumed, should report cancelled once and never send")
    func cancelBeforeResume() {
        let fake = manualFake()
        let session = fake.throttled(maxConcurrent: 1)
        let outcomes = SessionOutcomes()
        let task = session.dataTask(with: sessionRequest("/1"), completionHandler: outcomes.handler)

        task.cancel()
        task.resume()

        #expect(outcomes.single?.errorCode == .cancelled)
        #expect(fake.recordedRequests.isEmpty)
        #expect(session.statistics == .init(inFlight: 0, waiting: 0))
    }

    @Test("when the limit is below 1, should let one request through at a time")
    func limitBelowOne() {
        let fake = manualFake()
        let session = fake.throttled(maxConcurrent: 0)

        session.start(sessionRequest("/1"))
        session.start(sessionRequest("/2"))

        #expect(session.maxConcurrent == 1)
        #expect(session.statistics == .init(inFlight: 1, waiting: 1))
    }

    @Test("when a module's request waits for a place and is cancelled, should deliver .cancelled once")
    func moduleCancelWhileWaiting() {
        let fake = manualFake()
        let session = fake.throttled(maxConcurrent: 1)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, completionExecutor: .immediate
        )
        let first = ResultCollector<NetworkResponse>()
        let second = ResultCollector<NetworkResponse>()
        module.perform(request: TestRequest(path: "/1"), completion: first.completion)
        let waiting = module.perform(request: TestRequest(path: "/2"), completion: second.completion)

        waiting.cancel()

        #expect(second.singleError == .cancelled)
        #expect(session.statistics == .init(inFlight: 1, waiting: 0))
        fake.releaseAll()
        #expect(first.singleValue?.statusCode == 200)
        #expect(second.count == 1)
        #expect(fake.recordedRequests.count == 1)
    }

    @Test("when many threads send at once, should never exceed the limit and complete each request once")
    func concurrentUse() {
        let peak = LockedState((current: 0, highest: 0))
        let fake = FakeNetworkSession(holdingResponses: false)
        fake.stub(.any) { _ in
            peak.withLock {
                $0.current += 1
                $0.highest = max($0.highest, $0.current)
            }
            defer { peak.withLock { $0.current -= 1 } }
            return .status(200)
        }
        let session = fake.throttled(maxConcurrent: 3)
        let outcomes = (0..<200).map { _ in SessionOutcomes() }

        DispatchQueue.concurrentPerform(iterations: outcomes.count) { index in
            session.dataTask(with: sessionRequest("/\(index)"), completionHandler: outcomes[index].handler).resume()
        }

        #expect(outcomes.allSatisfy { $0.single?.status == 200 })
        #expect(peak.value.highest <= 3)
        #expect(session.statistics == .init(inFlight: 0, waiting: 0))
    }

    @Test("when hundreds wait behind a session that answers inside resume, should start each outside the others")
    func waitersStartWithoutNesting() {
        // A cache hit answers inside `resume()`; each answer frees the place for the next waiter.
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any) { _ in .text("hit", headers: ["Cache-Control": "max-age=60"]) }
        let probe = NestingProbe(wrapping: fake.cached())
        let session = probe.throttled(maxConcurrent: 1)
        let answers = LockedState(0)
        for _ in 0..<200 {
            session.dataTask(with: sessionRequest("/same")) { _, _, _ in answers.withLock { $0 += 1 } }.resume()
        }

        fake.releaseNext()

        #expect(answers.withLock { $0 } == 200)
        #expect(fake.recordedRequests.count == 1, "the waiters were answered from the cache")
        // Each waiter used to start inside the answer that freed its place, one `resume()` deeper
        // per waiter (about 2.4 KB of stack each), until thousands overflowed the stack. Counted
        // as nesting, not as stack addresses, which the address sanitizer moves to the heap.
        #expect(probe.deepestNesting == 1, "\(probe.deepestNesting) resume() calls were nested")
    }
}

/// Wraps a session and counts how many of its tasks' `resume()` calls are on the stack at once
/// (the tests that use it run on one thread).
private final class NestingProbe: NetworkSession {
    private struct Task: NetworkSessionTask {
        let inner: any NetworkSessionTask
        let depth: LockedState<(current: Int, deepest: Int)>

        func resume() {
            depth.withLock {
                $0.current += 1
                $0.deepest = max($0.deepest, $0.current)
            }
            inner.resume()
            depth.withLock { $0.current -= 1 }
        }

        func cancel() { inner.cancel() }
    }

    private let wrapped: any NetworkSession
    private let depth = LockedState((current: 0, deepest: 0))

    init(wrapping session: some NetworkSession) {
        wrapped = session
    }

    var deepestNesting: Int { depth.withLock { $0.deepest } }

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        Task(inner: wrapped.dataTask(with: request, completionHandler: completionHandler), depth: depth)
    }
}
