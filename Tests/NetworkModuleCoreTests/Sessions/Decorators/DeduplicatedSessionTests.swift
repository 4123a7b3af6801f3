import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("DeduplicatedSession")
struct DeduplicatedSessionTests {
    /// A manual fake that answers with a counter, so each call has its own body.
    func manualFake() -> FakeNetworkSession {
        let fake = FakeNetworkSession(holdingResponses: true)
        let counter = LockedState(0)
        fake.stub(.any) { _ in
            let call = counter.withLock { count -> Int in
                count += 1
                return count
            }
            return .text("call \(call)", headers: ["X-Call": "\(call)"])
        }
        return fake
    }

    @Test("when identical GETs are in flight together, should make one call and answer each caller with its result")
    func sharesOneCall() {
        let fake = manualFake()
        let session = fake.deduplicated()
        let outcomes = (1...3).map { _ in session.start(sessionRequest("/users/1")).outcomes }

        fake.releaseAll()

        #expect(fake.recordedRequests.count == 1)
        #expect(outcomes.map { $0.single?.body } == ["call 1", "call 1", "call 1"])
        #expect(outcomes.map { $0.single?.headers["X-Call"] } == ["1", "1", "1"])
        #expect(session.statistics == .init(calls: 1, joined: 2, callsInFlight: 0))
    }

    @Test("when the shared call has answered, should make a new call for the next identical request")
    func newCallAfterAnswer() {
        let fake = manualFake()
        let session = fake.deduplicated()
        let first = session.start(sessionRequest("/users/1")).outcomes
        fake.releaseAll()

        let second = session.start(sessionRequest("/users/1")).outcomes
        fake.releaseAll()

        #expect(first.single?.body == "call 1")
        #expect(second.single?.body == "call 2")
        #expect(session.statistics == .init(calls: 2, joined: 0, callsInFlight: 0))
    }

    @Test("when requests differ only in X-Request-ID, header order or name casing, should share one call")
    func ignoredHeadersAndOrder() {
        let fake = manualFake()
        let session = fake.deduplicated()

        session.start(
            sessionRequest("/a", headers: ["Accept": "application/json", "X-Request-ID": "1", "X-Flag": "on"]))
        session.start(
            sessionRequest("/a", headers: ["x-flag": "on", "X-Request-ID": "2", "accept": "application/json"]))

        #expect(fake.recordedRequests.count == 1)
        #expect(session.statistics.joined == 1)
    }

    @Test(
        "when requests differ in Authorization, URL, method, body, timeout or cache policy, should not share",
        arguments: [
            (
                sessionRequest("/a", headers: ["Authorization": "Bearer one"]),
                sessionRequest("/a", headers: ["Authorization": "Bearer two"])
            ),
            (sessionRequest("/a"), sessionRequest("/b")),
            (sessionRequest("/a", method: "GET"), sessionRequest("/a", method: "HEAD")),
            (sessionRequest("/a", body: Data("1".utf8)), sessionRequest("/a", body: Data("2".utf8))),
            (sessionRequest("/a", timeout: 1), sessionRequest("/a", timeout: 60)),
            (
                sessionRequest("/a", cachePolicy: .useProtocolCachePolicy),
                sessionRequest("/a", cachePolicy: .reloadIgnoringLocalCacheData)
            ),
        ])
    func differentRequestsDoNotShare(first: URLRequest, second: URLRequest) {
        let fake = manualFake()
        let session = fake.deduplicated()

        session.start(first)
        session.start(second)

        #expect(fake.recordedRequests.count == 2)
        #expect(session.statistics == .init(calls: 2, joined: 0, callsInFlight: 2))
    }

    @Test("when identical POSTs are in flight, should send each, unless POST is configured")
    func methodsAreConfigurable() {
        let fake = manualFake()
        let byDefault = fake.deduplicated()
        let withPost = fake.deduplicated(methods: [.get, .post])

        byDefault.start(sessionRequest("/a", method: "POST"))
        byDefault.start(sessionRequest("/a", method: "POST"))
        withPost.start(sessionRequest("/b", method: "POST"))
        withPost.start(sessionRequest("/b", method: "POST"))

        #expect(fake.recordedRequests.map { $0.url?.lastPathComponent } == ["a", "a", "b"])
        #expect(byDefault.statistics == .init(calls: 0, joined: 0, callsInFlight: 0))
        #expect(withPost.statistics == .init(calls: 1, joined: 1, callsInFlight: 1))
    }

    @Test("when a header is configured as ignored, should share requests that differ only in it")
    func customIgnoredHeader() {
        let fake = manualFake()
        let session = fake.deduplicated(ignoredHeaderNames: ["x-attempt"])

        session.start(sessionRequest("/a", headers: ["X-Attempt": "1"]))
        session.start(sessionRequest("/a", headers: ["X-Attempt": "2"]))
        session.start(sessionRequest("/a", headers: ["X-Request-ID": "3"]))

        #expect(fake.recordedRequests.count == 2, "X-Request-ID counts once the ignore list is replaced")
    }

    @Test("when one caller cancels, should complete it as cancelled and still answer the others")
    func cancelOneCaller() {
        let fake = manualFake()
        let session = fake.deduplicated()
        let (first, firstOutcomes) = session.start(sessionRequest("/a"))
        let second = session.start(sessionRequest("/a")).outcomes

        first.cancel()

        #expect(firstOutcomes.single?.errorCode == .cancelled)
        #expect(fake.cancelledCount == 0)
        fake.releaseAll()
        #expect(second.single?.body == "call 1")
        #expect(firstOutcomes.count == 1)
    }

    @Test("when every caller cancels, should cancel the shared call and complete each caller once")
    func cancelAllCallers() {
        let fake = manualFake()
        let session = fake.deduplicated()
        let started = (1...3).map { _ in session.start(sessionRequest("/a")) }

        for (task, _) in started { task.cancel() }

        #expect(fake.cancelledCount == 1)
        #expect(started.map { $0.outcomes.single?.errorCode } == [.cancelled, .cancelled, .cancelled])
        #expect(session.statistics.callsInFlight == 0)
        let next = session.start(sessionRequest("/a")).outcomes
        fake.releaseAll()
        #expect(next.single?.body == "call 2", "a cancelled call is not joined")
    }

    @Test("when the shared call fails, should give every caller the same error")
    func sharedFailure() {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .error(.timedOut))
        let session = fake.deduplicated()
        let outcomes = (1...2).map { _ in session.start(sessionRequest("/a")).outcomes }

        fake.releaseAll()

        #expect(outcomes.map { $0.single?.errorCode } == [.timedOut, .timedOut])
    }

    @Test("when a caller cancelled before resuming, should report once and not join or start a call")
    func cancelBeforeResume() {
        let fake = manualFake()
        let session = fake.deduplicated()
        let outcomes = SessionOutcomes()
        let task = session.dataTask(with: sessionRequest("/a"), completionHandler: outcomes.handler)

        task.cancel()
        task.resume()

        #expect(outcomes.single?.errorCode == .cancelled)
        #expect(fake.recordedRequests.isEmpty)
        #expect(session.statistics == .init(calls: 0, joined: 0, callsInFlight: 0))
    }

    // MARK: Letting go of the calls in flight (CachedSession.removeAll())

    @Test(
        "when the calls in flight are let go, should answer their callers once and make a new call for the next identical request"
    )
    func stopSharingMakesNewCall() {
        let fake = manualFake()
        let session = fake.deduplicated()
        let before = (1...2).map { _ in session.start(sessionRequest("/a")).outcomes }

        session.stopSharingCallsInFlight()
        let after = session.start(sessionRequest("/a")).outcomes

        #expect(fake.recordedRequests.count == 2, "a request made after the call was let go joined it")
        #expect(session.statistics == .init(calls: 2, joined: 1, callsInFlight: 2))
        fake.releaseAll()
        #expect(before.map { $0.single?.body } == ["call 1", "call 1"])
        #expect(after.single?.body == "call 2")
        #expect(session.statistics.callsInFlight == 0)
    }

    @Test(
        "when a call that was let go ends after a new identical call started, should leave the new call joinable",
        arguments: ["answered", "cancelled"])
    func detachedCallEndsAfterNewCall(ending: String) {
        let fake = manualFake()
        let session = fake.deduplicated()
        let (old, oldOutcomes) = session.start(sessionRequest("/a"))
        session.stopSharingCallsInFlight()
        let new = session.start(sessionRequest("/a")).outcomes

        if ending == "answered" { fake.releaseNext() } else { old.cancel() }
        let joined = session.start(sessionRequest("/a")).outcomes

        #expect(oldOutcomes.count == 1)
        #expect(oldOutcomes.all.first?.body == (ending == "answered" ? "call 1" : nil))
        #expect(oldOutcomes.all.first?.errorCode == (ending == "answered" ? nil : .cancelled))
        #expect(fake.recordedRequests.count == 2, "the old call's end removed the new call from the table")
        #expect(session.statistics == .init(calls: 2, joined: 1, callsInFlight: 1))
        fake.releaseAll()
        #expect([new, joined].map { $0.single?.body } == ["call 2", "call 2"])
        #expect(session.statistics.callsInFlight == 0)
    }

    @Test("when many threads send identical requests while the call is held, should answer each exactly once")
    func concurrentJoins() {
        let fake = manualFake()
        let session = fake.deduplicated()
        let outcomes = (0..<100).map { _ in SessionOutcomes() }

        DispatchQueue.concurrentPerform(iterations: outcomes.count) { index in
            session.dataTask(with: sessionRequest("/a"), completionHandler: outcomes[index].handler).resume()
        }
        fake.releaseAll()

        #expect(fake.recordedRequests.count == 1)
        #expect(outcomes.allSatisfy { $0.single?.body == "call 1" })
        #expect(session.statistics == .init(calls: 1, joined: 99, callsInFlight: 0))
    }
}
