import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cache's RFC 9111 rules against httpbin's real headers: `/cache/{n}` (`public,
/// max-age=n`, no validators) and `/response-headers` (any header the query names). The
/// cache's clock is moved by hand, so no test waits.
@Suite("Integration: caching (RFC 9111)", .integration)
struct CachingIntegrationTests {
    /// A cache around a wire counter, on a clock that starts now and moves only when told.
    struct Setup {
        let wire = WireCounter(SessionDecoratorsIntegrationTests.uncachedTransport())
        let clock = LockedState(Date())
        let session: CachedSession
        let module: DefaultNetworkModule

        /// On httpbin, or on `baseURL`.
        init(baseURL: URL? = nil) throws {
            session = wire.cached(now: { [clock] in clock.withLock { $0 } })
            module = IntegrationServers.module(baseURL: try baseURL ?? IntegrationServers.httpbin(), session: session)
        }

        func advance(by seconds: TimeInterval) {
            clock.withLock { $0 += seconds }
        }

        func get(_ path: String, _ query: [String: String] = [:], headers: HTTPHeaders = [:]) async
            -> Result<NetworkResponse, NetworkError>
        {
            let items = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            return await module.outcome(of: Endpoint(path: path, queryItems: items, headers: headers))
        }
    }

    @Test("when /cache/60 is asked again, should answer from memory for 60 seconds, then from the server")
    func cacheForSeconds() async throws {
        let setup = try Setup()
        let first = try await setup.get("/cache/60").get()
        setup.advance(by: 50)
        let fresh = try await setup.get("/cache/60").get()
        setup.advance(by: 11)

        let stale = try await setup.get("/cache/60").get()

        #expect(first.headers["Cache-Control"] == "public, max-age=60")
        #expect(fresh.data == first.data)
        #expect(stale.statusCode == 200)
        #expect(setup.wire.calls == 2, "no validators: the stale response is fetched again")
        #expect(setup.session.statistics.hits == 1)
    }

    @Test("when a response has Expires two minutes after its Date, should keep it fresh for two minutes")
    func expires() async throws {
        let setup = try Setup()
        let query = ["Expires": Self.httpDate(Date().addingTimeInterval(120))]
        _ = try await setup.get("/response-headers", query).get()
        setup.advance(by: 100)
        _ = try await setup.get("/response-headers", query).get()
        setup.advance(by: 30)

        _ = try await setup.get("/response-headers", query).get()

        #expect(setup.wire.calls == 2)
    }

    @Test("when a response says no-store, should ask the server every time")
    func noStore() async throws {
        let setup = try Setup()
        _ = try await setup.get("/response-headers", ["Cache-Control": "no-store"]).get()

        _ = try await setup.get("/response-headers", ["Cache-Control": "no-store"]).get()

        #expect(setup.wire.calls == 2)
        #expect(setup.session.statistics.entries == 0)
    }

    @Test("when a response varies on X-Request-ID, should not serve it to a request with another one")
    func vary() async throws {
        let setup = try Setup()
        let query = ["Cache-Control": "max-age=60", "Vary": "X-Request-ID"]
        _ = try await setup.get("/response-headers", query, headers: ["X-Request-ID": "1"]).get()
        _ = try await setup.get("/response-headers", query, headers: ["X-Request-ID": "2"]).get()

        _ = try await setup.get("/response-headers", query, headers: ["X-Request-ID": "2"]).get()

        #expect(setup.wire.calls == 2)
        #expect(setup.session.statistics.hits == 1)
    }

    @Test(
        "when a request has Authorization, should keep only a response that says public",
        arguments: [("max-age=60", 2), ("public, max-age=60", 1)])
    func authorization(cacheControl: String, calls: Int) async throws {
        let setup = try Setup()
        let credentials: HTTPHeaders = ["Authorization": "Bearer ada"]
        _ = try await setup.get("/response-headers", ["Cache-Control": cacheControl], headers: credentials).get()

        _ = try await setup.get("/response-headers", ["Cache-Control": cacheControl], headers: credentials).get()

        #expect(setup.wire.calls == calls)
    }

    @Test("when a POST to a stored URL succeeds, should fetch that URL again")
    func unsafeMethodInvalidates() async throws {
        let setup = try Setup()
        let items = [URLQueryItem(name: "Cache-Control", value: "max-age=60")]
        _ = try await setup.get("/response-headers", ["Cache-Control": "max-age=60"]).get()
        _ = try await setup.module.outcome(of: Endpoint(path: "/response-headers", method: .post, queryItems: items))
            .get()

        _ = try await setup.get("/response-headers", ["Cache-Control": "max-age=60"]).get()

        #expect(setup.wire.sentRequests.map(\.httpMethod) == ["GET", "POST", "GET"])
    }

    @Test("when a 302 to a fresh /cache/60 is asked again, should ask the server again, not serve the target")
    func followedRedirectIsNotStoredUnderItsFirstURL() async throws {
        let setup = try Setup()
        let query = ["url": "/cache/60", "status_code": "302"]
        let first = try await setup.get("/redirect-to", query).get()

        _ = try await setup.get("/redirect-to", query).get()

        #expect(first.headers["Cache-Control"] == "public, max-age=60", "the redirect was followed to /cache/60")
        #expect(setup.wire.calls == 2, "the 302 itself has no freshness: it is asked again")
        #expect(setup.session.statistics.hits == 0)
    }

    @Test("when a request asks for memory only and nothing is stored, should get 504 without calling the server")
    func onlyIfCached() async throws {
        let setup = try Setup()

        let result = await setup.module.outcome(
            of: Endpoint(path: "/cache/60", cachePolicy: .returnCacheDataDontLoad))

        #expect(result.error?.statusCode == 504)
        #expect(setup.wire.calls == 0)
    }

    // MARK: Serving stale (RFC 5861), against the fault server's /flaky

    /// The fault server's `/flaky` for a key of this call's own: `v1` with `cacheControl`,
    /// then `then` (a status, `close` or `v2`).
    static func flaky(cacheControl: String, then: String) -> [String: String] {
        ["key": UUID().uuidString, "cache_control": cacheControl, "then": then]
    }

    @Test(
        "when the server fails after a response was stored with stale-if-error, should answer with it, marked stale",
        arguments: ["503", "close"])
    func staleIfError(then failure: String) async throws {
        let setup = try Setup(baseURL: try IntegrationServers.faultServer())
        let query = Self.flaky(cacheControl: "max-age=10, stale-if-error=60", then: failure)
        let first = try await setup.get("/flaky", query).get()
        setup.advance(by: 20)

        let stale = try await setup.get("/flaky", query).get()

        #expect(first.isStale == false)
        #expect(stale.data == Data("v1".utf8))
        #expect(stale.isStale)
        #expect(stale.headers["Age"] == "20")
        #expect(setup.wire.calls == 2, "the server was asked, and failed")
    }

    @Test("when a request says stale-if-error, should get the stored response when the server fails, and not without")
    func staleIfErrorRequestOptIn() async throws {
        let setup = try Setup(baseURL: try IntegrationServers.faultServer())
        let query = Self.flaky(cacheControl: "max-age=10", then: "503")
        _ = try await setup.get("/flaky", query).get()
        setup.advance(by: 600)

        let optedIn = try await setup.get("/flaky", query, headers: ["Cache-Control": "stale-if-error=3600"]).get()
        let plain = await setup.get("/flaky", query)

        #expect(optedIn.data == Data("v1".utf8) && optedIn.isStale)
        #expect(plain.error?.statusCode == 503)
    }

    @Test("when a stored response is stale within stale-while-revalidate, should answer at once and refresh it behind")
    func staleWhileRevalidate() async throws {
        let setup = try Setup(baseURL: try IntegrationServers.faultServer())
        let query = Self.flaky(cacheControl: "max-age=10, stale-while-revalidate=30", then: "v2")
        _ = try await setup.get("/flaky", query).get()
        setup.advance(by: 15)

        let stale = try await setup.get("/flaky", query).get()
        // The background revalidation has stored its answer once its call has finished: wait
        // for that event (the first request's call, then its), not for a time.
        let revalidated = await setup.wire.waitUntilFinished(2)
        let refreshed = try await setup.get("/flaky", query).get()

        #expect(stale.data == Data("v1".utf8) && stale.isStale)
        #expect(revalidated, "the background revalidation finished")
        #expect(refreshed.data == Data("v2".utf8), "the background revalidation stored the new response")
        #expect(refreshed.isStale == false)
        #expect(setup.wire.calls == 2, "one background request")
    }

    /// `date` as an IMF-fixdate.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
