import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Exactly-once delivery")
struct ExactlyOnceDeliveryTests {
    @Test("when the server answers 200, should deliver one success synchronously with the immediate executor")
    func successIsDeliveredOnceSynchronously() throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .json(User(id: 1, name: "Ada")))
        let executor = RecordingExecutor()
        let module = makeModule(session: session, executor: executor)
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest(), completion: results.completion)

        let response = try #require(results.singleValue)
        #expect(response.statusCode == 200)
        #expect(try response.decode(User.self) == User(id: 1, name: "Ada"))
        #expect(executor.deliveryCount == 1)
        #expect(response.request.url?.absoluteString == "https://api.example.com/v2/users/1")
    }

    @Test("when the server answers an error status, should deliver one failure that keeps status, headers and body")
    func httpErrorIsDeliveredOnce() throws {
        let session = FakeNetworkSession()
        session.stub(
            .any, with: .json(APIError(code: "gone", message: "No such user"), status: 404, headers: ["X-Trace": "abc"])
        )
        let executor = RecordingExecutor()
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, executor: executor).perform(request: TestRequest(), completion: results.completion)

        guard case .notFound(let response)? = results.singleError else {
            Issue.record("expected .notFound, got \(String(describing: results.results))")
            return
        }
        #expect(response.statusCode == 404)
        #expect(response.headers["x-trace"] == "abc")
        #expect(try response.decodeBody(as: APIError.self) == APIError(code: "gone", message: "No such user"))
        #expect(response.url?.absoluteString == "https://api.example.com/v2/users/1")
        #expect(executor.deliveryCount == 1)
    }

    @Test("when the transport fails, should deliver one failure with the URLError code")
    func transportErrorIsDeliveredOnce() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.cannotConnectToHost))
        let executor = RecordingExecutor()
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, executor: executor).perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == .cannotConnectToHost)
        #expect(results.singleError?.urlErrorCode == .cannotConnectToHost)
        #expect(executor.deliveryCount == 1)
    }

    @Test("when the request cannot be built, should deliver one failure through the executor and send nothing")
    func buildFailureIsDeliveredOnce() {
        let session = FakeNetworkSession()
        let executor = RecordingExecutor()
        let action = ProbeAction()
        let results = ResultCollector<NetworkResponse>()
        let module = makeModule(session: session, actions: [action], executor: executor)

        let handle = module.perform(request: TestRequest(method: "BAD METHOD"), completion: results.completion)
        handle.cancel()

        #expect(results.singleError == .invalidRequest(.invalidMethod("BAD METHOD")))
        #expect(executor.deliveryCount == 1)
        #expect(session.recordedRequests.isEmpty)
        #expect(action.log.value.prepared.isEmpty, "a request that cannot be built never reaches the actions")
    }

    @Test("when cancelled before it is sent, should deliver .cancelled once and never send")
    func cancelBeforeSend() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let holder = ProbeAction(prepare: .hold)
        let executor = RecordingExecutor()
        let results = ResultCollector<NetworkResponse>()
        let module = makeModule(session: session, actions: [holder], executor: executor)

        let handle = module.perform(request: TestRequest(), completion: results.completion)
        #expect(results.count == 0)
        handle.cancel()
        holder.releaseHeld()

        #expect(results.singleError == .cancelled)
        #expect(executor.deliveryCount == 1)
        #expect(session.recordedRequests.isEmpty)
    }

    @Test(
        "when cancelled in flight, should deliver .cancelled at once, cancel the session task and drop its late answer")
    func cancelInFlight() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let executor = RecordingExecutor()
        let results = ResultCollector<NetworkResponse>()
        let module = makeModule(session: session, executor: executor)

        let handle = module.perform(request: TestRequest(), completion: results.completion)
        #expect(session.heldCount == 1)
        handle.cancel()

        #expect(results.singleError == .cancelled)
        #expect(session.cancelledCount == 1)
        #expect(session.releaseNext() == false, "the cancelled task's answer is gone")
        #expect(executor.deliveryCount == 1)
    }

    @Test("when a session calls back after the request was cancelled, should drop the late callback")
    func lateCallbackAfterCancelIsDropped() {
        let session = StubbornSession()
        let executor = RecordingExecutor()
        let results = ResultCollector<NetworkResponse>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            completionExecutor: executor)

        let handle = module.perform(request: TestRequest(), completion: results.completion)
        handle.cancel()
        session.answerAll()  // ignores the cancel and answers 200 anyway, then again

        #expect(results.singleError == .cancelled)
        #expect(executor.deliveryCount == 1)
    }

    @Test("when a session answers twice, should deliver only the first answer")
    func secondSessionAnswerIsDropped() {
        let session = StubbornSession()
        let results = ResultCollector<NetworkResponse>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, completionExecutor: .immediate
        )

        module.perform(request: TestRequest(), completion: results.completion)
        session.answerAll()

        #expect(results.single.map { (try? $0.get())?.statusCode } == 200)
    }

    @Test("when cancelled after completion, or twice, should change nothing")
    func cancelAfterCompletion() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(204))
        let executor = RecordingExecutor()
        let results = ResultCollector<NetworkResponse>()

        let handle = makeModule(session: session, executor: executor).perform(
            request: TestRequest(), completion: results.completion)
        handle.cancel()
        handle.cancel()

        #expect(results.single.map { (try? $0.get())?.statusCode } == 204)
        #expect(executor.deliveryCount == 1)
        #expect(session.cancelledCount == 0)
    }

    @Test("when the caller drops the module, should complete the request in flight, then release the module")
    func requestOutlivesModule() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let results = ResultCollector<NetworkResponse>()
        weak var weakModule: DefaultNetworkModule?

        do {
            let module = makeModule(session: session)
            weakModule = module
            module.perform(request: TestRequest(), completion: results.completion)
        }
        #expect(weakModule != nil, "the request in flight holds its module")
        session.releaseAll()

        #expect(results.single.map { (try? $0.get())?.statusCode } == 200)
        #expect(weakModule == nil, "the module is released once its last request has completed")
    }

    @Test("when completions run on a queue executor, should deliver on that queue")
    func queueExecutorDeliversOnQueue() async {
        let queue = DispatchQueue(label: "test.completions")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session, executor: .queue(queue))

        let onQueue = await withCheckedContinuation { continuation in
            module.perform(request: TestRequest()) { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
            }
        }

        #expect(onQueue)
    }

    @Test("when completions run on the background executor, should use one shared queue")
    func backgroundExecutorIsShared() {
        let first: BuiltInExecutor = .background
        let second: BuiltInExecutor = .background
        #expect(first.deliveryQueue === second.deliveryQueue)
        #expect(first.deliveryQueue.map { $0 !== DispatchQueue.main } == true)
    }
}

/// A session that ignores cancellation and answers every task twice: the worst a session
/// could do.
final class StubbornSession: NetworkSession {
    private let completions = LockedState<[@Sendable (Data?, URLResponse?, (any Error)?) -> Void]>([])

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        completions.withLock { $0.append(completionHandler) }
        return IgnoringTask()
    }

    func answerAll() {
        let url = apiBaseURL
        for completion in completions.value {
            completion(Data(), try? HTTPURLResponse.make(url: url, statusCode: 200), nil)
            completion(Data(), try? HTTPURLResponse.make(url: url, statusCode: 500), nil)
        }
    }

    private struct IgnoringTask: NetworkSessionTask {
        func resume() {}
        func cancel() {}
    }
}
