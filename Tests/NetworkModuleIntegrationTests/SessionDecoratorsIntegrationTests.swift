import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session decorators on the wire: throttling, de-duplication and caching against httpbin.
@Suite("Integration: session decorators", .integration)
struct SessionDecoratorsIntegrationTests {
    /// A transport without `URLSession`'s own cache, so every call reaches httpbin.
    static func uncachedTransport() -> URLSessionTransport {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSessionTransport(configuration: configuration)
    }

    @Test("when a response says max-age=60, should answer the second GET from memory without calling the server")
    func maxAgeServedFromMemory() async throws {
        let wire = WireCounter(Self.uncachedTransport())
        let session = wire.cached()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), session: session)
        let request = Endpoint(
            path: "/response-headers", queryItems: [URLQueryItem(name: "Cache-Control", value: "max-age=60")])

        let first = try await module.outcome(of: request).get()
        let second = try await module.outcome(of: request).get()

        #expect(wire.calls == 1)
        #expect(second.statusCode == 200)
        #expect(second.data == first.data)
        #expect(second.headers["Cache-Control"] == "max-age=60")
        #expect(session.statistics.hits == 1)
        #expect(session.statistics.misses == 1)
    }

    @Test(
        "when /cache answers with Last-Modified now and nothing else, should revalidate at once and serve the 304 as the stored 200"
    )
    func cacheRevalidatedWith304() async throws {
        let wire = WireCounter(Self.uncachedTransport())
        let session = wire.cached()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), session: session)
        let first = try await module.outcome(of: Endpoint(path: "/cache")).get()

        let revalidated = try await module.outcome(of: Endpoint(path: "/cache")).get()

        #expect(wire.calls == 2)
        let conditional = try #require(wire.sentRequests.last)
        #expect(conditional.value(forHTTPHeaderField: "If-None-Match") == first.headers["ETag"])
        #expect(conditional.value(forHTTPHeaderField: "If-Modified-Since") == first.headers["Last-Modified"])
        #expect(wire.statuses == [200, 304], "10% of no time since Last-Modified is no freshness (RFC 9111 4.2.2)")
        #expect(revalidated.statusCode == 200)
        #expect(revalidated.data == first.data, "httpbin echoes request headers: a new body would show If-None-Match")
        #expect(session.statistics.hits == 0)
        #expect(session.statistics.revalidations == 1)
    }

    @Test("when /etag/{etag} is revalidated, should send If-None-Match with the ETag and serve the 304 from memory")
    func entityTagRevalidated() async throws {
        let wire = WireCounter(Self.uncachedTransport())
        let session = wire.cached()  // no freshness information: revalidated every time
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), session: session)
        let first = try await module.outcome(of: Endpoint(path: "/etag/v42")).get()

        let second = try await module.outcome(of: Endpoint(path: "/etag/v42")).get()

        #expect(first.headers["ETag"] == "v42")
        #expect(wire.sentRequests.last?.value(forHTTPHeaderField: "If-None-Match") == "v42")
        #expect(wire.statuses == [200, 304])
        #expect(second.statusCode == 200)
        #expect(second.data == first.data)
        #expect(session.statistics.revalidations == 1)
    }

    @Test("when 4 requests of 1 second run 2 at a time, should never have more than 2 on the wire and take two rounds")
    func throttlesOnTheWire() async throws {
        let wire = WireCounter(Self.uncachedTransport())
        let session = wire.throttled(maxConcurrent: 2)
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), session: session)
        let start = Date()

        let statuses = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<4 {
                group.addTask {
                    let request = Endpoint(path: "/delay/1", queryItems: [URLQueryItem(name: "n", value: "\(index)")])
                    return try? await module.outcome(of: request).get().statusCode
                }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }

        #expect(statuses == [200, 200, 200, 200])
        #expect(wire.highestInFlight == 2)
        #expect(wire.calls == 4)
        #expect(Date().timeIntervalSince(start) >= 1.9, "two rounds of a 1-second response cannot take less")
        #expect(session.statistics.inFlight == 0 && session.statistics.waiting == 0)
    }

    @Test("when 5 identical GETs (each with its own X-Request-ID) overlap, should make one call and answer all 5")
    func deduplicatesOnTheWire() async throws {
        let wire = WireCounter(Self.uncachedTransport())
        let session = wire.deduplicated()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), session: session)

        let bodies = await withTaskGroup(of: Data?.self) { group in
            for index in 0..<5 {
                group.addTask {
                    let request = Endpoint(path: "/delay/1", headers: ["X-Request-ID": "request-\(index)"])
                    return try? await module.outcome(of: request).get().data
                }
            }
            return await group.reduce(into: [Data?]()) { $0.append($1) }
        }

        #expect(wire.calls == 1)
        #expect(bodies.count == 5)
        #expect(bodies.allSatisfy { $0 != nil && $0 == bodies.first! })
        #expect(
            session.statistics.calls == 1 && session.statistics.joined == 4 && session.statistics.callsInFlight == 0)
    }

    @Test("when one of two shared callers is cancelled, should still answer the other from the one call")
    func deduplicatedCancelOne() async throws {
        let wire = WireCounter(Self.uncachedTransport())
        let deduplicated = wire.deduplicated()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), session: deduplicated)
        let cancelled = LockedState<Result<NetworkResponse, NetworkError>?>(nil)

        // Both callers are handed to the session inside their perform calls (a module with no
        // actions sends synchronously), so the second has joined the first's call, which
        // takes a second on the server, before the first is cancelled: no timing involved.
        let kept = Deliveries()
        let handle = module.perform(request: Endpoint(path: "/delay/1")) { result in cancelled.withLock { $0 = result }
        }
        module.perform(request: Endpoint(path: "/delay/1")) { kept.record($0) }
        #expect(deduplicated.statistics.joined == 1)
        handle.cancel()
        let keptResult = await kept.first().result

        #expect(try keptResult.get().statusCode == 200)
        #expect(cancelled.withLock { $0?.error } == .cancelled)
        #expect(wire.calls == 1)
    }
}

/// A session that counts what reaches the wrapped transport: calls, the requests as sent,
/// their statuses, and the most calls in flight at once.
final class WireCounter: NetworkSession {
    private struct Counts {
        var sentRequests: [URLRequest] = []
        var statuses: [Int] = []
        var inFlight = 0
        var highestInFlight = 0
    }

    private let transport: any NetworkSession
    private let counts = LockedState(Counts())
    /// Signalled when a call's completion handler has returned: what wraps this session (a
    /// cache storing the answer) has handled it by then.
    private let finished = DispatchSemaphore(value: 0)

    init(_ transport: some NetworkSession) {
        self.transport = transport
    }

    var calls: Int { counts.withLock { $0.sentRequests.count } }
    var sentRequests: [URLRequest] { counts.withLock { $0.sentRequests } }
    var statuses: [Int] { counts.withLock { $0.statuses } }
    var highestInFlight: Int { counts.withLock { $0.highestInFlight } }

    func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        counts.withLock {
            $0.sentRequests.append(request)
            $0.inFlight += 1
            $0.highestInFlight = max($0.highestInFlight, $0.inFlight)
        }
        return transport.dataTask(with: request) { [counts, finished] data, response, error in
            counts.withLock {
                $0.inFlight -= 1
                if let status = (response as? HTTPURLResponse)?.statusCode { $0.statuses.append(status) }
            }
            completionHandler(data, response, error)
            finished.signal()
        }
    }

    /// Waits until `count` more calls have finished (their completion handler returned), for
    /// at most `seconds`, on a thread of its own: neither on Swift concurrency's threads nor on
    /// Dispatch's, which a loaded machine keeps busy (see `HeadOfLineIntegrationTests.wait(for:)`).
    func waitUntilFinished(_ count: Int, within seconds: TimeInterval = 60) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [finished] in
                let deadline = DispatchTime.now() + seconds
                continuation.resume(
                    returning: (0..<count).allSatisfy { _ in finished.wait(timeout: deadline) == .success })
            }
        }
    }
}
