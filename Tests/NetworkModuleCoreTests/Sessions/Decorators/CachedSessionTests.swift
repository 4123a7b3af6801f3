import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("CachedSession")
struct CachedSessionTests {
    let clock = ManualDelayScheduler()

    func cached(_ fake: FakeNetworkSession, maximumBytes: Int = 1_000, maximumEntries: Int = 10) -> CachedSession {
        fake.cached(
            maximumBytes: maximumBytes, maximumEntries: maximumEntries,
            now: { [clock] in Date(timeIntervalSinceReferenceDate: clock.now) })
    }

    // MARK: Freshness

    @Test("when a GET is repeated within max-age, should answer from the cache without a call")
    func hitWithinMaxAge() {
        let fake = countingFake()
        let session = cached(fake)
        let first = session.start(sessionRequest("/a")).outcomes
        clock.advance(by: 59)

        let second = session.start(sessionRequest("/a")).outcomes

        #expect(fake.recordedRequests.count == 1)
        #expect(first.single?.body == "/v2/a#1")
        #expect(second.single?.body == "/v2/a#1")
        #expect(second.single?.status == 200)
        #expect(second.single?.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(session.statistics == .init(hits: 1, misses: 1, revalidations: 0, evictions: 0, bytes: 7, entries: 1))
    }

    @Test("when max-age has passed and there are no validators, should fetch again")
    func expiredWithoutValidators() {
        let fake = countingFake()
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 60)

        let second = session.start(sessionRequest("/a")).outcomes

        #expect(second.single?.body == "/v2/a#2")
        #expect(fake.recordedRequests.count == 2)
        #expect(fake.recordedRequests[1].value(forHTTPHeaderField: "If-None-Match") == nil)
        #expect(session.statistics.misses == 2)
        #expect(session.statistics.entries == 1)
    }

    @Test("when the response has max-age and Age, should keep it fresh for max-age less Age")
    func maxAgeLessAge() {
        let fake = countingFake(headers: ["Cache-Control": "public, max-age=30", "Age": "10"])
        let session = cached(fake)
        session.start(sessionRequest("/a"))

        clock.advance(by: 19)
        let fresh = session.start(sessionRequest("/a")).outcomes
        clock.advance(by: 1)
        let stale = session.start(sessionRequest("/a")).outcomes

        #expect(fresh.single?.body == "/v2/a#1")
        #expect(stale.single?.body == "/v2/a#2")
    }

    @Test("when the response says no-store, should not keep it", arguments: ["no-store", "private, no-store"])
    func responseNoStore(cacheControl: String) {
        let fake = countingFake(headers: ["Cache-Control": cacheControl])
        let session = cached(fake)

        session.start(sessionRequest("/a"))
        session.start(sessionRequest("/a"))

        #expect(fake.recordedRequests.count == 2)
        #expect(session.statistics.entries == 0)
    }

    @Test("when the status is not 200, should not keep the response")
    func nonSuccessNotStored() {
        let fake = countingFake(status: 404)
        let session = cached(fake)

        session.start(sessionRequest("/a"))
        let second = session.start(sessionRequest("/a")).outcomes

        #expect(second.single?.status == 404)
        #expect(fake.recordedRequests.count == 2)
        #expect(session.statistics.entries == 0)
    }

    @Test("when the wrapped session followed a redirect, should not keep the end of it under the first URL")
    func followedRedirectNotStoredUnderTheFirstURL() {
        let target = apiBaseURL.appendingPathComponent("/target")
        let wire = RedirectFollowingSession(target: target)
        let session = wire.cached(now: { [clock] in Date(timeIntervalSinceReferenceDate: clock.now) })

        session.start(sessionRequest("/moved"))
        let second = session.start(sessionRequest("/moved")).outcomes

        #expect(second.single?.body == "target#2", "the 3xx on the way was never shown to the cache")
        #expect(wire.calls.value == 2)
        #expect(session.statistics.entries == 0)
    }

    // MARK: Revalidation

    @Test(
        "when a stored response with an ETag is stale, should send If-None-Match and answer a 304 with the stored 200")
    func revalidatesWithEntityTag() {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("hello", headers: ["ETag": "\"v1\""]), .status(304, headers: ["ETag": "\"v1\""]))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 61)

        let revalidated = session.start(sessionRequest("/a")).outcomes

        #expect(fake.recordedRequests.count == 2)
        #expect(fake.recordedRequests[1].value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        #expect(revalidated.single?.status == 200)
        #expect(revalidated.single?.body == "hello")
        #expect(revalidated.single?.headers["ETag"] == "\"v1\"")
        #expect(session.statistics == .init(hits: 0, misses: 1, revalidations: 1, evictions: 0, bytes: 5, entries: 1))
    }

    @Test("when a 304 has refreshed a response, should serve it from the cache for another max-age")
    func revalidationRefreshesFreshness() {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("hello", headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"]), .status(304))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 61)
        session.start(sessionRequest("/a"))
        clock.advance(by: 59)

        let third = session.start(sessionRequest("/a")).outcomes

        #expect(third.single?.body == "hello")
        #expect(fake.recordedRequests.count == 2)
        #expect(session.statistics.hits == 1)
    }

    @Test("when a stored response has Last-Modified, should revalidate with If-Modified-Since")
    func revalidatesWithLastModified() {
        let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("hello", headers: ["Last-Modified": lastModified]), .status(304))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 61)

        let revalidated = session.start(sessionRequest("/a")).outcomes

        #expect(fake.recordedRequests[1].value(forHTTPHeaderField: "If-Modified-Since") == lastModified)
        #expect(revalidated.single?.body == "hello")
        #expect(session.statistics.revalidations == 1)
    }

    @Test("when the response says no-cache, should revalidate it on every request")
    func responseNoCacheRevalidatesEveryTime() {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("hello", headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"]), .status(304))
        let session = cached(fake)
        session.start(sessionRequest("/a"))

        let second = session.start(sessionRequest("/a")).outcomes
        let third = session.start(sessionRequest("/a")).outcomes

        #expect(fake.recordedRequests.count == 3)
        #expect([second.single?.body, third.single?.body] == ["hello", "hello"])
        #expect(session.statistics.revalidations == 2)
        #expect(session.statistics.hits == 0)
    }

    @Test("when the revalidation answers 200, should replace the stored response")
    func revalidationWithNewContent() {
        let fake = FakeNetworkSession()
        fake.stub(
            .any, with: .text("old", headers: ["ETag": "\"v1\""]), .text("new", headers: ["ETag": "\"v2\""]),
            .status(304))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 61)
        let changed = session.start(sessionRequest("/a")).outcomes
        clock.advance(by: 61)

        let again = session.start(sessionRequest("/a")).outcomes

        #expect(changed.single?.body == "new")
        #expect(fake.recordedRequests[2].value(forHTTPHeaderField: "If-None-Match") == "\"v2\"")
        #expect(again.single?.body == "new")
        #expect(session.statistics.bytes == 3)
    }

    @Test("when the revalidation fails, should report the failure and keep the stored response")
    func revalidationFailure() {
        let fake = FakeNetworkSession()
        fake.stub(
            .any, with: .text("hello", headers: ["ETag": "\"v1\""]), .error(.notConnectedToInternet), .status(304))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 61)

        let failed = session.start(sessionRequest("/a")).outcomes
        let retried = session.start(sessionRequest("/a")).outcomes

        #expect(failed.single?.errorCode == .notConnectedToInternet)
        #expect(retried.single?.body == "hello")
        #expect(session.statistics.revalidations == 2)
    }

    // MARK: Bounds

    @Test("when the entry bound is reached, should evict the least recently used response")
    func evictsLeastRecentlyUsedEntry() {
        let fake = countingFake()
        let session = cached(fake, maximumEntries: 2)
        session.start(sessionRequest("/a"))
        session.start(sessionRequest("/b"))
        session.start(sessionRequest("/a"))  // a hit: /a is now the most recently used

        session.start(sessionRequest("/c"))

        #expect(session.statistics.evictions == 1)
        #expect(session.statistics.entries == 2)
        #expect(session.start(sessionRequest("/a")).outcomes.single?.body == "/v2/a#1")
        #expect(session.start(sessionRequest("/b")).outcomes.single?.body == "/v2/b#2")
    }

    @Test("when the byte bound is reached, should evict the oldest until the new body fits")
    func evictsToFitBytes() {
        let fake = countingFake()
        let session = cached(fake, maximumBytes: 16)  // each body is 7 bytes: "/v2/a#1"
        session.start(sessionRequest("/a"))
        session.start(sessionRequest("/b"))

        session.start(sessionRequest("/c"))

        #expect(session.statistics == .init(hits: 0, misses: 3, revalidations: 0, evictions: 1, bytes: 14, entries: 2))
        #expect(session.start(sessionRequest("/a")).outcomes.single?.body == "/v2/a#2")
    }

    @Test("when a body is larger than the byte bound, should not store it nor evict for it")
    func bodyLargerThanBound() {
        let fake = countingFake()
        let session = cached(fake, maximumBytes: 6)

        session.start(sessionRequest("/a"))

        #expect(session.statistics.entries == 0)
        #expect(session.statistics.evictions == 0)
    }

    // MARK: Per request

    @Test("when a request says Cache-Control: no-store, should bypass the cache both ways")
    func requestNoStore() {
        let fake = countingFake()
        let session = cached(fake)
        session.start(sessionRequest("/a"))

        let bypassed = session.start(sessionRequest("/a", headers: ["Cache-Control": "no-store"])).outcomes

        #expect(bypassed.single?.body == "/v2/a#2")
        #expect(session.start(sessionRequest("/a")).outcomes.single?.body == "/v2/a#1")
        #expect(session.statistics.misses == 1)
    }

    @Test(
        "when a request says no-cache, should skip a fresh stored response and store the new one",
        arguments: [["Cache-Control": "no-cache"], ["Pragma": "no-cache"], ["Cache-Control": "max-age=0"]])
    func requestNoCache(headers: [String: String]) {
        let fake = countingFake()
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 1)

        let reloaded = session.start(sessionRequest("/a", headers: headers)).outcomes

        #expect(reloaded.single?.body == "/v2/a#2")
        #expect(session.start(sessionRequest("/a")).outcomes.single?.body == "/v2/a#2")
    }

    @Test("when a request says max-age=N, should accept only a stored response up to N seconds old")
    func requestMaxAge() {
        let fake = countingFake()
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 10)

        let young = session.start(sessionRequest("/a", headers: ["Cache-Control": "max-age=10"])).outcomes
        let tooOld = session.start(sessionRequest("/a", headers: ["Cache-Control": "max-age=9"])).outcomes

        #expect(young.single?.body == "/v2/a#1")
        #expect(tooOld.single?.body == "/v2/a#2")
    }

    @Test("when the request has its own If-None-Match, should pass it through untouched and store nothing")
    func callerConditionalPassesThrough() {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .status(304))
        let session = cached(fake)

        let outcome = session.start(sessionRequest("/a", headers: ["If-None-Match": "\"mine\""])).outcomes

        #expect(outcome.single?.status == 304)
        #expect(fake.recordedRequests.first?.value(forHTTPHeaderField: "If-None-Match") == "\"mine\"")
        #expect(session.statistics == .init(hits: 0, misses: 0, revalidations: 0, evictions: 0, bytes: 0, entries: 0))
    }

    @Test("when requests differ in Authorization, should not serve one user's response to another")
    func authorizationSeparatesEntries() {
        let fake = countingFake(headers: ["Cache-Control": "public, max-age=60"])
        let session = cached(fake)
        session.start(sessionRequest("/me", headers: ["Authorization": "Bearer ada"]))

        let other = session.start(sessionRequest("/me", headers: ["Authorization": "Bearer bob"])).outcomes
        let same = session.start(sessionRequest("/me", headers: ["Authorization": "Bearer ada", "X-Request-ID": "7"]))
            .outcomes

        #expect(other.single?.body == "/v2/me#2")
        #expect(same.single?.body == "/v2/me#1")
    }

    @Test("when a POST to a URL succeeds, should drop the stored responses for that URL only")
    func unsafeMethodInvalidates() {
        let fake = countingFake()
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        session.start(sessionRequest("/b"))

        session.start(sessionRequest("/a", method: "POST"))

        #expect(session.statistics.entries == 1)
        #expect(session.start(sessionRequest("/a")).outcomes.single?.body == "/v2/a#3")
        #expect(session.start(sessionRequest("/b")).outcomes.single?.body == "/v2/b#1")
    }

    @Test("when removeAll is called, should forget every response and keep the counters")
    func removeAll() {
        let fake = countingFake()
        let session = cached(fake)
        session.start(sessionRequest("/a"))

        session.removeAll()

        #expect(session.statistics == .init(hits: 0, misses: 1, revalidations: 0, evictions: 0, bytes: 0, entries: 0))
        #expect(session.start(sessionRequest("/a")).outcomes.single?.body == "/v2/a#2")
    }

    @Test(
        "when removeAll is called while a request is in flight, should deliver its answer and store nothing of it",
        arguments: [0.0, 120.0])
    func removeAllWhileInFlight(after seconds: TimeInterval) {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(
            .any, with: .text("v1", headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""]),
            .status(304, headers: ["ETag": "\"v1\""]))
        let session = cached(fake)
        if seconds > 0 {  // a stored response, stale: the request in flight revalidates it
            session.start(sessionRequest("/a"))
            fake.releaseAll()
            clock.advance(by: seconds)
        }
        let inFlight = session.start(sessionRequest("/a")).outcomes

        session.removeAll()
        fake.releaseAll()

        #expect(inFlight.single?.body == "v1")
        #expect(session.statistics.entries == 0)
    }

    // MARK: Cancellation

    @Test("when cancelled while waiting for the wrapped session, should report cancelled once and store nothing")
    func cancelInFlight() {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .text("hello"))
        let session = cached(fake)
        let (task, outcomes) = session.start(sessionRequest("/a"))

        task.cancel()
        task.cancel()
        fake.releaseAll()

        #expect(outcomes.single?.errorCode == .cancelled)
        #expect(fake.cancelledCount == 1)
        #expect(session.statistics.entries == 0)
    }

    @Test("when a module's request is answered from the cache, should deliver it as a success once")
    func moduleHit() {
        let fake = countingFake()
        let session = cached(fake)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, completionExecutor: .immediate
        )
        let first = ResultCollector<NetworkResponse>()
        let second = ResultCollector<NetworkResponse>()
        module.perform(request: TestRequest(path: "/a"), completion: first.completion)

        module.perform(request: TestRequest(path: "/a"), completion: second.completion)

        #expect(second.singleValue?.statusCode == 200)
        #expect(second.singleValue.map { String(decoding: $0.data, as: UTF8.self) } == "/v2/a#1")
        #expect(fake.recordedRequests.count == 1)
    }

    @Test(
        "when a request made after removeAll() is identical to one in flight through deduplicated(), should store only the answer to its own call"
    )
    func removeAllWithDeduplicationBelow() {
        // The composition docs/sessions.md recommends: cache outermost, then de-duplication.
        let fake = countingFake(holdingResponses: true)
        let session = fake.deduplicated().cached(now: { [clock] in Date(timeIntervalSinceReferenceDate: clock.now) })
        session.start(sessionRequest("/a"))  // the previous user's screen, sent with their cookies

        session.removeAll()  // sign-out
        session.start(sessionRequest("/a"))  // the next user's first request
        fake.releaseAll()
        let next = session.start(sessionRequest("/a")).outcomes

        #expect(next.single?.body == "/v2/a#2", "an answer to a call made before removeAll() was stored after it")
        #expect(fake.recordedRequests.count == 2)
        #expect(session.statistics.entries == 1)
    }

    /// How a test stacks the decorators under the cache, de-duplication among them.
    enum Composition: String, CaseIterable, CustomTestStringConvertible {
        case deduplicated = "deduplicated().cached()"
        case recommended = "throttled().deduplicated().cached()"
        case throttledOverDeduplicated = "deduplicated().throttled().cached()"

        var testDescription: String { rawValue }

        func session(on fake: FakeNetworkSession) -> CachedSession {
            switch self {
            case .deduplicated: fake.deduplicated().cached()
            case .recommended: fake.throttled(maxConcurrent: 4).deduplicated().cached()
            case .throttledOverDeduplicated: fake.deduplicated().throttled(maxConcurrent: 4).cached()
            }
        }
    }

    @Test(
        "when a request made after removeAll() is identical to one in flight, should make a call of its own and answer each caller once with its own call's answer",
        arguments: Composition.allCases)
    func removeAllStopsSharingBelow(composition: Composition) {
        let fake = countingFake(holdingResponses: true)
        let session = composition.session(on: fake)
        let previous = (1...2).map { _ in session.start(sessionRequest("/a")).outcomes }

        session.removeAll()
        let next = session.start(sessionRequest("/a")).outcomes
        fake.releaseAll()

        #expect(fake.recordedRequests.count == 2, "the request made after removeAll() joined a call made before it")
        #expect(previous.map { $0.single?.body } == ["/v2/a#1", "/v2/a#1"])
        #expect(next.single?.body == "/v2/a#2")
    }
}

@Suite("CachedSession under load")
struct CachedSessionLoadTests {
    @Test(
        "when many threads read and fill a small cache at once, should answer each request exactly once and stay within bounds"
    )
    func concurrentUse() {
        let fake = FakeNetworkSession()
        fake.stub(.any) { request in
            .text(request.url?.lastPathComponent ?? "", headers: ["Cache-Control": "max-age=60"])
        }
        let session = fake.cached(maximumBytes: 1_000, maximumEntries: 8)
        let outcomes = (0..<400).map { _ in SessionOutcomes() }

        DispatchQueue.concurrentPerform(iterations: outcomes.count) { index in
            session.dataTask(with: sessionRequest("/\(index % 20)"), completionHandler: outcomes[index].handler)
                .resume()
        }

        #expect(outcomes.indices.allSatisfy { outcomes[$0].single?.body == "\($0 % 20)" })
        let statistics = session.statistics
        #expect(statistics.hits + statistics.misses == 400)
        #expect(statistics.entries <= 8)
        #expect(fake.recordedRequests.count == statistics.misses)
    }
}

/// A wrapped session that has followed a redirect to `target` for every request: it answers
/// inside `resume()` with the target's fresh `200` (`max-age=60`), the body naming the call.
private final class RedirectFollowingSession: NetworkSession, Sendable {
    let target: URL
    let calls = LockedState(0)

    init(target: URL) { self.target = target }

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        AnsweringTask { [target, calls] in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            let response = HTTPURLResponse(
                url: target, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=60"])
            completionHandler(Data("target#\(call)".utf8), response, nil)
        }
    }

    private struct AnsweringTask: NetworkSessionTask {
        let answer: @Sendable () -> Void
        func resume() { answer() }
        func cancel() {}
    }
}
