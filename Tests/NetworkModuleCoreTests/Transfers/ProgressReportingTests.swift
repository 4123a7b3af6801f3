import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `perform(request:progress:completion:)` and a download's progress: what reaches the caller,
/// in which order, through the executor; with fakes and the immediate executor.
@Suite("Progress reporting")
struct ProgressReportingTests {
    struct Upload: NetworkRequest {
        var path = "/uploads"
        var method: HTTPMethod = .post
        var body: RequestBody? = .data(Data(count: 2_000), contentType: "application/octet-stream")
    }

    /// Everything the caller heard, in order.
    final class Log: Sendable {
        enum Event: Equatable {
            case progress(TransferProgress)
            case completed
        }

        private let events = LockedState([Event]())
        var all: [Event] { events.value }
        var reports: [TransferProgress] {
            all.compactMap { if case .progress(let report) = $0 { report } else { nil } }
        }

        var progress: @Sendable (TransferProgress) -> Void {
            { report in self.events.withLock { $0.append(.progress(report)) } }
        }
        func completed() { events.withLock { $0.append(.completed) } }
    }

    /// A session that reports `count` downloads of `step` bytes each, as fast as it can, then answers.
    private func chattySession(count: Int, step: Int64, status: Int = 200) -> ScriptedTransferSession {
        ScriptedTransferSession { _, request, transfer in
            for index in 1...count {
                transfer.progress?(
                    TransferProgress(
                        isUpload: false, completedBytes: Int64(index) * step,
                        expectedBytes: Int64(count) * step))
            }
            return (Data(count: count * Int(step)), httpResponse(request, status: status), nil)
        }
    }

    @Test(
        "when a session reports thousands of times at once, should pass on a few and end on the total, before the result"
    )
    func boundedAndComplete() {
        let log = Log()
        let module = makeTransferModule(session: chattySession(count: 5_000, step: 10))

        module.perform(request: TestRequest(), progress: log.progress) { _ in log.completed() }

        let reports = log.reports
        #expect(reports.count >= 2)
        #expect(reports.count < 100)
        #expect(reports.last == TransferProgress(isUpload: false, completedBytes: 50_000, expectedBytes: 50_000))
        #expect(log.all.last == .completed)
        #expect(log.all.filter { $0 == .completed }.count == 1)
    }

    @Test("when the request fails, should end on the last report as it was, before the failure")
    func failureEndsOnLatest() {
        let log = Log()
        let module = makeTransferModule(session: chattySession(count: 3, step: 10, status: 500))
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest(), progress: log.progress) { result in
            log.completed()
            results.completion(result)
        }

        #expect(log.reports.last == TransferProgress(isUpload: false, completedBytes: 30, expectedBytes: 30))
        #expect(log.all.last == .completed)
        #expect(results.singleError?.statusCode == 500)
    }

    @Test("when a session reports nothing, should still end on an empty, complete download")
    func silentSession() {
        let log = Log()
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("ok"))

        makeTransferModule(session: session).perform(request: TestRequest(), progress: log.progress) { _ in
            log.completed()
        }

        // FakeNetworkSession runs the default transferTask: one report, the whole body.
        #expect(
            log.all == [
                .progress(TransferProgress(isUpload: false, completedBytes: 2, expectedBytes: 2)), .completed,
            ])
    }

    @Test("when a request with a body succeeds on an in-memory session, should report the upload, then the download")
    func uploadThenDownload() {
        let log = Log()
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("ok"))

        makeTransferModule(session: session).perform(request: Upload(), progress: log.progress) { _ in
            log.completed()
        }

        #expect(log.reports.map(\.isUpload) == [true, false])
        #expect(log.reports.first == TransferProgress(isUpload: true, completedBytes: 2_000, expectedBytes: 2_000))
    }

    @Test("when cancelled, should complete once as cancelled and pass on no report the session makes after")
    func cancelled() {
        let log = Log()
        let session = ScriptedTransferSession(holds: true) { _, request, transfer in
            transfer.progress?(TransferProgress(isUpload: false, completedBytes: 5, expectedBytes: 10))
            return (Data(count: 10), httpResponse(request), nil)
        }
        let task = makeTransferModule(session: session).perform(request: TestRequest(), progress: log.progress) {
            result in
            #expect(result == .failure(.cancelled))
            log.completed()
        }

        task.cancel()
        session.releaseAll()

        #expect(log.all == [.completed])
    }

    @Test("when a download succeeds on an in-memory session, should report it complete, before the result")
    func downloadProgress() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = Log()
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: Data(count: 300)))

        makeTransferModule(session: session).download(
            request: TestRequest(), to: DownloadDestination(folder.appendingPathComponent("file")),
            progress: log.progress
        ) { _ in log.completed() }

        #expect(
            log.all == [
                .progress(TransferProgress(isUpload: false, completedBytes: 300, expectedBytes: 300)), .completed,
            ])
    }
}
