import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The file and progress logic of one `URLSessionTransport` transfer, without a network: what
/// the delegate does at the response head, at each chunk, as the body is sent, and at the end.
@Suite("TransportTaskOptions")
struct TransportTaskOptionsTests {
    final class Reports: Sendable {
        private let storage = LockedState([TransferProgress]())
        var all: [TransferProgress] { storage.withLock { $0 } }
        var handler: @Sendable (TransferProgress) -> Void { { report in self.storage.withLock { $0.append(report) } } }
    }

    static func response(_ status: Int, _ fields: [String: String] = [:]) throws -> HTTPURLResponse {
        let url = try #require(URL(string: "http://127.0.0.1/file"))
        return try #require(
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    static func transfer(
        to url: URL?, resumingAt: Int64 = 0, reports: Reports? = nil, body: Data? = nil
    ) throws -> TransportTaskOptions {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1/file")))
        request.httpBody = body
        // What a resume sends.
        if resumingAt > 0 { request.setValue("bytes=\(resumingAt)-", forHTTPHeaderField: "Range") }
        let destination: TransferOptions.Destination = url.map { .file($0, resumingAt: resumingAt) } ?? .memory
        let transfer = TransportTaskOptions(
            TransferOptions(destination: destination, progress: reports?.handler), request: request)
        return try #require(transfer)
    }

    @Test("when a request asks for no file and no progress, should need no transfer at all")
    func plainRequestHasNoTransfer() throws {
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1/file")))

        let transfer = TransportTaskOptions(TransferOptions(), request: request)

        #expect(transfer == nil)
    }

    @Test("when a 200 arrives for a file, should create the file at the head and write each chunk to it")
    func streamsToFile() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("file.bin")
        try Data("old contents".utf8).write(to: url)
        let reports = Reports()
        let transfer = try Self.transfer(to: url, reports: reports)

        let streams = try transfer.responseArrived(Self.response(200, ["Content-Length": "6"]), method: "GET")
        let atHead = try Data(contentsOf: url)
        try transfer.bodyReceived(Data("abc".utf8), totalReceived: 3)
        try transfer.bodyReceived(Data("def".utf8), totalReceived: 6)
        transfer.close()

        #expect(streams)
        #expect(atHead.isEmpty)
        #expect(try Data(contentsOf: url) == Data("abcdef".utf8))
        #expect(
            reports.all.map(\.completedBytes) == [0, 3, 6] && reports.all.allSatisfy { $0.expectedBytes == 6 },
            "\(reports.all)")
    }

    @Test("when a 206 continues the kept bytes, should append after them and count them in the progress")
    func resumesAfterKeptBytes() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("file.bin")
        try Data("abcXY".utf8).write(to: url)
        let reports = Reports()
        let transfer = try Self.transfer(to: url, resumingAt: 3, reports: reports)
        let partial = try Self.response(206, ["Content-Range": "bytes 3-5/6", "Content-Length": "3"])

        let streams = try transfer.responseArrived(partial, method: "GET")
        try transfer.bodyReceived(Data("def".utf8), totalReceived: 3)
        transfer.close()

        #expect(streams)
        #expect(try Data(contentsOf: url) == Data("abcdef".utf8))
        #expect(
            reports.all == [
                TransferProgress(isUpload: false, completedBytes: 3, expectedBytes: 6),
                TransferProgress(isUpload: false, completedBytes: 6, expectedBytes: 6),
            ])
    }

    @Test(
        "probe (child process only): a resumed transfer's progress with a server's length near Int64.max",
        .enabled(if: ChildProcess.isProbe("transfer-huge-length")))
    func probeHugeLengths() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("file.bin")
        try Data("abc".utf8).write(to: url)
        let reports = Reports()
        let transfer = try Self.transfer(to: url, resumingAt: 3, reports: reports)
        let partial = try Self.response(
            206, ["Content-Range": "bytes 3-9223372036854775806/*", "Content-Length": "9223372036854775807"])

        _ = try transfer.responseArrived(partial, method: "GET")
        try transfer.bodyReceived(Data("d".utf8), totalReceived: Int.max)
        transfer.close()

        #expect(
            reports.all == [
                TransferProgress(isUpload: false, completedBytes: 3, expectedBytes: nil),
                TransferProgress(isUpload: false, completedBytes: .max, expectedBytes: nil),
            ], "a length past Int64.max is unknown, and a count past it stops at the largest")
    }

    @Test("when a server's length after the kept bytes passes Int64.max, should report progress without trapping")
    func hugeLengthsDoNotTrap() async throws {
        #if os(Linux)
            let outcome = try await ChildProcess.run(
                probe: "transfer-huge-length", filter: "probeHugeLengths", timeout: 120)

            #expect(outcome.succeeded, "the child process failed or trapped:\n\(outcome.output)")
        #endif
    }

    @Test("when a 206 starts anywhere but the kept bytes, should fail with .cannotParseResponse and leave the file")
    func mismatchedRangeFails() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("file.bin")
        try Data("abc".utf8).write(to: url)
        let transfer = try Self.transfer(to: url, resumingAt: 3)

        let error = #expect(throws: URLError.self) {
            try transfer.responseArrived(Self.response(206, ["Content-Range": "bytes 0-5/6"]), method: "GET")
        }
        #expect(error?.code == .cannotParseResponse)

        #expect(try Data(contentsOf: url) == Data("abc".utf8))
    }

    @Test("when the status is not 2xx, should leave the file alone: the body goes to memory")
    func errorStatusKeepsBodyInMemory() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("file.bin")
        let transfer = try Self.transfer(to: url)

        let streams = try transfer.responseArrived(Self.response(404), method: "GET")
        try transfer.bodyReceived(Data("not found".utf8), totalReceived: 9)

        #expect(!streams)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("when the file cannot be created, should fail with .cannotCreateFile saying where")
    func unopenableFileFails() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("missing/file.bin")
        let transfer = try Self.transfer(to: url)

        let head = try Self.response(200)
        do throws(URLError) {
            _ = try transfer.responseArrived(head, method: "GET")
            Issue.record("opened a file in a missing folder")
        } catch {
            #expect(error.code == .cannotCreateFile)
            #expect(error.localizedDescription.contains(url.path), "\(error.localizedDescription)")
        }
    }

    @Test(
        "when the task finished before the head or a chunk arrives, should neither create the file nor write nor report"
    )
    func closedTransferTouchesNothing() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("file.bin")
        let reports = Reports()
        let transfer = try Self.transfer(to: url, reports: reports)
        let open = try Self.transfer(to: folder.appendingPathComponent("open.bin"))
        _ = try open.responseArrived(Self.response(200), method: "GET")

        transfer.close()
        open.close()

        #expect(try transfer.responseArrived(Self.response(200), method: "GET") == false)
        try transfer.bodyReceived(Data("late".utf8), totalReceived: 4)
        try open.bodyReceived(Data("late".utf8), totalReceived: 4)
        transfer.bodySent(totalBytesSent: 4, totalBytesExpectedToSend: 4)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try Data(contentsOf: folder.appendingPathComponent("open.bin")).isEmpty)
        #expect(reports.all.isEmpty)
    }

    @Test("when URLSession does not know the body's length, should expect the request body's")
    func uploadExpectsBodyLength() throws {
        let reports = Reports()
        let transfer = try Self.transfer(to: nil, reports: reports, body: Data(count: 10))

        transfer.bodySent(totalBytesSent: 4, totalBytesExpectedToSend: -1)
        transfer.bodySent(totalBytesSent: 10, totalBytesExpectedToSend: 10)

        #expect(
            reports.all == [
                TransferProgress(isUpload: true, completedBytes: 4, expectedBytes: 10),
                TransferProgress(isUpload: true, completedBytes: 10, expectedBytes: 10),
            ])
    }
}
