import Foundation
@testable import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of docs/sessions.md.
@Suite("Sessions samples")
struct SessionsSamples {
    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
    }

    // sample: sessions-cache-opt-out
    struct GetBalance: NetworkRequest {
        var path: String { "/balance" }
        var headers: HTTPHeaders { ["Cache-Control": "no-store"] }  // never stored, never served from memory
    }

    struct RefreshFeed: NetworkRequest {
        var path: String { "/feed" }
        var headers: HTTPHeaders { ["Cache-Control": "no-cache"] }  // asks the server, stores the answer
    }

    struct OfflineFeed: NetworkRequest {
        var path: String { "/feed" }
        var cachePolicy: URLRequest.CachePolicy? { .returnCacheDataDontLoad }  // memory only, stale or not
    }
    // end-sample

    let builder = DefaultRequestBuilder(baseURL: sampleBaseURL)

    /// A fake backend with every user, held until released when `holdingResponses` is `true`.
    static func backend(holdingResponses: Bool = false) -> FakeNetworkSession {
        let fake = FakeNetworkSession(holdingResponses: holdingResponses)
        fake.stub(.pathPrefix("/v2/users/")) { request in
            .json(
                #"{"id": \#(request.url?.lastPathComponent ?? "0"), "name": "Ada"}"#, headers: ["Cache-Control": "max-age=60"])
        }
        fake.stub(.path("/v2/balance"), with: .json(#"{"amount": 10}"#))
        fake.stub(.path("/v2/feed"), with: .json("[]", headers: ["ETag": "\"feed-1\""]))
        return fake
    }

    @Test("when a transport is configured, should keep its limits")
    func transport() {
        // sample: sessions-transport
        let transport = URLSessionTransport(
            configuration: .default,
            maximumResponseSize: 20 * 1024 * 1024,
            credentialHeaderNames: ["X-API-Key"]
        )
        let module = DefaultNetworkModule(requestBuilder: builder, session: transport)
        // end-sample

        #expect(transport.maximumResponseSize == 20 * 1024 * 1024)
        #expect(transport.credentialHeaderNames == ["X-API-Key"])
        #expect(module.session is URLSessionTransport)
    }

    @Test("when public keys are pinned, should pin the key in use and the backup key")
    func pinnedKeys() {
        // sample: sessions-pinned-keys
        let pinned = URLSessionTransport(serverTrust: .pinnedPublicKeys(sha256: [
            "syylW4P+74BB0/bnZ0t8SVx37Log0yKeCCk7w6G4NKw=",  // the key in use
            "5mc2+X2cwPoFM7A1CjmqXQTIXjYcKJgv9/XnVJk4zHY=",  // the backup key
        ]))
        // end-sample

        let inUse = ServerTrustPolicy.pinnedPublicKeys(sha256: ["syylW4P+74BB0/bnZ0t8SVx37Log0yKeCCk7w6G4NKw="])
        #expect(pinned.serverTrust.isPinned)
        #expect(pinned.serverTrust != inUse, "both pins are kept")
    }

    @Test("when a session is throttled, should start with nothing in flight")
    func throttled() {
        // sample: sessions-throttled
        let images = URLSessionTransport.shared.throttled(maxConcurrent: 4)
        let imageModule = DefaultNetworkModule(requestBuilder: builder, session: images)
        // end-sample

        #expect(images.maxConcurrent == 4)
        #expect(images.statistics == .init(inFlight: 0, waiting: 0))
        #expect(imageModule.session is ThrottledSession)
    }

    @Test("when a header is added to the ignored ones, should keep the default ones too")
    func deduplicated() {
        // sample: sessions-deduplicated
        let session = URLSessionTransport.shared.deduplicated(
            ignoredHeaderNames: DeduplicatedSession.defaultIgnoredHeaderNames.union(["X-Attempt"])
        )
        // end-sample

        #expect(session.ignoredHeaderNames.contains("x-attempt"))
        #expect(session.ignoredHeaderNames.contains("x-request-id"))
        #expect(session.methods == ["GET", "HEAD"])
    }

    @Test("when a cache is configured, should keep its bounds")
    func cached() {
        // sample: sessions-cached
        let session = URLSessionTransport.shared.cached(
            maximumBytes: 5 * 1024 * 1024, maximumEntries: 200
        )
        // end-sample

        #expect(session.state.withLock { $0.store.maximumCost } == 5 * 1024 * 1024)
        #expect(session.state.withLock { $0.store.maximumCount } == 200)
    }

    @Test("when a request asks for memory only, should get 504 until the feed is stored, then the stored feed")
    func cachePolicy() {
        let fake = Self.backend()
        let module = DefaultNetworkModule(requestBuilder: builder, session: fake.cached(), completionExecutor: .immediate)
        let before = LockedState<Result<NetworkResponse, NetworkError>?>(nil)
        let after = LockedState<Result<NetworkResponse, NetworkError>?>(nil)

        module.perform(request: OfflineFeed()) { result in before.withLock { $0 = result } }
        module.perform(request: RefreshFeed()) { _ in }
        module.perform(request: OfflineFeed()) { result in after.withLock { $0 = result } }

        let serverErrorStatus = before.withLock { result -> Int? in
            guard case .failure(.serverError(let response)) = result else { return nil }
            return response.statusCode
        }
        #expect(serverErrorStatus == 504)
        #expect(after.withLock { try? $0?.get().statusCode } == 200)
        #expect(fake.recordedRequests.count == 1, "only RefreshFeed reached the server")
    }

    @Test("when requests opt out of the cache, should go to the server each time")
    func optOut() {
        let fake = Self.backend()
        let module = DefaultNetworkModule(requestBuilder: builder, session: fake.cached(), completionExecutor: .immediate)

        for _ in 1...2 {
            module.perform(request: GetBalance()) { _ in }
            module.perform(request: RefreshFeed()) { _ in }
        }

        let sent = fake.recordedRequests
        #expect(sent.count == 4)
        #expect(sent.last?.value(forHTTPHeaderField: "If-None-Match") == "\"feed-1\"", "no-cache revalidates")
    }

    @Test("when composed in the recommended order, should be a cache in front")
    func compose() {
        // sample: sessions-compose
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil  // CachedSession does the caching: do not cache twice
        let session = URLSessionTransport(configuration: configuration)
            .throttled(maxConcurrent: 4)
            .deduplicated()
            .cached()
        let module = DefaultNetworkModule(requestBuilder: builder, session: session)
        // end-sample

        #expect(module.session is CachedSession)
    }

    @Test("when decorators run on a manual fake, should show their state at each step")
    func testingThrottledAndShared() {
        let fake = Self.backend(holdingResponses: true)

        let lines = Transcript.recording {
            // sample: sessions-testing
            let throttled = fake.throttled(maxConcurrent: 1)
            let session = throttled.deduplicated()
            let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: .immediate)

            for _ in 1...3 {
                module.perform(request: GetUser(id: 1)) { _ in }
            }
            module.perform(request: GetUser(id: 2)) { _ in }
            print("calls: \(session.statistics.calls), joined: \(session.statistics.joined)")
            print("in flight: \(throttled.statistics.inFlight), waiting: \(throttled.statistics.waiting)")

            fake.releaseAll()
            print("in flight: \(throttled.statistics.inFlight), waiting: \(throttled.statistics.waiting)")
            // end-sample
        }

        #expect(lines == ["calls: 2, joined: 2", "in flight: 1, waiting: 1", "in flight: 0, waiting: 0"])
        #expect(fake.recordedRequests.count == 2)
    }

    @Test("when the cache's clock is moved past max-age, should count a hit and two misses")
    func testingTheCacheClock() {
        let fake = Self.backend()

        let lines = Transcript.recording {
            // sample: sessions-testing-clock
            let clock = ManualDelayScheduler()
            let session = fake.cached(now: { Date(timeIntervalSinceReferenceDate: clock.now) })
            let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: .immediate)

            module.perform(request: GetUser(id: 1)) { _ in }
            module.perform(request: GetUser(id: 1)) { _ in }  // from memory
            clock.advance(by: 61)
            module.perform(request: GetUser(id: 1)) { _ in }  // stale: from the server again
            print("hits: \(session.statistics.hits), misses: \(session.statistics.misses)")  // hits: 1, misses: 2
            // end-sample
        }

        #expect(lines == ["hits: 1, misses: 2"])
        #expect(fake.recordedRequests.count == 2)
    }

    // sample: sessions-cache-stale-request
    struct GetNews: NetworkRequest {
        var path: String { "/news" }
        // When the server cannot answer, a stored response up to a day past its freshness will do.
        var headers: HTTPHeaders { ["Cache-Control": "stale-if-error=86400"] }
    }
    // end-sample

    @Test("when the server cannot answer and the request accepts stale, should get the stored news, marked stale")
    func staleIfError() {
        let fake = FakeNetworkSession()
        fake.stub(
            .path("/v2/news"), with: .json(#"["v1"]"#, headers: ["Cache-Control": "max-age=60"]),
            .error(.notConnectedToInternet))
        let clock = ManualDelayScheduler()
        let session = fake.cached(now: { Date(timeIntervalSinceReferenceDate: clock.now) })
        let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: .immediate)
        module.perform(request: GetNews()) { _ in }
        clock.advance(by: 3600)

        let lines = Transcript.recording {
            // sample: sessions-cache-stale
            module.perform(request: GetNews()) { result in
                if case .success(let response) = result, response.isStale {
                    print("offline: news from \(response.headers["Age"] ?? "?") s ago")
                }
            }
            // end-sample
        }

        #expect(lines == ["offline: news from 3600 s ago"])
        #expect(fake.recordedRequests.count == 2)
    }
}
