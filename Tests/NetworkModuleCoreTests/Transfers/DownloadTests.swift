import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `DefaultNetworkModule.download`: where the file goes, what is left behind, and how a retry
/// resumes; with fakes and the immediate executor. `Integration: downloads` covers the transport.
@Suite("Downloads")
struct DownloadTests {
    struct GetFile: NetworkRequest {
        var path = "/files/report.pdf"
        var retryPolicy: RetryPolicy?
    }

    struct GetRange: NetworkRequest {
        var path = "/files/report.pdf"
        var headers: HTTPHeaders { ["Range": "bytes=100-199"] }
        var retryPolicy: RetryPolicy?
    }

    private let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// A session whose first attempt writes ``body`` up to `cut` and loses the connection after a
    /// strong `ETag`, and whose next attempts write the rest as the `206` of a resumed request.
    private func cutThenResumed(at cut: Int) -> ScriptedTransferSession {
        let body = body
        return ScriptedTransferSession { attempt, request, transfer in
            if attempt == 1 {
                try? writeBody(body.prefix(cut), for: transfer)
                return (nil, httpResponse(request, headers: ["ETag": "\"v1\""]), URLError(.networkConnectionLost))
            }
            try? writeBody(body.suffix(from: cut), for: transfer, keeping: Int64(cut))
            let range = "bytes \(cut)-\(body.count - 1)/\(body.count)"
            return (nil, httpResponse(request, status: 206, headers: ["Content-Range": range, "ETag": "\"v1\""]), nil)
        }
    }

    @Test("when a download succeeds, should move its body to the destination and leave nothing else")
    func success() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(.path("/v2/files/report.pdf"), with: .status(200, body: body))
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent("report.pdf")

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(destination), completion: results.completion)

        #expect(results.singleValue?.fileURL == destination)
        #expect(results.singleValue?.response.data.isEmpty == true)
        #expect(try Data(contentsOf: destination) == body)
        #expect(fileNames(in: folder) == ["report.pdf"])
    }

    @Test(
        "when the destination's name is as long as the file system allows, should still download to it",
        arguments: [String(repeating: "a", count: 255), String(repeating: "é", count: 127) + "z"])
    func longestDestinationName(name: String) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(.path("/v2/files/report.pdf"), with: .status(200, body: body))
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent(name)

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(destination), completion: results.completion)

        #expect(results.singleValue?.fileURL == destination, "\(results.results)")
        #expect(try Data(contentsOf: destination) == body)
        #expect(fileNames(in: folder) == [name])
    }

    @Test("when a request with no Range gets a 206, should fail blaming the server and leave no file")
    func partialContentWithoutRangeFails() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(
            .path("/v2/files/report.pdf"),
            with: .status(206, headers: ["Content-Range": "bytes 0-9/10000"], body: body.prefix(10)))
        let results = ResultCollector<DownloadResponse>()

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(folder.appendingPathComponent("report.pdf")),
            completion: results.completion)

        #expect(results.singleError == .transportError(.cannotParseResponse))
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test("when the caller asks for a range and the server answers it exactly, should download that range")
    func callersRangeAnswered() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(
            .path("/v2/files/report.pdf"),
            with: .status(206, headers: ["Content-Range": "bytes 100-199/10000"], body: body[100..<200]))
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent("report.pdf")

        makeTransferModule(session: session).download(
            request: GetRange(), to: DownloadDestination(destination), completion: results.completion)

        #expect(results.singleValue?.statusCode == 206, "\(results.results)")
        #expect(try Data(contentsOf: destination) == body[100..<200])
    }

    @Test("when a download with the caller's range is retried, should send the caller's range again, not a resume")
    func callersRangeKeptOnRetry() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = body
        let session = ScriptedTransferSession { attempt, request, transfer in
            if attempt == 1 {
                try? writeBody(body[100..<150], for: transfer)
                let headers = ["ETag": "\"v1\"", "Content-Range": "bytes 100-199/10000"]
                return (nil, httpResponse(request, status: 206, headers: headers), URLError(.networkConnectionLost))
            }
            try? writeBody(body[100..<200], for: transfer)
            return (nil, httpResponse(request, status: 206, headers: ["Content-Range": "bytes 100-199/10000"]), nil)
        }
        let scheduler = ManualDelayScheduler()
        let module = makeTransferModule(
            session: session, actions: [BuiltInAction.retry(RetryPolicy(jitter: 0))], scheduler: scheduler)
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent("report.pdf")

        module.download(request: GetRange(), to: DownloadDestination(destination), completion: results.completion)
        scheduler.runAll()

        let calls = session.calls
        try #require(calls.count == 2)
        #expect(calls.map { $0.request.value(forHTTPHeaderField: "Range") } == ["bytes=100-199", "bytes=100-199"])
        #expect(calls[1].request.value(forHTTPHeaderField: "If-Range") == nil)
        #expect(try Data(contentsOf: destination) == body[100..<200])
    }

    @Test("when the destination's folders are missing, should create them")
    func createsFolders() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body))
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent("a/b/report.pdf")

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(destination), completion: results.completion)

        #expect(try Data(contentsOf: destination) == body)
    }

    @Test("when the destination's folder is missing and may not be created, should fail before sending")
    func missingFolderFails() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = ScriptedTransferSession { _, request, _ in (Data(), httpResponse(request), nil) }
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent("missing/report.pdf")

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(destination, createsFolders: false),
            completion: results.completion)

        guard case .transportError(let failure)? = results.singleError else {
            Issue.record("expected .transportError, got \(String(describing: results.single))")
            return
        }
        #expect(failure.code == .cannotCreateFile)
        #expect(failure.message?.contains("missing") == true)
        #expect(session.calls.isEmpty)
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test("when a file is at the destination and may not be replaced, should fail before sending and keep it")
    func existingFileKept() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("report.pdf")
        try Data("mine".utf8).write(to: destination)
        let session = ScriptedTransferSession { _, request, _ in (Data(), httpResponse(request), nil) }
        let results = ResultCollector<DownloadResponse>()

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(destination, replacesExistingFile: false),
            completion: results.completion)

        #expect(results.singleError?.urlErrorCode == .cannotCreateFile)
        #expect(session.calls.isEmpty)
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
        #expect(fileNames(in: folder) == ["report.pdf"])
    }

    @Test("when a file is at the destination, should replace it by default, once the download succeeded")
    func existingFileReplaced() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("report.pdf")
        try Data("old".utf8).write(to: destination)
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body))
        let results = ResultCollector<DownloadResponse>()

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(destination), completion: results.completion)

        #expect(results.singleValue != nil)
        #expect(try Data(contentsOf: destination) == body)
    }

    @Test(
        "when cancelled after the file was placed but before the executor runs the completion, should deliver cancelled and leave no file"
    )
    func cancelWhileDeliveryQueued() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("report.pdf")
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body))
        let executor = RecordingExecutor(holdingDeliveries: true)
        let results = ResultCollector<DownloadResponse>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, completionExecutor: executor)
        let handle = module.download(
            request: GetFile(), to: DownloadDestination(destination), completion: results.completion)
        #expect(FileManager.default.fileExists(atPath: destination.path), "placed before the delivery")

        handle.cancel()
        let delivered = await executor.deliver()

        #expect(delivered)
        #expect(results.singleError == .cancelled, "\(results.results)")
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test("when the destination is not a file URL, should fail before sending")
    func notAFileURL() throws {
        let session = ScriptedTransferSession { _, request, _ in (Data(), httpResponse(request), nil) }
        let results = ResultCollector<DownloadResponse>()

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(URL(string: "https://example.com/report.pdf")!),
            completion: results.completion)

        #expect(results.singleError?.urlErrorCode == .cannotCreateFile)
        #expect(session.calls.isEmpty)
    }

    @Test("when the server answers 404, should fail with its body and leave no file")
    func errorStatus() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("no such report", status: 404))
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent("report.pdf")

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(destination), completion: results.completion)

        guard case .notFound(let response)? = results.singleError else {
            Issue.record("expected .notFound, got \(String(describing: results.single))")
            return
        }
        #expect(response.body == Data("no such report".utf8))
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test(
        "when cancelled and the session writes the file afterwards, should complete once as cancelled and leave no file"
    )
    func cancelLeavesNothing() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = body
        let session = ScriptedTransferSession(holds: true) { _, request, transfer in
            try? writeBody(body, for: transfer)
            return (nil, httpResponse(request), nil)
        }
        let results = ResultCollector<DownloadResponse>()

        let task = makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(folder.appendingPathComponent("report.pdf")),
            completion: results.completion)
        task.cancel()
        session.releaseAll()

        #expect(results.count == 1)
        #expect(results.singleError == .cancelled)
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test("when an attempt is cut short after a strong ETag, should resume the retry with Range and If-Range")
    func resumesWithRange() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let half = body.count / 2
        let session = cutThenResumed(at: half)
        let scheduler = ManualDelayScheduler()
        let module = makeTransferModule(
            session: session, actions: [BuiltInAction.retry(RetryPolicy(jitter: 0))], scheduler: scheduler)
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent("report.pdf")

        module.download(request: GetFile(), to: DownloadDestination(destination), completion: results.completion)
        scheduler.runAll()

        let calls = session.calls
        try #require(calls.count == 2)
        #expect(calls[0].request.value(forHTTPHeaderField: "Range") == nil)
        #expect(calls[1].request.value(forHTTPHeaderField: "Range") == "bytes=\(half)-")
        #expect(calls[1].request.value(forHTTPHeaderField: "If-Range") == "\"v1\"")
        guard case .file(let partial, let resumingAt) = calls[1].destination else {
            Issue.record("expected a file destination")
            return
        }
        #expect(resumingAt == Int64(half))
        #expect(partial.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path)
        #expect(results.singleValue?.statusCode == 206)
        #expect(try Data(contentsOf: destination) == body)
        #expect(fileNames(in: folder) == ["report.pdf"])
    }

    @Test(
        "when a cut attempt had no strong validator, should start the retry over",
        arguments: [[:], ["ETag": "W/\"weak\""]])
    func restartsWithoutValidator(headers: [String: String]) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = body
        let session = ScriptedTransferSession { attempt, request, transfer in
            if attempt == 1 {
                try? writeBody(body.prefix(100), for: transfer)
                return (nil, httpResponse(request, headers: headers), URLError(.networkConnectionLost))
            }
            try? writeBody(body, for: transfer)
            return (nil, httpResponse(request), nil)
        }
        let scheduler = ManualDelayScheduler()
        let module = makeTransferModule(
            session: session, actions: [BuiltInAction.retry(RetryPolicy(jitter: 0))], scheduler: scheduler)
        let results = ResultCollector<DownloadResponse>()
        let destination = folder.appendingPathComponent("report.pdf")

        module.download(request: GetFile(), to: DownloadDestination(destination), completion: results.completion)
        scheduler.runAll()

        let calls = session.calls
        try #require(calls.count == 2)
        #expect(calls[1].request.value(forHTTPHeaderField: "Range") == nil)
        guard case .file(_, let resumingAt) = calls[1].destination else {
            Issue.record("expected a file destination")
            return
        }
        #expect(resumingAt == 0)
        #expect(try Data(contentsOf: destination) == body)
    }

    @Test("when every attempt fails, should remove what they wrote")
    func failureLeavesNothing() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = body
        let session = ScriptedTransferSession { _, request, transfer in
            try? writeBody(body.prefix(100), for: transfer)
            return (nil, httpResponse(request, headers: ["ETag": "\"v1\""]), URLError(.networkConnectionLost))
        }
        let results = ResultCollector<DownloadResponse>()

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(folder.appendingPathComponent("report.pdf")),
            completion: results.completion)

        #expect(results.singleError?.urlErrorCode == .networkConnectionLost)
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test("when a 206 does not continue the bytes on disk, should fail with cannotParseResponse")
    func mismatchedRangeFails() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(206, headers: ["Content-Range": "bytes 50-59/60"], body: Data(count: 10)))
        let results = ResultCollector<DownloadResponse>()

        makeTransferModule(session: session).download(
            request: GetFile(), to: DownloadDestination(folder.appendingPathComponent("report.pdf")),
            completion: results.completion)

        #expect(results.singleError?.urlErrorCode == .cannotParseResponse)
        #expect(fileNames(in: folder).isEmpty)
    }

    struct GetFromStart: NetworkRequest {
        var path = "/files/report.pdf"
        var headers: HTTPHeaders { ["Range": "bytes=0-"] }
    }

    @Test("when a 206 declares a range longer than a 64-bit count, should fail with cannotParseResponse, not trap")
    func rangeLongerThanAnyFileFails() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(
            .any,
            with: .status(206, headers: ["Content-Range": "bytes 0-9223372036854775807/*"], body: Data("abc".utf8)))
        let results = ResultCollector<DownloadResponse>()

        makeTransferModule(session: session).download(
            request: GetFromStart(), to: DownloadDestination(folder.appendingPathComponent("report.pdf")),
            completion: results.completion)

        #expect(results.singleError?.urlErrorCode == .cannotParseResponse, "\(results.results)")
        #expect(fileNames(in: folder).isEmpty)
    }

    /// Records the bytes each request's context says were received, at `didFinish`.
    final class ReceivedBytesAction: NetworkModuleAction {
        let received = LockedState([Int]())
        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            received.withLock { $0.append(context.bytesReceived) }
        }
    }

    @Test("when a resumed download finishes, should count the bytes both attempts wrote to the file as received")
    func bytesReceivedCountsFile() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = cutThenResumed(at: 4_000)
        let scheduler = ManualDelayScheduler()
        let counter = ReceivedBytesAction()
        let module = makeTransferModule(
            session: session, actions: [BuiltInAction.retry(RetryPolicy(jitter: 0)), counter], scheduler: scheduler)

        module.download(
            request: GetFile(), to: DownloadDestination(folder.appendingPathComponent("report.pdf")),
            completion: { _ in })
        scheduler.runAll()

        #expect(counter.received.value == [body.count])
    }

    @Test("when the actions look at a download, should see it succeed with an empty body, before the caller")
    func actionsSeeDownload() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body))
        let probe = ProbeAction(name: "probe")
        let results = ResultCollector<DownloadResponse>()

        makeTransferModule(session: session, actions: [probe]).download(
            request: GetFile(), to: DownloadDestination(folder.appendingPathComponent("report.pdf")),
            completion: results.completion)

        #expect(probe.log.value.finished == [.success(200)])
        #expect(results.count == 1)
    }
}
