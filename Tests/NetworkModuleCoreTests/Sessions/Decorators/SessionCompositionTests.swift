import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Session decorators composed")
struct SessionCompositionTests {
    @Test(
        "when cached over de-duplicated over throttled, should send identical misses once and answer repeats from memory"
    )
    func recommendedOrder() {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any) { request in
            .text(request.url?.lastPathComponent ?? "", headers: ["Cache-Control": "max-age=60"])
        }
        let throttled = fake.throttled(maxConcurrent: 1)
        let deduplicated = throttled.deduplicated()
        let session = deduplicated.cached()
        let sameThreeTimes = (1...3).map { _ in session.start(sessionRequest("/a")).outcomes }
        let other = session.start(sessionRequest("/b")).outcomes

        #expect(throttled.statistics == .init(inFlight: 1, waiting: 1), "one place for /a, /b waits")
        fake.releaseAll()

        #expect(fake.recordedRequests.map { $0.url?.lastPathComponent } == ["a", "b"])
        #expect(sameThreeTimes.map { $0.single?.body } == ["a", "a", "a"])
        #expect(other.single?.body == "b")
        #expect(deduplicated.statistics == .init(calls: 2, joined: 2, callsInFlight: 0))
        let repeated = session.start(sessionRequest("/a")).outcomes
        #expect(repeated.single?.body == "a")
        #expect(session.statistics.hits == 1)
        #expect(fake.recordedRequests.count == 2)
    }

    @Test("when throttled is outermost, should spend a place on each caller even when the calls below are shared")
    func throttledOutermostSpendsPlaces() {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .text("a"))
        let session = fake.deduplicated().throttled(maxConcurrent: 2)

        let outcomes = (1...3).map { _ in session.start(sessionRequest("/a")).outcomes }

        #expect(session.statistics == .init(inFlight: 2, waiting: 1))
        #expect(fake.recordedRequests.count == 1)
        fake.releaseAll()
        #expect(outcomes.allSatisfy { $0.single?.body == "a" })
        #expect(fake.recordedRequests.count == 2, "the third caller came after the shared call had answered")
    }
}
