import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The promises of the request lifecycle that the state machine keeps, each through the module,
/// with fakes and the immediate executor: `didFinish` is the last hook, a created task is never
/// abandoned, retries cost no stack, actions see the caller's outcome, a cancelled `Task` sends
/// nothing, and a request's timeout bounds the wait for its actions.
@Suite("Lifecycle guarantees")
struct LifecycleGuaranteesTests {
    /// Records every hook with the action's name; cancels the request from inside one hook.
    final class HookRecorder: NetworkModuleAction {
        enum CancelPoint: Sendable { case none, didReceive, validate, retryDecision, didFinish }

        let name: String
        let order: LockedState<[String]>
        let cancelPoint: CancelPoint
        let handle = LockedState<(any NetworkCancellable)?>(nil)
        let retries: Bool

        init(name: String, order: LockedState<[String]>, cancelPoint: CancelPoint = .none, retries: Bool = false) {
            self.name = name
            self.order = order
            self.cancelPoint = cancelPoint
            self.retries = retries
        }

        private func note(_ hook: String, _ point: CancelPoint) {
            order.withLock { $0.append("\(hook) \(name)") }
            if point == cancelPoint { handle.value?.cancel() }
        }

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            order.withLock { $0.append("prepare \(name) #\(context.attempt)") }
            completion(.success(urlRequest))
        }

        func validate(_ response: NetworkResponse, context: ActionContext) throws {
            note("validate", .validate)
        }

        func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            note("didReceive", .didReceive)
        }

        func retryDecision(
            for error: NetworkError, context: ActionContext, completion: @escaping @Sendable (RetryDecision) -> Void
        ) {
            note("retryDecision", .retryDecision)
            completion(retries ? .retry : .doNotRetry)
        }

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            let outcome =
                switch result {
                case .success(let response): "\(response.statusCode)"
                case .failure(.cancelled): "cancelled"
                case .failure(.decodingFailed): "decodingFailed"
                case .failure(let error): "\(error.statusCode ?? 0)"
                }
            order.withLock { $0.append("didFinish \(name) \(outcome)") }
            if cancelPoint == .didFinish { handle.value?.cancel() }
        }
    }

    // MARK: - didFinish is the last hook

    @Test(
        "when a request is cancelled while actions observe its response, should run every observing hook before didFinish",
        arguments: [HookRecorder.CancelPoint.didReceive, .validate])
    func cancelWhileObserving(point: HookRecorder.CancelPoint) {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let order = LockedState<[String]>([])
        let first = HookRecorder(name: "A", order: order, cancelPoint: point)
        let second = HookRecorder(name: "B", order: order)
        let results = ResultCollector<NetworkResponse>()

        let handle = makeModule(session: session, actions: [first, second]).perform(
            request: TestRequest(), completion: results.completion)
        first.handle.withLock { $0 = handle }
        session.releaseAll()

        let hooks = order.value
        #expect(hooks.suffix(2) == ["didFinish A cancelled", "didFinish B cancelled"], "\(hooks)")
        #expect(hooks.filter { $0.hasPrefix("didFinish") }.count == 2)
        #expect(hooks.contains("didReceive B"), "every observing hook runs before didFinish: \(hooks)")
        #expect(results.singleError == .cancelled)
    }

    @Test("when a request is cancelled while an action decides to retry, should prepare no further attempt")
    func cancelWhileDeciding() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(503))
        let order = LockedState<[String]>([])
        let action = HookRecorder(name: "A", order: order, cancelPoint: .retryDecision, retries: true)
        let results = ResultCollector<NetworkResponse>()

        let handle = makeModule(session: session, actions: [action]).perform(
            request: TestRequest(), completion: results.completion)
        action.handle.withLock { $0 = handle }
        session.releaseAll()

        #expect(order.value == ["prepare A #1", "didReceive A", "retryDecision A", "didFinish A cancelled"])
        #expect(results.singleError == .cancelled)
    }

    @Test("when a request is cancelled while a logging action observes it, should log nothing after the cancelled line")
    func loggingAfterCancel() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let log = LockedState<[String]>([])
        let order = LockedState<[String]>([])
        let canceller = HookRecorder(name: "A", order: order, cancelPoint: .didReceive)
        let logging = LoggingAction(
            redaction: .default, headers: false, bodies: false, maxBodyLength: 2048, curl: false,
            sink: { line in log.withLock { $0.append(line) } })

        let handle = makeModule(session: session, actions: [canceller, logging]).perform(request: TestRequest()) { _ in
        }
        canceller.handle.withLock { $0 = handle }
        session.releaseAll()

        let lines = log.value
        #expect(lines.last?.contains("cancelled") == true, "\(lines)")
        #expect(logging.requestEntryCount == 0)
    }

    // MARK: - A created task is never abandoned

    @Test("when the request is cancelled while the session creates its task, should cancel that task and not resume it")
    func cancelDuringTaskCreation() {
        let session = CancellingSession()
        let held = ProbeAction(prepare: .hold)
        let results = ResultCollector<NetworkResponse>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, actions: [held],
            completionExecutor: .immediate)

        let handle = module.perform(request: TestRequest(), completion: results.completion)
        session.handle.withLock { $0 = handle }
        held.releaseHeld()

        let task = session.tasks.value.first
        #expect(task?.wasCancelled == true)
        #expect(task?.wasResumed == false)
        #expect(results.singleError == .cancelled)
    }

    // MARK: - Retries cost no stack

    @Test(
        "when an action retries every answer of a session that answers inside resume, should stop at the attempt limit")
    func immediateRetriesStopAtTheLimit() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(500))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [AlwaysRetry()]).perform(
            request: TestRequest(), completion: results.completion)

        #expect(session.recordedRequests.count == DefaultNetworkModule.defaultMaximumAttempts)
        #expect(results.singleError?.statusCode == 500)
    }

    @Test("when 20,000 immediate retries run in one call, should not deepen the stack")
    func immediateRetriesDoNotRecurse() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(500))
        let results = ResultCollector<NetworkResponse>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, actions: [AlwaysRetry()],
            completionExecutor: .immediate, maximumAttempts: 20_000)

        module.perform(request: TestRequest(), completion: results.completion)

        #expect(session.recordedRequests.count == 20_000)
        #expect(results.singleError?.statusCode == 500)
    }

    // MARK: - Actions see the outcome the caller gets

    @Test("when a decoded body fails to decode, should give didFinish the decoding failure the caller gets")
    func decodingFailureReachesActions() {
        struct Strict: Decodable, Sendable { let required: String }
        let session = FakeNetworkSession()
        session.stub(.any, with: .json("{}"))
        let order = LockedState<[String]>([])
        let results = ResultCollector<Strict>()

        makeModule(session: session, actions: [HookRecorder(name: "A", order: order)]).performAndDecode(
            request: TestRequest(), responseType: Strict.self, decoder: JSONDecoder(), completion: results.completion)

        #expect(order.value.last == "didFinish A decodingFailed")
        if case .decodingFailed? = results.singleError {} else { Issue.record("expected decodingFailed") }
    }

    // MARK: - A cancel before the executor runs the completion wins

    @Test(
        "when cancelled after the outcome is decided but before the executor runs the completion, should deliver cancelled once"
    )
    func cancelWhileDeliveryQueued() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let order = LockedState<[String]>([])
        let executor = RecordingExecutor(holdingDeliveries: true)
        let results = ResultCollector<NetworkResponse>()
        let handle = makeModule(session: session, actions: [HookRecorder(name: "A", order: order)], executor: executor)
            .perform(request: TestRequest(), completion: results.completion)
        #expect(executor.heldCount == 1, "the 200 is decided and its delivery queued")

        handle.cancel()
        let delivered = await executor.deliver()

        #expect(delivered)
        #expect(results.count == 1)
        #expect(results.singleError == .cancelled, "\(results.results)")
        #expect(executor.deliveryCount == 1)
        #expect(order.value.last == "didFinish A 200", "didFinish saw the outcome, once, and is the last hook")
        #expect(order.value.filter { $0.hasPrefix("didFinish") }.count == 1)
        handle.cancel()
        #expect(results.count == 1, "a cancel after the delivery changes nothing")
    }

    @Test("when cancelled after the executor ran the completion, should leave the delivered success as it is")
    func cancelAfterDelivery() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let executor = RecordingExecutor(holdingDeliveries: true)
        let results = ResultCollector<NetworkResponse>()
        let handle = makeModule(session: session, executor: executor)
            .perform(request: TestRequest(), completion: results.completion)
        #expect(await executor.deliver())

        handle.cancel()

        #expect(results.singleValue?.statusCode == 200)
        #expect(executor.deliveryCount == 1)
    }

    @Test("when a decoded request is cancelled before the executor runs its completion, should deliver cancelled")
    func cancelDecodedWhileDeliveryQueued() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(User(id: 1, name: "Ada")))
        let executor = RecordingExecutor(holdingDeliveries: true)
        let results = ResultCollector<User>()
        let handle = makeModule(session: session, executor: executor).performAndDecode(
            request: TestRequest(), responseType: User.self, completion: results.completion)

        handle.cancel()
        let delivered = await executor.deliver()

        #expect(delivered)
        #expect(results.singleError == .cancelled, "\(results.results)")
    }

    @Test("when cancelled from didFinish, should deliver cancelled after didFinish saw the outcome")
    func cancelFromDidFinish() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let order = LockedState<[String]>([])
        let first = HookRecorder(name: "A", order: order, cancelPoint: .didFinish)
        let second = HookRecorder(name: "B", order: order)
        let results = ResultCollector<NetworkResponse>()
        let handle = makeModule(session: session, actions: [first, second]).perform(
            request: TestRequest(), completion: results.completion)
        first.handle.withLock { $0 = handle }

        session.releaseAll()

        #expect(order.value.suffix(2) == ["didFinish A 200", "didFinish B 200"], "\(order.value)")
        #expect(results.singleError == .cancelled, "\(results.results)")
    }

    // MARK: - A cancelled Task sends nothing

    @Test("when a Task is cancelled before it performs, should throw cancelled and send nothing")
    func cancelledTaskSendsNothing() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session)

        for _ in 0..<100 {
            let task = Task { () -> String in
                withUnsafeCurrentTask { $0?.cancel() }
                do throws(NetworkError) {
                    _ = try await module.perform(request: TestRequest())
                    return "sent"
                } catch {
                    return error == .cancelled ? "cancelled" : "other"
                }
            }
            let outcome = await task.value
            #expect(outcome == "cancelled")
        }
        #expect(session.recordedRequests.isEmpty)
    }

    // MARK: - The timeout bounds the wait for actions

    @Test("when an action never finishes preparing, should fail the request with timedOut after its timeout")
    func hungActionTimesOut() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let scheduler = ManualDelayScheduler()
        let hung = ProbeAction(prepare: .hold)
        let results = ResultCollector<NetworkResponse>()
        var request = URLRequest(url: apiBaseURL.appendingPathComponent("users"))
        request.timeoutInterval = 5

        makeModule(session: session, actions: [hung], scheduler: scheduler).perform(
            urlRequest: request, completion: results.completion)
        scheduler.advance(by: 4.9)
        #expect(results.count == 0)
        scheduler.advance(by: 0.1)

        #expect(results.singleError == .timedOut)
        #expect(session.recordedRequests.isEmpty)
        #expect(hung.log.value.finished == [.failure(.timedOut)])
    }

    @Test(
        "when a URLRequest's timeout is 30 s, or not a timeout (0, negative, NaN, infinite: 60 s), should bound the wait for actions by it",
        arguments: [(30, 30), (0, 60), (-1, 60), (.nan, 60), (.infinity, 60)] as [(TimeInterval, TimeInterval)])
    func preparationDeadlineOfEveryTimeout(timeout: TimeInterval, bound: TimeInterval) {
        let session = FakeNetworkSession()
        let scheduler = ManualDelayScheduler()
        let results = ResultCollector<NetworkResponse>()
        var request = URLRequest(url: apiBaseURL.appendingPathComponent("users"))
        request.timeoutInterval = timeout

        makeModule(session: session, actions: [ProbeAction(prepare: .hold)], scheduler: scheduler).perform(
            urlRequest: request, completion: results.completion)
        scheduler.advance(by: bound - 0.1)
        #expect(results.count == 0)
        scheduler.advance(by: 0.1)

        #expect(results.singleError == .timedOut)
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when an action prepares in time, should cancel the preparation deadline")
    func preparedInTimeCancelsDeadline() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let scheduler = ManualDelayScheduler()
        let held = ProbeAction(prepare: .hold)
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [held], scheduler: scheduler).perform(
            request: TestRequest(), completion: results.completion)
        #expect(scheduler.pendingCount == 1)
        held.releaseHeld()

        #expect(scheduler.pendingCount == 0)
        #expect(results.singleValue?.statusCode == 200)
    }
}

/// Retries every failure at once.
private struct AlwaysRetry: NetworkModuleAction {
    func retryDecision(
        for error: NetworkError, context: ActionContext, completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        completion(.retry)
    }
}

/// A session whose tasks record whether they were resumed or cancelled, and which cancels
/// `handle`'s request while it creates a task.
private final class CancellingSession: NetworkSession {
    final class Task: NetworkSessionTask {
        private let state = LockedState((resumed: false, cancelled: false))
        let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void

        init(completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) {
            self.completion = completion
        }

        var wasResumed: Bool { state.value.resumed }
        var wasCancelled: Bool { state.value.cancelled }

        func resume() { state.withLock { $0.resumed = true } }

        func cancel() {
            state.withLock { $0.cancelled = true }
            completion(nil, nil, URLError(.cancelled))
        }
    }

    let handle = LockedState<(any NetworkCancellable)?>(nil)
    let tasks = LockedState<[Task]>([])

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        let task = Task(completion: completionHandler)
        tasks.withLock { $0.append(task) }
        handle.value?.cancel()
        return task
    }
}
