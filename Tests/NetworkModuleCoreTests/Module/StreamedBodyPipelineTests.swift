import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stream bodies through the whole pipeline: retries, the actions' context, and the removal of
/// a streamed form's temporary file however the request ends.
@Suite("Pipeline: streamed bodies")
struct StreamedBodyPipelineTests {
    /// Records the bytes sent that the actions see when the request finishes.
    final class BytesSentProbe: NetworkModuleAction {
        let bytesSent = LockedState<[Int]>([])

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            bytesSent.withLock { $0.append(context.bytesSent) }
        }
    }

    /// A form whose file makes it larger than its threshold: streamed from a temporary file.
    static func largeForm() throws -> (form: MultipartFormData, file: URL) {
        let file = try StreamedBodyTests.temporaryFile(Data(repeating: 1, count: 20_000))
        var form = MultipartFormData(encodingMemoryThreshold: 1000)
        form.addFile(name: "blob", fileURL: file)
        return (form, file)
    }

    /// The temporary file a built request's body stream reads.
    static func temporaryFile(of request: URLRequest?) throws -> URL {
        try #require(request?.httpBodyStream.flatMap(BodyStreams.file(of:)))
    }

    @Test("when a stream request is retried, should send each attempt a fresh, unread stream")
    func freshStreamPerAttempt() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let calls = LockedState(0)
        let request = StreamedBodyTests.Upload(
            body: .stream(length: 3) {
                calls.withLock { $0 += 1 }
                return InputStream(data: Data("abc".utf8))
            })
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [ProbeAction(retry: [.retry])])
            .perform(request: request, completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        let sent = session.recordedRequests
        #expect(calls.withLock { $0 } == 2)
        #expect(sent.count == 2)
        #expect(sent[0].httpBodyStream !== sent[1].httpBodyStream)
        #expect(sent.allSatisfy { StreamedBodyTests.readAll($0.httpBodyStream) == Data("abc".utf8) })
    }

    @Test(
        "when a caller's URLRequest with a stream the builder did not make is retried, should fail rather than resend it"
    )
    func callersStreamNotResent() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        var urlRequest = URLRequest(url: apiBaseURL)
        urlRequest.httpMethod = "POST"
        urlRequest.httpBodyStream = InputStream(data: Data("abc".utf8))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [ProbeAction(retry: [.retry])])
            .perform(urlRequest: urlRequest, completion: results.completion)

        #expect(session.recordedRequests.count == 1)
        guard case .invalidRequest(.bodyEncodingFailed(let reason))? = results.singleError else {
            Issue.record("expected bodyEncodingFailed, got \(String(describing: results.single))")
            return
        }
        #expect(reason.contains("cannot be sent again"))
    }

    @Test("when a stream of known length is sent, should count its length in bytesSent, per attempt")
    func bytesSentCountsStreams() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let probe = BytesSentProbe()

        makeModule(session: session, actions: [ProbeAction(retry: [.retry]), probe])
            .perform(request: StreamedBodyTests.Upload(body: .stream(length: 1000) { InputStream(data: Data()) })) {
                _ in
            }

        #expect(probe.bytesSent.withLock { $0 } == [2000])
    }

    @Test("when a stream declares the largest length and is sent twice, should count bytesSent clamped, not trap")
    func bytesSentOfHugeStreamsClamps() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let probe = BytesSentProbe()

        makeModule(session: session, actions: [ProbeAction(retry: [.retry]), probe])
            .perform(request: StreamedBodyTests.Upload(body: .stream(length: .max) { InputStream(data: Data()) })) {
                _ in
            }

        #expect(probe.bytesSent.withLock { $0 } == [Int.max])
    }

    @Test(
        "when a request with a streamed form ends, should remove its temporary file before the completion runs",
        arguments: [200, 500])
    func temporaryFileRemovedAtEnd(status: Int) throws {
        let (form, file) = try Self.largeForm()
        defer { try? FileManager.default.removeItem(at: file) }
        let session = FakeNetworkSession()
        let fileAtCompletion = LockedState<Bool?>(nil)
        let sent = LockedState<URL?>(nil)
        session.stub(.any) { request in
            sent.withLock { $0 = request.httpBodyStream.flatMap(BodyStreams.file(of:)) }
            return .status(status)
        }

        makeModule(session: session).perform(request: StreamedBodyTests.Upload(body: .multipart(form))) { _ in
            let path = sent.withLock { $0 }?.path ?? ""
            fileAtCompletion.withLock { $0 = FileManager.default.fileExists(atPath: path) }
        }

        let temporary = try #require(sent.withLock { $0 })
        #expect(temporary != file)
        #expect(fileAtCompletion.withLock { $0 } == false)
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
    }

    @Test("when a request with a streamed form is cancelled in flight, should remove its temporary file")
    func temporaryFileRemovedOnCancel() throws {
        let (form, file) = try Self.largeForm()
        defer { try? FileManager.default.removeItem(at: file) }
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let results = ResultCollector<NetworkResponse>()
        let handle = makeModule(session: session)
            .perform(request: StreamedBodyTests.Upload(body: .multipart(form)), completion: results.completion)
        let temporary = try Self.temporaryFile(of: session.heldRequests.first)
        #expect(FileManager.default.fileExists(atPath: temporary.path))

        handle.cancel()

        #expect(results.singleError == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
    }

    @Test("when a request with a streamed form is retried, should encode a new file per attempt and keep none")
    func temporaryFilePerAttempt() throws {
        let (form, file) = try Self.largeForm()
        defer { try? FileManager.default.removeItem(at: file) }
        let session = FakeNetworkSession()
        let files = LockedState<[URL]>([])
        let attempt = LockedState(0)
        session.stub(.any) { request in
            let url = request.httpBodyStream.flatMap(BodyStreams.file(of:))
            files.withLock { $0.append(url ?? URL(fileURLWithPath: "/")) }
            return attempt.withLock {
                $0 += 1
                return $0
            } == 1 ? .status(503) : .status(200)
        }
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session, actions: [ProbeAction(retry: [.retry])])
            .perform(request: StreamedBodyTests.Upload(body: .multipart(form)), completion: results.completion)

        let used = files.withLock { $0 }
        #expect(results.singleValue?.statusCode == 200)
        #expect(used.count == 2)
        #expect(Set(used).count == 2)
        #expect(used.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
    }

    @Test("when a request with a streamed form fails in an action before it is sent, should remove its temporary file")
    func temporaryFileRemovedOnActionFailure() throws {
        struct Refused: Error {}
        let (form, file) = try Self.largeForm()
        defer { try? FileManager.default.removeItem(at: file) }
        let session = FakeNetworkSession()
        let probe = ProbeAction(prepare: .hold)
        let results = ResultCollector<NetworkResponse>()
        makeModule(session: session, actions: [probe])
            .perform(request: StreamedBodyTests.Upload(body: .multipart(form)), completion: results.completion)
        let held = probe.log.withLock { $0 }
        let temporary = try Self.temporaryFile(of: held.heldRequests.first)
        #expect(FileManager.default.fileExists(atPath: temporary.path))

        held.heldCompletions.first?(.failure(Refused()))

        #expect(results.singleError != nil)
        #expect(session.recordedRequests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
    }
}
