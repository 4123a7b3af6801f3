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
        let session = FakeNetworkSession(holdingResponses: true)
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

    // MARK: Holding deliveries

    @Test("when holding deliveries, should hold work until deliver runs it, oldest first, counting each once")
    func manualHoldsUntilDelivered() async {
        let executor = RecordingExecutor(holdingDeliveries: true)
        let ran = Messages()

        executor.execute { ran.hook("first") }
        executor.execute { ran.hook("second") }
        #expect(ran.all.isEmpty)
        #expect(executor.heldCount == 2)
        #expect(executor.deliveryCount == 2)

        #expect(await executor.deliver())
        #expect(ran.all == ["first"])
        #expect(await executor.deliver())
        #expect(ran.all == ["first", "second"])
        #expect(executor.heldCount == 0)
        #expect(executor.deliveryCount == 2)
    }

    @TaskLocal static var caller: String?

    @Test(
        "when work is handed over later from another thread, deliver should wait for it and run it in the caller's task"
    )
    func manualWaitsAndRunsInTheCallersTask() async {
        let executor = RecordingExecutor(holdingDeliveries: true)
        let seenCaller = LockedState<String??>(nil)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
            executor.execute { seenCaller.withLock { $0 = Self.caller } }
        }

        let delivered = await Self.$caller.withValue("the test") { await executor.deliver() }

        #expect(delivered)
        #expect(seenCaller.withLock { $0 } == "the test", "the work ran outside the test's task")
    }

    @Test("when nothing is handed over within the timeout, deliver should return false, and not run later work")
    func manualTimesOut() async {
        let executor = RecordingExecutor(holdingDeliveries: true)
        let ran = Messages()

        let delivered = await executor.deliver(timeout: 0.05)
        executor.execute { ran.hook("late") }

        #expect(!delivered)
        #expect(ran.all.isEmpty, "work after a timed-out wait is held for the next deliver")
        #expect(executor.heldCount == 1)
    }

    @Test("when the executor delivers immediately, deliver should have nothing to run")
    func deliverOnImmediate() async {
        let executor = RecordingExecutor()

        #expect(await executor.deliver(timeout: 0) == false)
    }

    @MainActor
    @Test("when an action answers later, on another thread, the completion should run once, where the test delivers it")
    func asynchronousActionThroughTheModule() async {
        let session = FakeNetworkSession()
        session.stub(.path("/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))
        let executor = RecordingExecutor(holdingDeliveries: true)
        let authentication: AuthenticationAction = .authentication(current: {
            await Task.yield()  // answers in a task of its own, off the calling thread
            return "t0ken"
        })
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session,
            actions: [authentication], completionExecutor: executor)
        let names = LockedState([String]())

        module.performAndDecode(request: GetSecretUser(id: 1), responseType: User.self) { result in
            // What a view model does with `.main` in the app: only safe on the main actor.
            MainActor.assumeIsolated { names.withLock { $0.append((try? result.get().name) ?? "failed") } }
        }
        #expect(names.withLock { $0 }.isEmpty, "the token comes later: nothing is delivered inside the call")

        #expect(await executor.deliver())
        #expect(names.withLock { $0 } == ["Ada"])
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer t0ken")
        #expect(executor.deliveryCount == 1)
    }
}

private struct GetSecretUser: NetworkRequest {
    let id: Int
    var path: String { "/users/\(id)" }
    var requiresAuthentication: Bool { true }
}
