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

        init() throws {
            session = wire.cached(now: { [clock] in clock.withLock { $0 } })
            module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), session: session)
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

    /// `date` as an IMF-fixdate.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
