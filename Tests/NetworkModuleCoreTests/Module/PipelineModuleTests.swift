import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The variants of `NetworkModule` on a module of the user's own: run on the pipeline with its
/// two `perform` methods as the session, its answer and its handle as they are. (With the
/// framework's sessions they are tested with the module: `StreamTests`, `DownloadTests`,
/// `ProgressTests`, `LifecycleGuaranteesTests`.)
@Suite("Variants on a hand-written module")
struct PipelineModuleTests {
    private let body = Data("0123456789".utf8)

    private func module(answering stub: StubbedResponse) -> any NetworkModule {
        let session = FakeNetworkSession()
        session.stub(.any, with: stub)
        return HandWrittenModule(inner: makeModule(session: session))
    }

    @Test("when decoding on a hand-written module, should decode the response its perform delivers")
    func decodes() {
        let module = module(answering: .json(#"{"id": 5, "name": "Barbara"}"#))
        let users = ResultCollector<User>()
        let broken = ResultCollector<[String]>()

        module.performAndDecode(request: TestRequest(), responseType: User.self, completion: users.completion)
        module.performAndDecode(
            urlRequest: URLRequest(url: apiBaseURL), responseType: [String].self, completion: broken.completion)

        #expect(users.singleValue == User(id: 5, name: "Barbara"))
        guard case .decodingFailed? = broken.singleError else {
            Issue.record("expected decodingFailed, got \(String(describing: broken.single))")
            return
        }
    }

    @Test("when progress is asked of a hand-written module, should report the body once, complete, before the result")
    func progressOnce() {
        let module = module(answering: .status(200, body: body))
        let events = LockedState([String]())

        module.perform(
            request: TestRequest(),
            progress: { report in
                events.withLock {
                    $0.append(
                        "\(report.isUpload ? "upload" : "download") \(report.completedBytes)/\(report.expectedBytes ?? -1)"
                    )
                }
            },
            completion: { result in events.withLock { $0.append("done \((try? result.get().data.count) ?? -1)") } })

        #expect(events.value == ["download 10/10", "done 10"])
    }

    @Test("when a hand-written module downloads, should write the body to the destination, and leave none on failure")
    func downloadWritesBody() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("HandWritten-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = DownloadDestination(folder.appendingPathComponent("body.bin"), createsFolders: true)
        let downloads = ResultCollector<DownloadResponse>()
        let failures = ResultCollector<DownloadResponse>()

        module(answering: .status(200, body: body))
            .download(request: TestRequest(), to: destination, completion: downloads.completion)
        try FileManager.default.removeItem(at: destination.url)
        module(answering: .status(500, body: body))
            .download(request: TestRequest(), to: destination, completion: failures.completion)

        #expect(downloads.singleValue?.fileURL == destination.url)
        #expect(failures.singleError?.statusCode == 500)
        #expect(!FileManager.default.fileExists(atPath: destination.url.path))
    }

    @Test("when a hand-written module streams, should hand the body over as one chunk, then the response without it")
    func streamsOneChunk() async throws {
        let chunks = LockedState([Data]())
        let responses = ResultCollector<NetworkResponse>()

        module(answering: .status(200, body: body))
            .stream(
                request: TestRequest(), onChunk: { chunk in chunks.withLock { $0.append(chunk) } },
                completion: responses.completion)
        var iterated: [Data] = []
        for try await chunk in module(answering: .status(200, body: body)).stream(request: TestRequest()) {
            iterated.append(chunk)
        }

        #expect(chunks.value == [body])
        #expect(responses.singleValue?.data == Data())
        #expect(responses.singleValue?.statusCode == 200)
        #expect(iterated == [body])
    }

    @Test("when a hand-written module's stream fails, should deliver the failure and no chunk")
    func streamFailure() {
        let chunks = LockedState([Data]())
        let responses = ResultCollector<NetworkResponse>()

        module(answering: .status(404, body: body))
            .stream(
                request: TestRequest(), onChunk: { chunk in chunks.withLock { $0.append(chunk) } },
                completion: responses.completion)

        #expect(chunks.value.isEmpty)
        #expect(responses.singleError?.statusCode == 404)
    }

    @Test("when a hand-written module answers, should get the call as made and deliver its response as it is")
    func answerAsItIs() throws {
        let module = HeldModule()
        let sent = URLRequest(url: URL(string: "https://elsewhere.example/report")!)
        let answer = NetworkResponse(
            data: Data(#"{"id": 5, "name": "Barbara"}"#.utf8),
            httpResponse: try #require(
                HTTPURLResponse(url: sent.url!, statusCode: 404, httpVersion: nil, headerFields: nil)),
            request: sent, duration: 4.5)
        var invalid = URLRequest(url: apiBaseURL)
        invalid.setValue("value of a bad name", forHTTPHeaderField: "bad name")
        let progressed = ResultCollector<NetworkResponse>()
        let users = ResultCollector<User>()

        module.perform(request: TestRequest(path: "/any"), progress: { _ in }, completion: progressed.completion)
        module.performAndDecode(urlRequest: invalid, responseType: User.self, completion: users.completion)
        module.answer(.success(answer))
        module.answer(.success(answer))

        #expect(module.received.value == ["request /any", "urlRequest value of a bad name"])
        #expect(progressed.singleValue?.request == sent)
        #expect(progressed.singleValue?.duration == 4.5)
        #expect(progressed.singleValue?.statusCode == 404)
        #expect(users.singleValue == User(id: 5, name: "Barbara"))
    }

    @Test("when a call on a hand-written module is cancelled, should deliver what the module delivers, when it does")
    func cancelThroughTheModule() {
        let module = HeldModule()
        let progressed = ResultCollector<NetworkResponse>()
        let streamed = ResultCollector<NetworkResponse>()
        let decoded = ResultCollector<User>()
        let handles = [
            module.perform(request: TestRequest(), progress: { _ in }, completion: progressed.completion),
            module.stream(request: TestRequest(), onChunk: { _ in }, completion: streamed.completion),
            module.performAndDecode(request: TestRequest(), responseType: User.self, completion: decoded.completion),
        ]

        for handle in handles { handle.cancel() }
        let beforeAnswers = progressed.count + streamed.count + decoded.count
        for _ in handles { module.answer(.failure(.cancelled)) }

        #expect(module.cancelCount.value == 3)
        #expect(beforeAnswers == 0)
        #expect(progressed.singleError == .cancelled)
        #expect(streamed.singleError == .cancelled)
        #expect(decoded.singleError == .cancelled)
    }

    @Test(
        "when a hand-written module answers after ignoring a cancel, should deliver the answer, a stream ending cancelled"
    )
    func answerAfterIgnoredCancel() throws {
        let module = HeldModule()
        let answer = NetworkResponse(
            data: body,
            httpResponse: try #require(
                HTTPURLResponse(url: apiBaseURL, statusCode: 200, httpVersion: nil, headerFields: nil)),
            request: URLRequest(url: apiBaseURL))
        let progressed = ResultCollector<NetworkResponse>()
        let chunks = LockedState([Data]())
        let streamed = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest(), progress: { _ in }, completion: progressed.completion).cancel()
        module.stream(
            request: TestRequest(), onChunk: { chunk in chunks.withLock { $0.append(chunk) } },
            completion: streamed.completion
        ).cancel()
        module.answer(.success(answer))
        module.answer(.success(answer))

        #expect(progressed.singleValue?.data == body)
        #expect(chunks.value.isEmpty)
        #expect(streamed.singleError == .cancelled)
    }
}

/// A hand-written module that holds each call until the test answers it, in order, and records
/// what it was asked: as a user's mock of a slower module would.
final class HeldModule: NetworkModule {
    private struct Handle: NetworkCancellable {
        let cancelCount: LockedState<Int>
        func cancel() { cancelCount.withLock { $0 += 1 } }
    }

    private let held = LockedState([@Sendable (Result<NetworkResponse, NetworkError>) -> Void]())
    let received = LockedState([String]())
    let cancelCount = LockedState(0)

    func perform(
        request: any NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        hold("request \(request.path)", completion)
    }

    func perform(
        urlRequest: URLRequest, completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        hold("urlRequest \(urlRequest.allHTTPHeaderFields?.values.joined() ?? "")", completion)
    }

    /// Answers the oldest call held, on the caller's thread.
    func answer(_ result: Result<NetworkResponse, NetworkError>) {
        held.withLock { $0.isEmpty ? nil : $0.removeFirst() }?(result)
    }

    private func hold(
        _ call: String, _ completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        received.withLock { $0.append(call) }
        held.withLock { $0.append(completion) }
        return Handle(cancelCount: cancelCount)
    }
}

/// A hand-written module with only the two required methods, as a user's mock would be.
struct HandWrittenModule: NetworkModule {
    let inner: DefaultNetworkModule

    func perform(
        request: any NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        inner.perform(request: request, completion: completion)
    }

    func perform(
        urlRequest: URLRequest, completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        inner.perform(urlRequest: urlRequest, completion: completion)
    }
}
