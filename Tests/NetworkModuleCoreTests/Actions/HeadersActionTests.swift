import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Headers action")
struct HeadersActionTests {
    @Test("when headers are fixed, should add them without overriding the request's own")
    func fixedHeaders() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(
            session: session, actions: [.headers(["User-Agent": "Notes/2.4.1", "Accept-Language": "pl-PL"])])

        module.perform(request: TestRequest(headers: ["Accept-Language": "en-GB"])) { _ in }

        let sent = session.recordedRequests.first
        #expect(sent?.value(forHTTPHeaderField: "User-Agent") == "Notes/2.4.1")
        #expect(sent?.value(forHTTPHeaderField: "Accept-Language") == "en-GB")
    }

    @Test("when a request is retried, should keep its request ID; another request should get another")
    func requestIDPerRequest() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(503), .status(200))
        session.stub(.path("/v2/users/2"), with: .status(200))
        let module = makeModule(session: session, actions: [.requestID(), ProbeAction(retry: [.retry])])

        module.perform(request: TestRequest(path: "/users/1")) { _ in }
        module.perform(request: TestRequest(path: "/users/2")) { _ in }

        let ids = session.recordedRequests.compactMap { $0.value(forHTTPHeaderField: "X-Request-ID") }
        #expect(ids.count == 3)
        #expect(ids[0] == ids[1], "both attempts of one request")
        #expect(ids[1] != ids[2])
        #expect(ids.allSatisfy { UUID(uuidString: $0) != nil })
    }

    @Test("when a header is computed, should compute it before each attempt with the attempt's context")
    func computedPerAttempt() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let module = makeModule(
            session: session, actions: [.header("X-Attempt") { "\($0.attempt)" }, ProbeAction(retry: [.retry])])

        module.perform(request: TestRequest()) { _ in }

        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "X-Attempt") } == ["1", "2"])
    }
}
