import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Transfer tasks (async)")
struct TransferTaskTests {
    @Test("when a download task ends, should end its progress on the total and return the file")
    func downloadTask() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: Data(count: 1_234)))
        let destination = folder.appendingPathComponent("file.bin")

        let transfer = makeTransferModule(session: session).downloadTask(
            request: TestRequest(), to: DownloadDestination(destination))
        let download = try await transfer.value
        var reports: [TransferProgress] = []
        for await report in transfer.progress { reports.append(report) }

        #expect(download.fileURL == destination)
        #expect(try Data(contentsOf: destination).count == 1_234)
        #expect(reports == [TransferProgress(isUpload: false, completedBytes: 1_234, expectedBytes: 1_234)])
    }

    @Test("when a perform task fails, should throw its NetworkError to every waiter")
    func performTaskFailure() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503))
        let transfer = makeTransferModule(session: session).performTask(request: TestRequest())

        for _ in 0..<2 {
            do {
                _ = try await transfer.value
                Issue.record("expected an error")
            } catch {
                #expect(error.statusCode == 503)
            }
        }
    }

    @Test("when cancelled before the answer, should throw .cancelled and end the progress")
    func cancelled() async {
        let session = ScriptedTransferSession(holds: true) { _, request, _ in (Data(), httpResponse(request), nil) }
        let transfer = makeTransferModule(session: session).performTask(request: TestRequest())

        transfer.cancel()
        session.releaseAll()

        await #expect(throws: NetworkError.cancelled) { try await transfer.value }
        var reports = 0
        for await _ in transfer.progress { reports += 1 }
        #expect(reports == 0)
    }

    @Test("when the awaiting Task is cancelled, should cancel the transfer")
    func taskCancellationCancels() async {
        let session = ScriptedTransferSession(holds: true) { _, request, _ in (Data(), httpResponse(request), nil) }
        let transfer = makeTransferModule(session: session).performTask(request: TestRequest())

        let waiter = Task { try await transfer.value }
        waiter.cancel()
        let result = await waiter.result

        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? NetworkError == .cancelled)
        #expect(session.calls.count == 1)
    }
}
