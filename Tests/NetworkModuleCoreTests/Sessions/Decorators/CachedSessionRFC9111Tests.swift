import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One test per RFC 9111 rule the cache follows, as the table in docs/sessions.md lists them.
/// The clock starts at 2001-01-01 00:00:00 GMT (`Date(timeIntervalSinceReferenceDate: 0)`),
/// so the HTTP dates below are written out relative to it.
@Suite("CachedSession: RFC 9111")
struct CachedSessionRFC9111Tests {
    let clock = ManualDelayScheduler()

    /// The clock's start, and some seconds around it, as HTTP-dates.
    static let start = "Mon, 01 Jan 2001 00:00:00 GMT"
    static let startPlus100 = "Mon, 01 Jan 2001 00:01:40 GMT"
    static let startMinus30 = "Sun, 31 Dec 2000 23:59:30 GMT"
    static let startMinus1000 = "Sun, 31 Dec 2000 23:43:20 GMT"

    func cached(_ fake: FakeNetworkSession) -> CachedSession {
        fake.cached(now: { [clock] in Date(timeIntervalSinceReferenceDate: clock.now) })
    }

    /// The body the request for `path` gets now.
    func body(
        _ session: CachedSession, _ path: String = "/a", headers: [String: String] = [:],
        cachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy
    ) -> String? {
        session.start(sessionRequest(path, headers: headers, cachePolicy: cachePolicy)).outcomes.single?.body
    }

    // MARK: Freshness (section 4.2)

    @Test("when a response has Expires and Date, should keep it fresh for their difference")
    func expiresLessDate() {
        let session = cached(countingFake(headers: ["Date": Self.start, "Expires": Self.startPlus100]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 99)
        let fresh = body(session)
        clock.advance(by: 1)

        let stale = body(session)

        #expect(fresh == "/v2/a#1")
        #expect(stale == "/v2/a#2")
    }

    @Test("when Expires is not a date, should treat the response as already expired", arguments: ["0", "tomorrow"])
    func invalidExpiresIsStale(expires: String) {
        let session = cached(countingFake(headers: ["Expires": expires, "ETag": "\"v1\""]))
        session.start(sessionRequest("/a"))

        session.start(sessionRequest("/a"))

        #expect(session.statistics.hits == 0)
        #expect(session.statistics.revalidations == 1)
    }

    @Test("when a response has both max-age and Expires, should follow max-age")
    func maxAgeOverridesExpires() {
        let session = cached(
            countingFake(headers: ["Date": Self.start, "Expires": Self.startPlus100, "Cache-Control": "max-age=10"]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 10)

        #expect(body(session) == "/v2/a#2")
    }

    @Test("when a response says s-maxage, should ignore it for freshness, as a private cache")
    func sharedMaxAgeIgnored() {
        let session = cached(countingFake(headers: ["Cache-Control": "s-maxage=600, max-age=10"]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 10)

        #expect(body(session) == "/v2/a#2")
    }

    @Test("when a response's Date is in the past, should count the time since then in its age")
    func apparentAgeFromDate() {
        let session = cached(countingFake(headers: ["Date": Self.startMinus30, "Cache-Control": "max-age=60"]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 29)
        let fresh = body(session)
        clock.advance(by: 1)

        let stale = body(session)

        #expect(fresh == "/v2/a#1")
        #expect(stale == "/v2/a#2")
    }

    @Test("when the request took time, should count it in the response's age")
    func responseDelayCountsInAge() {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .text("slow", headers: ["Cache-Control": "max-age=60"]), .text("again"))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 20)
        fake.releaseAll()
        clock.advance(by: 39)
        let fresh = session.start(sessionRequest("/a")).outcomes
        clock.advance(by: 1)

        let stale = session.start(sessionRequest("/a")).outcomes
        fake.releaseAll()

        #expect(fresh.single?.body == "slow")
        #expect(stale.single?.body == "again")
    }

    @Test(
        "when max-age or Age are huge or malformed, should not crash and read them conservatively",
        arguments: [
            ("max-age=99999999999999999999999999", "0", true),
            ("max-age=abc", "0", false),
            ("max-age=-5", "0", false),
            ("max-age=60", "99999999999999999999999999", false),
            ("max-age=60", "-3", true),
        ])
    func defensiveNumbers(cacheControl: String, age: String, servedAgain: Bool) {
        let session = cached(countingFake(headers: ["Cache-Control": cacheControl, "Age": age]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 1)

        let second = body(session)

        #expect(second == (servedAgain ? "/v2/a#1" : "/v2/a#2"))
    }

    @Test("when a response has only Last-Modified, should be fresh for 10% of the time since then (section 4.2.2)")
    func heuristicFreshness() {
        let session = cached(countingFake(headers: ["Date": Self.start, "Last-Modified": Self.startMinus1000]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 99)
        let fresh = body(session)
        clock.advance(by: 1)

        let stale = session.start(sessionRequest("/a"))

        #expect(fresh == "/v2/a#1")
        #expect(stale.outcomes.single?.status == 200)
        #expect(session.statistics.revalidations == 1, "stale after 100 s, and Last-Modified is a validator")
    }

    @Test("when a response has no freshness information and no validators, should not keep it at all")
    func noFreshnessNotStored() {
        let session = cached(countingFake(headers: ["Content-Type": "text/plain"]))

        session.start(sessionRequest("/a"))
        let second = body(session)

        #expect(second == "/v2/a#2")
        #expect(session.statistics.entries == 0)
    }

    // MARK: Response directives (section 5.2.2)

    @Test("when a stale response says must-revalidate, should not serve it stale even to max-stale")
    func mustRevalidate() {
        let session = cached(countingFake(headers: ["Cache-Control": "max-age=10, must-revalidate"]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 20)

        #expect(body(session, headers: ["Cache-Control": "max-stale=3600"]) == "/v2/a#2")
    }

    @Test("when a response says private, should keep it: this is a private cache")
    func privateIsStored() {
        let session = cached(countingFake(headers: ["Cache-Control": "private, max-age=60"]))
        session.start(sessionRequest("/a"))

        #expect(body(session) == "/v2/a#1")
    }

    @Test("when a 304 carries new header fields, should update the stored response but not its Content-Length")
    func notModifiedUpdatesHeaders() {
        let fake = FakeNetworkSession()
        fake.stub(
            .any,
            with: .text("hello", headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache", "X-Version": "1"]),
            .status(304, headers: ["Cache-Control": "max-age=60", "X-Version": "2", "Content-Length": "0"]))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        let revalidated = session.start(sessionRequest("/a")).outcomes

        let hit = session.start(sessionRequest("/a")).outcomes

        #expect(revalidated.single?.headers["X-Version"] == "2")
        #expect(revalidated.single?.headers["Content-Length"] != "0")
        #expect(hit.single?.body == "hello")
        #expect(hit.single?.headers["Cache-Control"] == "max-age=60")
        #expect(fake.recordedRequests.count == 2)
    }

    @Test(
        "when a 304 has no Date or no Age, should age the refreshed response from when the 304 arrived",
        arguments: [
            (["Date": Self.start, "Cache-Control": "max-age=60", "ETag": "\"v1\""], 61.0),
            (["Age": "50", "Cache-Control": "max-age=60", "ETag": "\"v1\""], 20.0),
        ])
    func notModifiedWithoutDateOrAge(stored: [String: String], staleAfter seconds: TimeInterval) {
        let fake = FakeNetworkSession()
        fake.stub(
            .any, with: .text("v1", headers: HTTPHeaders(stored)), .status(304, headers: ["ETag": "\"v1\""]),
            .text("v2"))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: seconds)
        let revalidated = session.start(sessionRequest("/a")).outcomes
        clock.advance(by: 30)

        let hit = session.start(sessionRequest("/a")).outcomes

        #expect(revalidated.single?.headers["Age"] == "0")
        #expect(
            revalidated.single?.headers["Cache-Status"] == "NetworkModule; fwd=stale; fwd-status=304; stored; ttl=60")
        #expect(hit.single?.body == "v1")
        #expect(hit.single?.headers["Age"] == "30")
        #expect(fake.recordedRequests.count == 2, "fresh again for max-age: no third call")
    }

    @Test("when a 304 has its own Age, should age the refreshed response by it")
    func notModifiedWithAge() {
        let fake = FakeNetworkSession()
        fake.stub(
            .any, with: .text("v1", headers: ["Age": "50", "Cache-Control": "max-age=60", "ETag": "\"v1\""]),
            .status(304, headers: ["ETag": "\"v1\"", "Age": "10"]))
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 20)

        let revalidated = session.start(sessionRequest("/a")).outcomes

        #expect(revalidated.single?.headers["Age"] == "10")
        #expect(
            revalidated.single?.headers["Cache-Status"] == "NetworkModule; fwd=stale; fwd-status=304; stored; ttl=50")
    }

    // MARK: Request directives (section 5.2.1)

    @Test("when a request says max-stale=N, should accept a stale response up to N seconds past its freshness")
    func maxStale() {
        let session = cached(countingFake(headers: ["Cache-Control": "max-age=10"]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 30)

        let within = body(session, headers: ["Cache-Control": "max-stale=20"])
        let anyStaleness = body(session, headers: ["Cache-Control": "max-stale"])
        let beyond = body(session, headers: ["Cache-Control": "max-stale=19"])

        #expect(within == "/v2/a#1")
        #expect(anyStaleness == "/v2/a#1")
        #expect(beyond == "/v2/a#2")
    }

    @Test("when a request says min-fresh=N, should accept only a response fresh for N more seconds")
    func minFresh() {
        let session = cached(countingFake(headers: ["Cache-Control": "max-age=60"]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 30)

        let enough = body(session, headers: ["Cache-Control": "min-fresh=30"])
        let notEnough = body(session, headers: ["Cache-Control": "min-fresh=31"])

        #expect(enough == "/v2/a#1")
        #expect(notEnough == "/v2/a#2")
    }

    @Test("when a request says only-if-cached, should answer from memory, or 504 without a call when it cannot")
    func onlyIfCached() {
        let fake = countingFake(headers: ["Cache-Control": "max-age=60"])
        let session = cached(fake)
        session.start(sessionRequest("/a"))

        let stored = session.start(sessionRequest("/a", headers: ["Cache-Control": "only-if-cached"])).outcomes
        let missing = session.start(sessionRequest("/b", headers: ["Cache-Control": "only-if-cached"])).outcomes

        #expect(stored.single?.body == "/v2/a#1")
        #expect(missing.single?.status == 504)
        #expect(fake.recordedRequests.count == 1)
    }

    @Test(
        "when a request says only-if-cached and anything else keeps the cache out of it, should answer 504 without a call",
        arguments: [
            ("GET", ["Cache-Control": "only-if-cached, no-store"]),
            ("GET", ["Cache-Control": "only-if-cached", "If-None-Match": "\"v1\""]),
            ("GET", ["Cache-Control": "only-if-cached", "Range": "bytes=0-1"]),
            ("POST", ["Cache-Control": "only-if-cached"]),
        ])
    func onlyIfCachedWhereTheCacheCannotAnswer(method: String, headers: [String: String]) {
        let fake = countingFake(headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        let session = cached(fake)

        let outcome = session.start(sessionRequest("/a", method: method, headers: headers)).outcomes

        #expect(fake.recordedRequests.isEmpty, "only-if-cached reached the server")
        #expect(outcome.single?.status == 504)
    }

    // MARK: The request's cachePolicy

    @Test("when the cache policy is reloadIgnoringLocalCacheData, should fetch without validators and store the answer")
    func reloadIgnoringLocalCacheData() {
        let fake = countingFake(headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        let session = cached(fake)
        session.start(sessionRequest("/a"))

        let reloaded = body(session, cachePolicy: .reloadIgnoringLocalCacheData)

        #expect(reloaded == "/v2/a#2")
        #expect(fake.recordedRequests.last?.value(forHTTPHeaderField: "If-None-Match") == nil)
        #expect(body(session) == "/v2/a#2")
    }

    @Test("when the cache policy is reloadRevalidatingCacheData, should revalidate a fresh response")
    func reloadRevalidatingCacheData() {
        let fake = countingFake(headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        let session = cached(fake)
        session.start(sessionRequest("/a"))

        session.start(sessionRequest("/a", cachePolicy: .reloadRevalidatingCacheData))

        #expect(fake.recordedRequests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        #expect(session.statistics.revalidations == 1)
    }

    @Test(
        "when the cache policy is returnCacheDataElseLoad, should serve a stale response, and load when none is stored")
    func returnCacheDataElseLoad() {
        let session = cached(countingFake(headers: ["Cache-Control": "max-age=10"]))
        session.start(sessionRequest("/a"))
        clock.advance(by: 3600)

        let stale = body(session, cachePolicy: .returnCacheDataElseLoad)
        let loaded = body(session, "/b", cachePolicy: .returnCacheDataElseLoad)

        #expect(stale == "/v2/a#1")
        #expect(loaded == "/v2/b#1")
    }

    @Test("when the cache policy is returnCacheDataDontLoad, should serve a stale response, or 504 without a call")
    func returnCacheDataDontLoad() {
        let fake = countingFake(headers: ["Cache-Control": "max-age=10"])
        let session = cached(fake)
        session.start(sessionRequest("/a"))
        clock.advance(by: 3600)

        let stale = body(session, cachePolicy: .returnCacheDataDontLoad)
        let missing = session.start(sessionRequest("/b", cachePolicy: .returnCacheDataDontLoad)).outcomes

        #expect(stale == "/v2/a#1")
        #expect(missing.single?.status == 504)
        #expect(fake.recordedRequests.count == 1)
    }

    @Test("when the cache policy is returnCacheDataDontLoad on a POST, should answer 504 without a call")
    func returnCacheDataDontLoadPost() {
        let fake = countingFake()
        let session = cached(fake)

        let outcome = session.start(sessionRequest("/a", method: "POST", cachePolicy: .returnCacheDataDontLoad))
            .outcomes

        #expect(fake.recordedRequests.isEmpty, "returnCacheDataDontLoad reached the server")
        #expect(outcome.single?.status == 504)
    }

    // MARK: Vary (section 4.1)

    @Test("when a response varies on Accept-Language, should store a variant per language and serve each its own")
    func varyStoresVariants() {
        let fake = countingFake(headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"])
        let session = cached(fake)
        session.start(sessionRequest("/a", headers: ["Accept-Language": "fr"]))
        session.start(sessionRequest("/a", headers: ["Accept-Language": "de"]))

        let french = body(session, headers: ["Accept-Language": "fr"])
        let german = body(session, headers: ["Accept-Language": "de"])

        #expect(french == "/v2/a#1")
        #expect(german == "/v2/a#2")
        #expect(session.statistics.entries == 2)
    }

    @Test("when a response varies on a header the key ignores, should not serve it to a request with another value")
    func varyOnIgnoredHeader() {
        let session = cached(countingFake(headers: ["Cache-Control": "max-age=60", "Vary": "X-Request-ID"]))
        session.start(sessionRequest("/a", headers: ["X-Request-ID": "1"]))

        let other = body(session, headers: ["X-Request-ID": "2"])
        let same = body(session, headers: ["X-Request-ID": "2"])

        #expect(other == "/v2/a#2")
        #expect(same == "/v2/a#2")
    }

    @Test("when a response says Vary: *, should not keep it")
    func varyStar() {
        let session = cached(countingFake(headers: ["Cache-Control": "max-age=60", "Vary": "Accept, *"]))
        session.start(sessionRequest("/a"))

        #expect(body(session) == "/v2/a#2")
        #expect(session.statistics.entries == 0)
    }

    // MARK: Authorization (section 3.5)

    @Test(
        "when a request has Authorization, should keep the response only if it says public, must-revalidate or s-maxage",
        arguments: [
            ("max-age=60", false), ("private, max-age=60", false), ("public, max-age=60", true),
            ("max-age=60, must-revalidate", true), ("s-maxage=60, max-age=60", true),
        ])
    func authorizationNeedsPermission(cacheControl: String, stored: Bool) {
        let session = cached(countingFake(headers: ["Cache-Control": cacheControl]))
        let credentials = ["Authorization": "Bearer ada"]
        session.start(sessionRequest("/me", headers: credentials))

        let second = body(session, "/me", headers: credentials)

        #expect(second == (stored ? "/v2/me#1" : "/v2/me#2"))
    }

    // MARK: Invalidation (section 4.4)

    @Test(
        "when an unsafe request succeeds, should drop its URL and its Location and Content-Location of the same origin")
    func invalidatesLocations() {
        let fake = FakeNetworkSession()
        let counts = LockedState(0)
        fake.stub(.any) { request in
            let count = counts.withLock { count -> Int in
                count += 1
                return count
            }
            guard request.httpMethod == "PURGE" else {
                return .text("#\(count)", headers: ["Cache-Control": "max-age=60"])
            }
            return .status(204, headers: ["Location": "/v2/b", "Content-Location": Self.otherOrigin.absoluteString])
        }
        let session = cached(fake)
        for path in ["/a", "/b", "/c"] { session.start(sessionRequest(path)) }
        session.start(URLRequest(url: Self.otherOrigin))

        session.start(sessionRequest("/a", method: "PURGE"))

        #expect(body(session, "/a") == "#6")
        #expect(body(session, "/b") == "#7")
        #expect(body(session, "/c") == "#3")
        #expect(session.start(URLRequest(url: Self.otherOrigin)).outcomes.single?.body == "#4")
    }

    /// The same path as the test API's `/v2/c`, on another host.
    static let otherOrigin = URL(string: "https://other.example.com/v2/c")!

    @Test("when an unsafe request fails, should keep what is stored for its URL")
    func failedUnsafeRequestKeepsEntries() {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("stored", headers: ["Cache-Control": "max-age=60"]), .status(500))
        let session = cached(fake)
        session.start(sessionRequest("/a"))

        session.start(sessionRequest("/a", method: "DELETE"))

        #expect(body(session) == "stored")
    }
}
