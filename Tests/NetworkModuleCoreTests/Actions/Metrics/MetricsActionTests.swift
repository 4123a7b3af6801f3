import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Metrics action")
struct MetricsActionTests {
    /// Collects the reported metrics.
    final class Reports: Sendable {
        private let storage = LockedState<[RequestMetrics]>([])
        var all: [RequestMetrics] { storage.value }
        var report: @Sendable (RequestMetrics) -> Void { { metrics in self.storage.withLock { $0.append(metrics) } } }
    }

    @Test(
        "when a request succeeds after a retry, should report both attempts, bytes both ways and the final status, once"
    )
    func successAfterRetry() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("busy", status: 503), .text("created!", status: 201))
        let reports = Reports()
        let module = makeModule(
            session: session, actions: [ProbeAction(retry: [.retry]), .metrics(reports.report)])
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/v2/notes?token=x")))
        request.httpMethod = "PUT"
        request.httpBody = Data("twelve bytes".utf8)

        module.perform(urlRequest: request) { _ in }

        let metrics = try #require(reports.all.first)
        #expect(reports.all.count == 1)
        #expect(metrics.method == "PUT")
        #expect(metrics.url == "https://api.example.com/v2/notes?token=REDACTED", "token is a secret by default")
        #expect(metrics.attempts == 2)
        #expect(metrics.bytesSent == 24)
        #expect(metrics.bytesReceived == 12)
        #expect(metrics.outcome == .success(201))
        #expect(metrics.statusCode == 201)
        #expect(metrics.preparationDuration >= 0 && metrics.inFlightDuration >= 0)
        #expect(metrics.preparationDuration + metrics.inFlightDuration <= metrics.totalDuration)
    }

    @Test("when a request fails in transport, should report the error and no status")
    func transportFailure() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.timedOut))
        let reports = Reports()

        makeModule(session: session, actions: [.metrics(reports.report)]).perform(request: TestRequest()) { _ in }

        let metrics = try #require(reports.all.first)
        #expect(metrics.outcome == .failure(.timedOut))
        #expect(metrics.statusCode == nil)
        #expect(metrics.attempts == 1)
        #expect(metrics.bytesReceived == 0)
    }

    @Test("when a request is cancelled while a token is awaited, should report it as cancelled with nothing sent")
    func cancelledInPreparation() throws {
        let session = FakeNetworkSession()
        let tokens = FakeTokenProvider(holdsCurrent: true)
        let reports = Reports()

        makeModule(session: session, actions: [.authentication(tokens), .metrics(reports.report)])
            .perform(request: AuthenticatedRequest()) { _ in }.cancel()

        let metrics = try #require(reports.all.first)
        #expect(metrics.outcome == .failure(.cancelled))
        #expect(metrics.url == nil)
        #expect(metrics.bytesSent == 0)
        #expect(metrics.inFlightDuration == 0)
        #expect(metrics.preparationDuration <= metrics.totalDuration)
    }

    @Test("when an HTTP error is final, should report its status and the error body's bytes")
    func httpError() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("not here", status: 404))
        let reports = Reports()

        makeModule(session: session, actions: [.metrics(reports.report)]).perform(request: TestRequest()) { _ in }

        let metrics = try #require(reports.all.first)
        #expect(metrics.statusCode == 404)
        #expect(metrics.bytesReceived == 8)
    }
    @Test("when the session measures no phases (a fake, or Linux), should report none")
    func noPhases() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let reports = Reports()

        makeModule(session: session, actions: [.metrics(reports.report)]).perform(request: TestRequest()) { _ in }

        #expect(reports.all.count == 1)
        #expect(try #require(reports.all.first).phases == nil)
    }

    @Test("when metrics are made without phases, should have none; with phases, should keep them")
    func initialisers() {
        let phases = RequestPhases(isReusedConnection: true, networkProtocolName: "h2")
        let without = RequestMetrics(
            method: "GET", url: nil, attempts: 1, totalDuration: 0, preparationDuration: 0, inFlightDuration: 0,
            bytesSent: 0, bytesReceived: 0, outcome: .success(200))
        let with = RequestMetrics(
            method: "GET", url: nil, attempts: 1, totalDuration: 0, preparationDuration: 0, inFlightDuration: 0,
            bytesSent: 0, bytesReceived: 0, outcome: .success(200), phases: phases)

        #expect(without.phases == nil)
        #expect(with.phases == phases)
    }
}
