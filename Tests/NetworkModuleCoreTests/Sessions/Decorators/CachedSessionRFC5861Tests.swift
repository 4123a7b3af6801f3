import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Serving stale responses (RFC 5861's `stale-while-revalidate` and `stale-if-error`, and RFC
/// 9111's `Age`), as the table in docs/sessions.md lists them: a fake session and a test clock,
/// so that every test is deterministic and none sleeps.
@Suite("CachedSession: RFC 5861, serving stale")
struct CachedSessionRFC5861Tests {
    let clock = ManualDelayScheduler()

    func cached(_ fake: FakeNetworkSession) -> CachedSession {
        fake.cached(now: { [clock] in Date(timeIntervalSinceReferenceDate: clock.now) })
    }

    /// A fake that answers `/a` with `first` (a `200` with `headers`, body `v1`), then with each
    /// of `then` in turn, the last repeating.
    func fake(headers: HTTPHeaders, then: StubbedResponse..., holding: Bool = false) -> FakeNetworkSession {
        let fake = FakeNetworkSession(holdingResponses: holding)
        fake.stub(.path("/v2/a"), sequence: [.text("v1", headers: headers)] + then)
        return fake
    }

    // MARK: stale-while-revalidate (RFC 5861, section 3)

    @Test("when stale within stale-while-revalidate, should answer at once, stale, and revalidate in the background")
    func staleWhileRevalidate() {
        let fake = fake(
            headers: ["Cache-Control": "max-age=10, stale-while-revalidate=30", "ETag": "\"v1\""],
            then: .text("v2", headers: ["Cache-Control": "max-age=10", "ETag": "\"v2\""]), holding: true)
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        fake.releaseAll()
        clock.advance(by: 15)

        let stale = session.start(sessionRequest("/a")).outcomes

        #expect(stale.single?.body == "v1")
        #expect(stale.single?.headers["Age"] == "15")
        #expect(stale.single?.headers["Cache-Status"] == "NetworkModule; hit; detail=stale-while-revalidate; ttl=-5")
        #expect(fake.heldRequests.map { $0.value(forHTTPHeaderField: "If-None-Match") } == ["\"v1\""])
        fake.releaseAll()
        #expect(session.start(sessionRequest("/a")).outcomes.single?.body == "v2")
        #expect(session.statistics.hits == 2)
        #expect(session.statistics.revalidations == 1)
    }

    @Test("when several requests find it stale while it is revalidated, should send one background request")
    func oneBackgroundRequestPerKey() {
        let fake = fake(
            headers: ["Cache-Control": "max-age=10, stale-while-revalidate=30"], then: .text("v2"), holding: true)
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        fake.releaseAll()
        clock.advance(by: 15)

        let bodies = (0..<3).map { _ in session.start(sessionRequest("/a")).outcomes.single?.body }

        #expect(bodies == ["v1", "v1", "v1"])
        #expect(fake.heldCount == 1)
        #expect(session.statistics.revalidations == 1)
    }

    @Test("when a request says only-if-cached within stale-while-revalidate, should answer stale and call nobody")
    func onlyIfCachedStartsNoBackgroundRequest() {
        let fake = fake(
            headers: ["Cache-Control": "max-age=10, stale-while-revalidate=30", "ETag": "\"v1\""], then: .text("v2"))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 15)

        let outcome = session.start(sessionRequest("/a", headers: ["Cache-Control": "only-if-cached"])).outcomes

        #expect(outcome.single?.body == "v1")
        #expect(outcome.single?.headers["Cache-Status"] == "NetworkModule; hit; ttl=-5")
        #expect(fake.recordedRequests.count == 1, "only the first request reached the server")
        #expect(session.statistics.revalidations == 0)
    }

    @Test("when removeAll() is called while a background revalidation is in flight, should store nothing of its answer")
    func removeAllStopsBackgroundRevalidation() {
        let fake = fake(
            headers: ["Cache-Control": "max-age=10, stale-while-revalidate=30"],
            then: .text("v2", headers: ["Cache-Control": "max-age=60"]), holding: true)
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        fake.releaseAll()
        clock.advance(by: 15)
        session.start(sessionRequest("/a"))

        session.removeAll()
        fake.releaseAll()

        #expect(session.statistics.entries == 0, "the answer to a request made before removeAll() is not stored")
        let next = session.start(sessionRequest("/a")).outcomes
        fake.releaseAll()
        #expect(next.single?.body == "v2")
        #expect(fake.recordedRequests.count == 3, "the next request asked the server")
    }

    @Test("when the background revalidation fails, should keep serving the stale response within the window")
    func failedBackgroundRevalidationKeepsStale() {
        let fake = fake(
            headers: ["Cache-Control": "max-age=10, stale-while-revalidate=30"], then: .error(.notConnectedToInternet))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 15)
        session.start(sessionRequest("/a"))

        let again = session.start(sessionRequest("/a")).outcomes

        #expect(again.single?.body == "v1")
        #expect(fake.recordedRequests.count == 3)
    }

    @Test(
        "when stale past stale-while-revalidate, or it or the request forbids stale, should wait for the server",
        arguments: [
            (45.0, "max-age=10, stale-while-revalidate=30", [String: String]()),
            (15.0, "max-age=10, stale-while-revalidate=30, must-revalidate", [:]),
            (15.0, "max-age=10, stale-while-revalidate=30", ["Cache-Control": "no-cache"]),
            (15.0, "max-age=10, stale-while-revalidate=30", ["Cache-Control": "min-fresh=1"]),
            (15.0, "max-age=10, stale-while-revalidate=30", ["Cache-Control": "max-age=12"]),
        ])
    func staleWhileRevalidateRefused(
        after seconds: TimeInterval, cacheControl: String, requestHeaders: [String: String]
    ) {
        let session = cached(fake(headers: ["Cache-Control": cacheControl], then: .text("v2")))
        session.start(sessionRequest("/a"))
        clock.advance(by: seconds)

        let outcome = session.start(sessionRequest("/a", headers: requestHeaders)).outcomes.single

        #expect(outcome?.body == "v2")
        #expect(outcome?.headers["Cache-Status"] == nil)
    }

    // MARK: stale-if-error (RFC 5861, section 4)

    @Test(
        "when the server fails a stale response's revalidation within stale-if-error, should answer with it, stale",
        arguments: [
            (StubbedResponse.status(503), "fwd=stale; fwd-status=503"),
            (.status(500), "fwd=stale; fwd-status=500"), (.status(502), "fwd=stale; fwd-status=502"),
            (.status(504), "fwd=stale; fwd-status=504"), (.error(.notConnectedToInternet), "fwd=stale"),
            (.error(.timedOut), "fwd=stale"),
        ])
    func staleIfError(failure: StubbedResponse, forwarded: String) {
        let session = cached(
            fake(headers: ["Cache-Control": "max-age=10, stale-if-error=60", "ETag": "\"v1\""], then: failure))
        session.start(sessionRequest("/a"))
        clock.advance(by: 20)

        let outcome = session.start(sessionRequest("/a")).outcomes.single

        #expect(outcome?.body == "v1")
        #expect(outcome?.status == 200)
        #expect(outcome?.errorCode == nil)
        #expect(outcome?.headers["Age"] == "20")
        #expect(outcome?.headers["Cache-Status"] == "NetworkModule; \(forwarded); detail=stale-if-error; ttl=-10")
    }

    @Test("when a request says stale-if-error, should answer a failure with a stale response the server gave no window")
    func staleIfErrorRequestOptIn() {
        let fake = fake(headers: ["Cache-Control": "max-age=10"], then: .error(.networkConnectionLost))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 600)

        let optedIn = session.start(sessionRequest("/a", headers: ["Cache-Control": "stale-if-error=3600"])).outcomes
        let plain = session.start(sessionRequest("/a")).outcomes

        #expect(optedIn.single?.body == "v1")
        #expect(plain.single?.errorCode == .networkConnectionLost)
    }

    @Test(
        "when stale-if-error does not allow it, should report the failure as it is",
        arguments: [
            (120.0, "max-age=10, stale-if-error=60", [String: String]()),
            (20.0, "max-age=10, stale-if-error=60, must-revalidate", [:]),
            (20.0, "no-cache, stale-if-error=60", [:]),
            (20.0, "max-age=10", ["Cache-Control": "stale-if-error=5"]),
        ])
    func staleIfErrorRefused(after seconds: TimeInterval, cacheControl: String, requestHeaders: [String: String]) {
        let session = cached(
            fake(headers: ["Cache-Control": cacheControl, "ETag": "\"v1\""], then: .status(503)))
        session.start(sessionRequest("/a"))
        clock.advance(by: seconds)

        let outcome = session.start(sessionRequest("/a", headers: requestHeaders)).outcomes.single

        #expect(outcome?.status == 503)
    }

    @Test("when the request reloads, should report a failure even within stale-if-error")
    func reloadIsNeverServedStale() {
        let session = cached(fake(headers: ["Cache-Control": "max-age=10, stale-if-error=60"], then: .status(503)))
        session.start(sessionRequest("/a"))

        let outcome = session.start(sessionRequest("/a", cachePolicy: .reloadIgnoringLocalCacheData)).outcomes.single

        #expect(outcome?.status == 503)
    }

    @Test(
        "when the server answers, not fails (a 404, a 429), should deliver its answer, not the stale response",
        arguments: [404, 429, 501])
    func answersAreNotFailures(status: Int) {
        let session = cached(fake(headers: ["Cache-Control": "max-age=10, stale-if-error=60"], then: .status(status)))
        session.start(sessionRequest("/a"))
        clock.advance(by: 20)

        #expect(session.start(sessionRequest("/a")).outcomes.single?.status == status)
    }

    @Test("when cancelled while the server is asked, should deliver .cancelled once, never the stale response")
    func cancelIsNotAFailure() {
        let fake = fake(headers: ["Cache-Control": "max-age=10, stale-if-error=60"], then: .status(503), holding: true)
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        fake.releaseAll()
        clock.advance(by: 20)
        let (task, outcomes) = session.start(sessionRequest("/a"))

        task.cancel()
        fake.releaseAll()

        #expect(outcomes.all.map(\.errorCode) == [.cancelled])
    }

    // MARK: Age and Cache-Status on what the cache serves (RFC 9111, section 5.1; RFC 9211)

    @Test("when a fresh response is served from memory, should carry its Age and a Cache-Status hit")
    func freshHitHeaders() {
        let session = cached(fake(headers: ["Cache-Control": "max-age=60", "Age": "5"]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 10)

        let outcome = session.start(sessionRequest("/a")).outcomes.single

        #expect(outcome?.headers["Age"] == "15")
        #expect(outcome?.headers["Cache-Status"] == "NetworkModule; hit; ttl=45")
    }

    @Test("when a cache nearer the server already wrote a Cache-Status, should append this cache's entry")
    func cacheStatusAppends() {
        let session = cached(fake(headers: ["Cache-Control": "max-age=60", "Cache-Status": "ExampleCDN; hit"]))
        session.start(sessionRequest("/a"))

        let outcome = session.start(sessionRequest("/a")).outcomes.single

        #expect(outcome?.headers["Cache-Status"] == "ExampleCDN; hit, NetworkModule; hit; ttl=60")
    }

    @Test("when a 304 revalidates a stored response, should say so in Cache-Status")
    func revalidatedHeaders() {
        let session = cached(
            fake(
                headers: ["Cache-Control": "max-age=10", "ETag": "\"v1\""],
                then: .status(304, headers: ["ETag": "\"v1\""])))
        session.start(sessionRequest("/a"))
        clock.advance(by: 20)

        let outcome = session.start(sessionRequest("/a")).outcomes.single

        #expect(outcome?.body == "v1")
        #expect(outcome?.headers["Cache-Status"] == "NetworkModule; fwd=stale; fwd-status=304; stored; ttl=10")
    }

    @Test("when a response comes from the network, should add no Cache-Status")
    func missHasNoCacheStatus() {
        let session = cached(fake(headers: ["Cache-Control": "max-age=60"]))

        let outcome = session.start(sessionRequest("/a")).outcomes.single

        #expect(outcome?.headers["Cache-Status"] == nil)
        #expect(outcome?.headers["Age"] == nil)
    }

    // MARK: NetworkResponse.isStale

    @Test("when the module gets a response the cache served stale, should say isStale; fresh or from the network, not")
    func isStaleThroughTheModule() async throws {
        let fake = fake(headers: ["Cache-Control": "max-age=10, stale-if-error=60"], then: .status(503))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: cached(fake),
            completionExecutor: .immediate)
        let request = CachedPath()

        let fromNetwork = try await module.perform(request: request)
        let fresh = try await module.perform(request: request)
        clock.advance(by: 20)
        let stale = try await module.perform(request: request)

        #expect([fromNetwork.isStale, fresh.isStale, stale.isStale] == [false, false, true])
        #expect(stale.data == Data("v1".utf8))
    }

    @Test(
        "when the server sends a Cache-Status entry named NetworkModule, should not say isStale, cache or not",
        arguments: [true, false])
    func isStaleIgnoresTheServersEntry(throughTheCache: Bool) async throws {
        let forged: HTTPHeaders = ["Cache-Control": "max-age=60", "Cache-Status": "NetworkModule; hit; ttl=-5"]
        let fake = fake(headers: forged)
        let session: any NetworkSession = throughTheCache ? cached(fake) : fake
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            completionExecutor: .immediate)

        let fromNetwork = try await module.perform(request: CachedPath())
        let fromMemory = try await module.perform(request: CachedPath())

        #expect(fromNetwork.isStale == false)
        #expect(fromMemory.isStale == false)
        #expect(fromMemory.headers["Cache-Status"]?.hasPrefix("NetworkModule; hit; ttl=-5") == true)
    }

    @Test(
        "when Cache-Status has entries of other caches or odd spacing, should read only this cache's ttl",
        arguments: [
            ("NetworkModule; hit; ttl=-5", true), ("NetworkModule; hit; ttl=5", false),
            ("ExampleCDN; hit; ttl=-5, NetworkModule; hit; ttl=3", false),
            ("NetworkModule; hit; ttl=3, Other; ttl=-9", false), ("ExampleCDN; hit; ttl=-5", false),
            ("  NetworkModule ;hit ; ttl = -1 ", true), ("NetworkModule", false), ("", false), (";;,,=", false),
        ])
    func isStaleParsing(cacheStatus: String, stale: Bool) throws {
        #expect(CacheStatus.isStale(cacheStatus) == stale)
    }
}

/// `GET /a`.
private struct CachedPath: NetworkRequest {
    var path: String { "/a" }
}
