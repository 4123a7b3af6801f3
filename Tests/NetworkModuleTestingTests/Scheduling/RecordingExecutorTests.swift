import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("RecordingExecutor and the immediate executor")
struct RecordingExecutorTests {
    @Test("when work is executed, should run it at once on the calling thread and count it")
    func countsAndRuns() {
        let executor = RecordingExecutor()
        let ran = Messages()

        executor.execute { ran.hook("first") }
        executor.execute { ran.hook("second") }

        #expect(ran.all == ["first", "second"])
        #expect(executor.deliveryCount == 2)
    }

    @Test("when a request fails, succeeds or is cancelled, should count one delivery for each")
    func exactlyOnce() {
        let session = FakeNetworkSession(delivery: .manual)
        session.stub(.path("/users/1"), with: .status(200))
        session.stub(.path("/users/2"), with: .status(500))
        let executor = RecordingExecutor()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session, completionExecutor: executor)

        module.perform(request: GetUser(id: 1)) { _ in }
        module.perform(request: GetUser(id: 2)) { _ in }
        let cancelled = module.perform(request: GetUser(id: 3)) { _ in }
        cancelled.cancel()
        session.releaseAll()
        cancelled.cancel()

        #expect(executor.deliveryCount == 3)
    }

    @Test("when the module uses the immediate executor with a fake session, should complete inside perform")
    func immediate() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(204))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session, completionExecutor: .immediate
        )
        let results = Results<NetworkResponse>()

        module.perform(request: GetUser(id: 1), completion: results.completion)

        #expect(results.value?.statusCode == 204)
    }
}
