import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The variants of `NetworkModule` on a module of the user's own: built on its two `perform`
/// methods, since it has no pipeline. (On the pipeline they are tested with the module:
/// `StreamTests`, `DownloadTests`, `ProgressTests`, `LifecycleGuaranteesTests`.)
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
