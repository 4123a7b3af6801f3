import Foundation
@testable import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The name `onThread(named:_:)` gave the current thread.
private func threadName() -> String {
    Thread.current.threadDictionary["sample.thread"] as? String ?? "?"
}

/// The samples of docs/executors-and-threading.md.
@Suite("Executors and threading samples")
struct ExecutorsAndThreadingSamples {
    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
    }

    static func session(holdingResponses: Bool = false) -> FakeNetworkSession {
        let session = FakeNetworkSession(holdingResponses: holdingResponses)
        session.stub(.path("/v2/users/1"), with: .json(#"{"id": 1, "name": "Ada"}"#))
        return session
    }

    @Test("when a module is created with each executor, should deliver through that executor")
    func choosingAnExecutor() throws {
        let builder = DefaultRequestBuilder(baseURL: sampleBaseURL)
        let fakeSession = Self.session()

        // sample: executors-choose
        let imageQueue = DispatchQueue(label: "com.example.images")

        let forUI = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .main)
        let onMyQueue = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .queue(imageQueue))
        let offTheMainThread = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .background)
        let inTests = DefaultNetworkModule(requestBuilder: builder, session: fakeSession, completionExecutor: .immediate)
        // end-sample

        #expect((forUI.completionExecutor as? BuiltInExecutor)?.deliveryQueue?.label == DispatchQueue.main.label)
        #expect((onMyQueue.completionExecutor as? BuiltInExecutor)?.deliveryQueue === imageQueue)
        #expect((offTheMainThread.completionExecutor as? BuiltInExecutor)?.deliveryQueue === BuiltInExecutor.background.deliveryQueue)
        #expect((inTests.completionExecutor as? BuiltInExecutor).map { $0.deliveryQueue == nil } == true)
        #expect((DefaultNetworkModule(requestBuilder: builder).completionExecutor as? BuiltInExecutor)?.deliveryQueue?.label == DispatchQueue.main.label)
    }

    @Test("when completions run on a queue executor, should run asynchronously on that queue")
    func queueExecutor() async {
        let imageQueue = DispatchQueue(label: "com.example.images")
        let key = DispatchSpecificKey<Bool>()
        imageQueue.setSpecific(key: key, value: true)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: Self.session(),
            completionExecutor: .queue(imageQueue))
        let returned = LockedLines()

        // The queue is held while perform runs, so a completion that ran inside perform (or
        // raced it) would find no "returned" line; resuming the queue lets it run.
        imageQueue.suspend()
        let onQueue = await withCheckedContinuation { continuation in
            module.perform(request: GetUser(id: 1)) { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true && returned.lines == ["returned"])
            }
            returned.append("returned")
            imageQueue.resume()
        }

        #expect(onQueue, "delivered on the queue, after perform returned")
    }

    // sample: executors-custom
    struct OperationQueueExecutor: CompletionExecutor {
        let queue: OperationQueue

        func execute(_ work: @escaping @Sendable () -> Void) {
            queue.addOperation(work)
        }
    }
    // end-sample

    @Test("when a custom executor is used, should deliver through it")
    func customExecutor() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: Self.session(),
            completionExecutor: OperationQueueExecutor(queue: queue))
        let delivered = LockedLines()

        module.perform(request: GetUser(id: 1)) { result in
            delivered.append("\((try? result.get())?.statusCode ?? 0) \(OperationQueue.current === queue)")
        }
        queue.waitUntilAllOperationsAreFinished()

        #expect(delivered.lines == ["200 true"])
    }

    @Test("when the immediate executor is used, should complete inside cancel()")
    func immediateCancel() {
        let module = makeSampleModule(session: Self.session(holdingResponses: true))

        let printed = Transcript.recording {
            // sample: executors-immediate-cancel
            let task = module.perform(request: GetUser(id: 1)) { result in
                if case .failure(.cancelled) = result {
                    print("completion: cancelled")
                }
            }
            print("cancelling")
            task.cancel()
            print("cancel() returned")
            // Prints "cancelling", "completion: cancelled", "cancel() returned".
            // end-sample
        }

        #expect(printed == ["cancelling", "completion: cancelled", "cancel() returned"])
    }

    @Test("when cancelled after completion, or twice, should change nothing")
    func exactlyOnce() {
        let module = makeSampleModule(session: Self.session())

        let printed = Transcript.recording {
            // sample: executors-exactly-once
            let task = module.perform(request: GetUser(id: 1)) { result in
                print("completion:", (try? result.get())?.statusCode ?? 0)  // "completion: 200", once
            }
            task.cancel()  // already completed (.immediate, a fake session that answers at once): does nothing
            task.cancel()  // nor does a second cancel
            // end-sample
        }

        #expect(printed == ["completion: 200"])
    }

    @Test("when the module is released with a request in flight, should still complete the request")
    func requestOutlivesModule() {
        let session = Self.session(holdingResponses: true)

        let printed = Transcript.recording {
            // sample: executors-outlive
            do {
                let module = DefaultNetworkModule(
                    requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
                    session: session,
                    completionExecutor: .immediate
                )
                module.perform(request: GetUser(id: 1)) { result in
                    print("completion:", (try? result.get())?.statusCode ?? 0)
                }
            }
            // You let the module go; the request it started still completes.
            session.releaseAll()  // the FakeNetworkSession answers: prints "completion: 200"
            // end-sample
        }

        #expect(printed == ["completion: 200"])
    }

    /// Records the name of the thread each hook runs on.
    final class ThreadProbe: NetworkModuleAction {
        let seen = LockedLines()

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            seen.append("prepare \(threadName())")
            completion(.success(urlRequest))
        }

        func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            seen.append("didReceive \(threadName())")
        }

        func retryDecision(
            for error: NetworkError, context: ActionContext, completion: @escaping @Sendable (RetryDecision) -> Void
        ) {
            seen.append("retryDecision \(threadName())")
            completion(.doNotRetry)
        }

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            seen.append("didFinish \(threadName())")
        }
    }

    /// Decodes anything, noting the thread it decodes on.
    struct ThreadNote: Decodable, Sendable {
        static let decodedOn = LockedLines()
        init(from decoder: any Decoder) throws {
            Self.decodedOn.append(threadName())
        }
    }

    /// Runs `body` on a new thread named `name` and waits for it.
    func onThread(named name: String, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Thread.current.threadDictionary["sample.thread"] = name
            body()
            done.signal()
        }
        done.wait()
    }

    @Test("when a request moves between threads, should run hooks on the thread that moves it and completions on the executor")
    func hookThreads() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.path("/v2/ok"), with: .json("{}"))
        session.stub(.path("/v2/fail"), with: .status(500))
        let probe = ThreadProbe()
        let completionQueue = DispatchQueue(label: "completions")
        let key = DispatchSpecificKey<Bool>()
        completionQueue.setSpecific(key: key, value: true)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: session, actions: [probe],
            completionExecutor: .queue(completionQueue))
        struct Path: NetworkRequest { let path: String }
        let delivered = LockedLines()

        onThread(named: "caller") {
            module.performAndDecode(request: Path(path: "ok"), responseType: ThreadNote.self) { _ in
                delivered.append("ok on executor: \(DispatchQueue.getSpecific(key: key) == true)")
            }
            module.perform(request: Path(path: "fail")) { _ in
                delivered.append("fail on executor: \(DispatchQueue.getSpecific(key: key) == true)")
            }
        }
        onThread(named: "session") { session.releaseAll() }
        completionQueue.sync {}

        #expect(
            probe.seen.lines == [
                "prepare caller", "prepare caller",
                "didReceive session", "didFinish session",
                "didReceive session", "retryDecision session", "didFinish session",
            ])
        #expect(ThreadNote.decodedOn.lines == ["session"])
        #expect(delivered.lines == ["ok on executor: true", "fail on executor: true"])

        let cancelled = ThreadProbe()
        let second = makeSampleModule(session: FakeNetworkSession(holdingResponses: true), actions: [cancelled])
        let handle = second.perform(request: Path(path: "ok")) { _ in }
        onThread(named: "canceller") { handle.cancel() }
        #expect(cancelled.seen.lines.last == "didFinish canceller")
    }
}
