import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `stream(request:…)`, callbacks and `for try await`, through the pipeline with fake sessions
/// and the immediate executor: every test completes synchronously or on the test's own task.
@Suite("Streamed responses")
struct StreamTests {
    /// What a streamed request handed its callbacks, in order.
    enum Event: Equatable {
        case chunk(Data)
        case end(Result<Int, NetworkError>)
    }

    /// Records chunks and the end, in the order they come.
    final class Recorder: Sendable {
        let events = LockedState<[Event]>([])
        var onChunk: @Sendable (Data) -> Void { { chunk in self.events.withLock { $0.append(.chunk(chunk)) } } }
        var completion: @Sendable (Result<NetworkResponse, NetworkError>) -> Void {
            { result in
                self.events.withLock { $0.append(.end(result.map { $0.data.count })) }
            }
        }
        var chunks: [Data] {
            events.value.compactMap { if case .chunk(let chunk) = $0 { chunk } else { nil } }
        }
        var ends: [Result<Int, NetworkError>] {
            events.value.compactMap { if case .end(let end) = $0 { end } else { nil } }
        }
    }

    private let body = Data((0..<10).map { UInt8($0) })

    @Test("when a body arrives in chunks, should hand them over in order, then end once with an empty response")
    func chunksInOrderThenEnd() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 3))
        let recorder = Recorder()

        makeModule(session: session).stream(
            request: TestRequest(), onChunk: recorder.onChunk, completion: recorder.completion)

        #expect(recorder.chunks == [body[0..<3], body[3..<6], body[6..<9], body[9..<10]].map { Data($0) })
        #expect(recorder.events.value.last == .end(.success(0)), "the end comes last, with no data")
        #expect(recorder.ends.count == 1)
    }

    /// Records the bytes each request's context says were received, at `didFinish`.
    final class ReceivedBytesAction: NetworkModuleAction {
        let received = LockedState([Int]())
        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            received.withLock { $0.append(context.bytesReceived) }
        }
    }

    @Test("when a stream ends, should count the bytes handed to the consumer as received")
    func streamedBytesCounted() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 3))
        let counter = ReceivedBytesAction()

        makeModule(session: session, actions: [counter]).stream(
            request: TestRequest(), onChunk: { _ in }, completion: { _ in })

        #expect(counter.received.value == [body.count])
    }

    @Test("when a consumer is slower than the buffer, should pause the session and still deliver every chunk in order")
    func slowExecutorPausesFeeder() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 2))
        let executor = HeldExecutor()
        let recorder = Recorder()

        makeModule(session: session, executor: executor).stream(
            request: TestRequest(), bufferSize: 4, onChunk: recorder.onChunk, completion: recorder.completion)
        executor.runAll()

        #expect(recorder.chunks.reduce(Data(), +) == body)
        #expect(recorder.ends == [.success(0)])
    }

    @Test("when cancelled after the first chunk, should complete once with .cancelled and hand over no more chunks")
    func cancelAfterFirstChunk() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200, body: body).inChunks(of: 3))
        let recorder = Recorder()
        let handle = LockedState<(any NetworkCancellable)?>(nil)
        let module = makeModule(session: session)

        handle.withLock {
            $0 = module.stream(
                request: TestRequest(),
                onChunk: { chunk in
                    recorder.onChunk(chunk)
                    handle.withLock { $0 }?.cancel()
                }, completion: recorder.completion)
        }
        _ = session.releaseNext()

        #expect(recorder.events.value == [.chunk(Data(body[0..<3])), .end(.failure(.cancelled))])
    }

    @Test(
        "when cancelled on the executor while later chunks wait on it, should hand over none of them and end .cancelled"
    )
    func cancelOnTheExecutorDropsQueuedChunks() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 1))
        let executor = HeldExecutor()
        let recorder = Recorder()
        let handle = LockedState<(any NetworkCancellable)?>(nil)
        let module = makeModule(session: session, executor: executor)
        handle.withLock {
            $0 = module.stream(
                request: TestRequest(), bufferSize: 1,
                onChunk: { chunk in
                    recorder.onChunk(chunk)
                    handle.withLock { $0 }?.cancel()
                }, completion: recorder.completion)
        }

        executor.runAll()

        #expect(recorder.events.value == [.chunk(Data(body[0..<1])), .end(.failure(.cancelled))])
    }

    @Test("when the status is an error, should stream nothing and fail with the status and its body")
    func errorStatusIsNotStreamed() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("no such log", status: 404).inChunks(of: 2))
        let recorder = Recorder()

        makeModule(session: session).stream(
            request: TestRequest(), onChunk: recorder.onChunk, completion: recorder.completion)

        #expect(recorder.chunks.isEmpty)
        guard case .failure(let error)? = recorder.ends.first else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.statusCode == 404)
        #expect(error.httpErrorResponse?.body == Data("no such log".utf8))
    }

    @Test("when an attempt fails before any chunk, should retry as for any request")
    func retryBeforeFirstChunk() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200, body: body).inChunks(of: 5))
        let recorder = Recorder()

        makeModule(session: session, actions: [ProbeAction(retry: [.retry])]).stream(
            request: TestRequest(), onChunk: recorder.onChunk, completion: recorder.completion)

        #expect(session.recordedRequests.count == 2)
        #expect(recorder.chunks == [Data(body[0..<5]), Data(body[5..<10])])
        #expect(recorder.ends == [.success(0)])
    }

    @Test("when an attempt fails after a chunk, should deliver the failure without asking the actions to retry")
    func noRetryAfterFirstChunk() {
        let session = BrokenStreamSession(chunk: Data([1, 2]), error: URLError(.networkConnectionLost))
        let probe = ProbeAction(retry: [.retry])
        let recorder = Recorder()

        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, actions: [probe],
            completionExecutor: .immediate
        ).stream(request: TestRequest(), onChunk: recorder.onChunk, completion: recorder.completion)

        #expect(session.attempts.value == 1)
        #expect(probe.log.value.retryAsked.isEmpty)
        #expect(recorder.events.value.first == .chunk(Data([1, 2])))
        #expect(recorder.ends.count == 1)
        if case .failure(.networkConnectionLost)? = recorder.ends.first {} else { Issue.record("\(recorder.ends)") }
    }

    @Test("when iterated, should yield the chunks in order and finish, pausing the session at the buffer size")
    func asyncSequenceInOrder() async throws {
        let session = FakeNetworkSession()
        let long = Data((0..<100).map { UInt8($0) })
        session.stub(.any, with: .status(200, body: long).inChunks(of: 10))
        var received: [Data] = []

        for try await chunk in makeModule(session: session).stream(request: TestRequest(), bufferSize: 25) {
            received.append(chunk)
        }

        #expect(received.count == 10)
        #expect(received.reduce(Data(), +) == long)
    }

    @Test("when next() is called on the stream itself, should start the request, hand over the chunks, then end once")
    func streamIsItsOwnIterator() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 4))
        var stream = makeModule(session: session).stream(request: TestRequest())
        var received: [Data] = []

        while let chunk = try await stream.next() { received.append(chunk) }
        let after = try await stream.next()

        #expect(received.map(\.count) == [4, 4, 2])
        #expect(received.reduce(Data(), +) == body)
        #expect(after == nil)
        #expect(session.recordedRequests.count == 1)
    }

    @Test("when iterated, should give the response head before the body")
    func asyncResponseHead() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, headers: ["Content-Type": "text/event-stream"], body: body))
        let stream = makeModule(session: session).stream(request: TestRequest())

        let head = try await stream.response

        #expect(head.statusCode == 200)
        #expect(head.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
    }

    @Test("when the iterating task is cancelled after the first chunk, should throw .cancelled once, then end")
    func asyncCancelAfterFirstChunk() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 3))
        let stream = makeModule(session: session).stream(request: TestRequest(), bufferSize: 3)

        let outcome = await Task {
            var iterator = stream.makeAsyncIterator()
            var chunks = 0
            do {
                while try await iterator.next() != nil {
                    chunks += 1
                    withUnsafeCurrentTask { $0?.cancel() }
                }
                return (chunks, NetworkError?.none, false)
            } catch {
                let after = try? await iterator.next()
                return (chunks, error as? NetworkError, after == nil)
            }
        }.value

        #expect(outcome.0 == 1)
        #expect(outcome.1 == .cancelled)
        #expect(outcome.2, "nothing after the end")
    }

    @Test("when the iterating task is cancelled while chunks and the end wait, should throw .cancelled next")
    func asyncCancelDropsWaitingChunks() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 3))
        let executor = HeldExecutor()
        let stream = makeModule(session: session, executor: executor).stream(request: TestRequest(), bufferSize: 100)

        let outcome = await Task {
            var iterator = stream.makeAsyncIterator()
            var chunks = 0
            do {
                while try await iterator.next() != nil {
                    chunks += 1
                    withUnsafeCurrentTask { $0?.cancel() }
                    executor.runAll()  // the request's end arrives, behind three waiting chunks
                }
                return (chunks, NetworkError?.none)
            } catch {
                return (chunks, error as? NetworkError)
            }
        }.value

        #expect(outcome.0 == 1, "no chunk after the cancel")
        #expect(outcome.1 == .cancelled)
    }

    @Test("when the iterator is released, should cancel the request")
    func releasingIteratorCancels() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200, body: body))
        let stream = makeModule(session: session).stream(request: TestRequest())

        do {
            _ = stream.makeAsyncIterator()
        }

        #expect(session.cancelledCount == 1)
    }

    /// What one reader of a stream got: the body it read to the end, or the error it threw.
    enum ReaderOutcome: Sendable {
        case body(Data)
        case failed(NetworkError)
        case stillWaiting
    }

    @Test(
        "when two tasks iterate copies of one stream, should answer the second at once with an error, and the first to the end"
    )
    func secondConcurrentReader() async {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200, body: body).inChunks(of: 4))
        let stream = makeModule(session: session).stream(request: TestRequest())
        // Each reader reports how it ended here. The test waits for those events; the watchdog
        // only keeps the defect (a reader waiting for ever) from hanging the run, so it is far
        // longer than any scheduling delay: at 10 s it fired on a loaded two-core machine before
        // either task had run.
        let (outcomes, report) = AsyncStream.makeStream(of: ReaderOutcome.self)
        DispatchQueue.global().asyncAfter(deadline: .now() + 300) { report.yield(.stillWaiting) }
        defer { report.finish() }
        for _ in 0..<2 {
            Task {
                var copy = stream
                var read = Data()
                do {
                    while let chunk = try await copy.next() { read += chunk }
                    report.yield(.body(read))
                } catch {
                    report.yield(.failed(error as? NetworkError ?? .invalidResponse))
                }
            }
        }
        var ends = outcomes.makeAsyncIterator()

        // Nothing has arrived: one reader waits for the first chunk, the other is answered.
        let second = await ends.next()
        _ = session.releaseNext()
        let first = await ends.next()

        guard case .failed(let error) = second, case .underlying = error else {
            Issue.record("the second reader: \(String(describing: second)), not an error at once")
            return
        }
        #expect(error.description.lowercased().contains("another task"), "\(error.description)")
        guard case .body(let read) = first else {
            Issue.record("the first reader: \(String(describing: first)), not the body")
            return
        }
        #expect(read == body)
    }

    @Test("when the stream fails, should throw the NetworkError, with the error status")
    func asyncErrorStatus() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("busy", status: 503))

        await #expect(throws: NetworkError.self) {
            for try await _ in makeModule(session: session).stream(request: TestRequest()) {}
        }
    }
}

/// An executor that holds work until the test runs it, as a busy main queue would.
private final class HeldExecutor: CompletionExecutor {
    private let work = LockedState<[@Sendable () -> Void]>([])

    func execute(_ work: @escaping @Sendable () -> Void) {
        self.work.withLock { $0.append(work) }
    }

    /// Runs held work, and the work it adds, until none is left.
    func runAll() {
        while let next = work.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { next() }
    }
}

/// A session whose every transfer hands its sink one chunk of a 200, then fails with `error`.
private final class BrokenStreamSession: TransferringSession {
    let chunk: Data
    let error: URLError
    let attempts = LockedState(0)

    init(chunk: Data, error: URLError) {
        self.chunk = chunk
        self.error = error
    }

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        transferTask(with: request, transfer: TransferOptions(), completionHandler: completionHandler)
    }

    func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        BrokenTask { [self] in
            attempts.withLock { $0 += 1 }
            if case .chunks(let sink) = transfer.destination, let url = request.url,
                let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)
            {
                _ = sink.receive(chunk, of: response, onRoom: {})
            }
            completionHandler(nil, nil, error)
        }
    }
}

private struct BrokenTask: NetworkSessionTask {
    let run: @Sendable () -> Void
    func resume() { run() }
    func cancel() {}
}
