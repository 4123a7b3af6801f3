import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads to a file on the wire, through `DefaultNetworkModule` and `URLSessionTransport`
/// (issue 16, item 2): bodies streamed to disk, resumed on retry with `Range` and `If-Range`,
/// replaced when the file changed, and no file left behind by any failure or cancel. The fault
/// server's `/resumable` serves the pattern (byte i is i % 251) and can cut the connection.
@Suite("Integration: downloads to a file", .integration)
struct DownloadIntegrationTests {
    static let retryQuickly: any NetworkModuleAction = .retry(
        RetryPolicy(maxAttempts: 3, initialDelay: 0.05, jitter: 0))

    static func resumable(size: Int, cut: Int? = nil, etag: String, changedETag: String? = nil) -> Endpoint {
        var items = [URLQueryItem(name: "size", value: "\(size)"), URLQueryItem(name: "etag", value: etag)]
        if let cut { items.append(URLQueryItem(name: "cut", value: "\(cut)")) }
        if let changedETag { items.append(URLQueryItem(name: "changed_etag", value: changedETag)) }
        return Endpoint(path: "/resumable", queryItems: items)
    }

    /// The `[Range, If-Range]` of every `/resumable` request for `etag`, as the server saw them.
    static func serverLog(etag: String) async throws -> [[String?]] {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let response = try await module.perform(
            request: Endpoint(path: "/resumable-log", queryItems: [URLQueryItem(name: "etag", value: etag)]))
        return try JSONDecoder().decode([[String?]].self, from: response.data)
    }

    @Test("when a download is cut halfway, should be retried with Range and If-Range and end byte-identical")
    func cutDownloadResumes() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let etag = "cut-\(UUID().uuidString)"
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.faultServer(), actions: [Self.retryQuickly])
        let destination = folder.appendingPathComponent("file.bin")
        let progress = ProgressLog()

        let result = await module.downloadOutcome(
            of: Self.resumable(size: 2_000_000, cut: 1_000_000, etag: etag), to: DownloadDestination(destination),
            progress: progress.handler)

        let download = try result.get()
        #expect(download.statusCode == 206)
        #expect(TransferTestSupport.isPattern(try Data(contentsOf: destination), length: 2_000_000))
        let log = try await Self.serverLog(etag: etag)
        #expect(log == [[nil, nil], ["bytes=1000000-", "\"\(etag)\""]])
        // The kept bytes count: the resumed attempt reports from 1,000,000 of 2,000,000 on.
        let resumed = progress.reports(isUpload: false).filter {
            $0.expectedBytes == 2_000_000 && $0.completedBytes >= 1_000_000
        }
        #expect(!resumed.isEmpty, "\(progress.reports(isUpload: false))")
        #expect(progress.reports(isUpload: false).last?.completedBytes == 2_000_000)
        #expect(fileNames(in: folder) == ["file.bin"])
    }

    @Test("when the file changed between attempts, should get 200 for the Range request and replace the partial file")
    func changedFileStartsOver() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let etag = "changed-\(UUID().uuidString)"
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.faultServer(), actions: [Self.retryQuickly])
        let destination = folder.appendingPathComponent("file.bin")

        let result = await module.downloadOutcome(
            of: Self.resumable(size: 1_500_000, cut: 700_000, etag: etag, changedETag: "\(etag)-v2"),
            to: DownloadDestination(destination))

        let download = try result.get()
        #expect(download.statusCode == 200)
        #expect(TransferTestSupport.isPattern(try Data(contentsOf: destination), length: 1_500_000))
        let log = try await Self.serverLog(etag: etag)
        #expect(log == [[nil, nil], ["bytes=700000-", "\"\(etag)\""]])
        #expect(fileNames(in: folder) == ["file.bin"])
    }

    @Test("when a download that asked for no range gets a 206 of part of the file, should fail and leave no file")
    func partialContentWithoutRangeFails() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let raw = Endpoint(path: "/raw", queryItems: [URLQueryItem(name: "case", value: "partial-without-range")])

        let result = await module.downloadOutcome(
            of: raw, to: DownloadDestination(folder.appendingPathComponent("file.bin")), progress: nil)

        #expect(result.error == .transportError(.cannotParseResponse), "\(result)")
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test("when the body is empty, should still create the file")
    func emptyBodyCreatesFile() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let destination = folder.appendingPathComponent("empty.bin")

        let result = await module.downloadOutcome(
            of: Endpoint(path: "/empty-200"), to: DownloadDestination(destination))

        _ = try result.get()
        #expect(try Data(contentsOf: destination).isEmpty)
        #expect(fileNames(in: folder) == ["empty.bin"])
    }

    @Test(
        "when the destination cannot be written (no folder, a file kept, not a file URL), should fail clearly and leave no file",
        arguments: ["missing folder", "file in a folder's place", "existing file kept", "not a file URL"])
    func unwritableDestination(_ kind: String) async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let blocker = folder.appendingPathComponent("blocker")
        try Data("kept".utf8).write(to: blocker)
        let destination: DownloadDestination =
            switch kind {
            // Reaches the transport: the partial file cannot be created when the head arrives.
            case "missing folder":
                DownloadDestination(folder.appendingPathComponent("gone/file.bin"), createsFolders: false)
            case "file in a folder's place": DownloadDestination(blocker.appendingPathComponent("file.bin"))
            case "existing file kept": DownloadDestination(blocker, replacesExistingFile: false)
            default: DownloadDestination(URL(string: "https://example.com/file.bin")!)
            }

        let result = await module.downloadOutcome(
            of: Endpoint(path: "/large", queryItems: [URLQueryItem(name: "bytes", value: "100000")]), to: destination)

        guard case .transportError(let failure) = result.error else {
            Issue.record("\(kind): \(result)")
            return
        }
        #expect(failure.code == .cannotCreateFile, "\(kind): \(failure)")
        #expect(failure.message?.isEmpty == false, "\(kind): \(failure)")
        #expect(fileNames(in: folder) == ["blocker"], "\(kind)")
        #expect(try Data(contentsOf: blocker) == Data("kept".utf8))
    }

    @Test("when the body passes the size limit, declared or not, should fail with .responseTooLarge and leave no file")
    func overLimitLeavesNoFile() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = URLSessionTransport(configuration: .ephemeral, maximumResponseSize: 100_000)
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer(), session: transport)
        let declared = Endpoint(path: "/large", queryItems: [URLQueryItem(name: "bytes", value: "1000000")])
        let undeclared = Endpoint(path: "/endless", queryItems: [URLQueryItem(name: "max_bytes", value: "1000000")])

        let results = [
            await module.downloadOutcome(of: declared, to: DownloadDestination(folder.appendingPathComponent("a"))),
            await module.downloadOutcome(of: undeclared, to: DownloadDestination(folder.appendingPathComponent("b"))),
        ]

        for result in results {
            #expect(result.error == .responseTooLarge(limit: 100_000), "\(result)")
        }
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test("when cancelled mid-download, should complete once with .cancelled and leave no file")
    func cancelMidDownload() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let trickle = Endpoint(
            path: "/trickle",
            queryItems: [
                URLQueryItem(name: "chunks", value: "200"), URLQueryItem(name: "interval_ms", value: "50"),
                URLQueryItem(name: "chunk_bytes", value: "10000"),
            ])
        let results = LockedState([Result<DownloadResponse, NetworkError>]())
        let handle = LockedState<(any NetworkCancellable)?>(nil)
        let partialsAtCancel = LockedState<[String]?>(nil)
        // Cancelled from the progress handler, on the executor's thread, once bytes have arrived:
        // not from the test's task, which a loaded cooperative pool may resume only after the
        // body has ended.
        let task = module.download(
            request: trickle, to: DownloadDestination(folder.appendingPathComponent("file.bin")),
            progress: { report in
                guard report.completedBytes > 0,
                    let task = handle.withLock({ handle -> (any NetworkCancellable)? in
                        defer { handle = nil }
                        return handle
                    })
                else { return }
                partialsAtCancel.withLock { $0 = TransferTestSupport.leftovers(in: folder) }
                task.cancel()
            },
            completion: { result in results.withLock { $0.append(result) } })
        handle.withLock { $0 = task }

        #expect(await TransferTestSupport.waitUntil(within: 30) { results.withLock { !$0.isEmpty } })
        #expect(partialsAtCancel.withLock { $0 }?.count == 1, "the body was not streamed to a partial file")
        // Late callbacks of the transport must neither complete again nor write a file again.
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(results.withLock { $0.map(\.error) } == [.cancelled])
        #expect(fileNames(in: folder).isEmpty)
    }

    // MARK: - Numbers a server sends

    @Test(
        "probe (child process only): a download of bytes=0- answered with a range longer than a 64-bit count",
        .enabled(if: ChildProcess.isProbe("range-past-int64")))
    func probeRangePastInt64() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let raw = Endpoint(
            path: "/raw", queryItems: [URLQueryItem(name: "case", value: "range-past-int64")],
            headers: ["Range": "bytes=0-"])

        let result = await module.downloadOutcome(
            of: raw, to: DownloadDestination(folder.appendingPathComponent("file.bin")))

        print("range-past-int64 outcome: \(result)")
        guard case .transportError(let failure) = result.error else {
            Issue.record("\(result)")
            return
        }
        #expect(failure.code == .cannotParseResponse)
        #expect(failure.message?.contains("bytes 0-9223372036854775807/*") == true, "\(failure)")
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test(
        "when a 206 declares Content-Range bytes 0-9223372036854775807/*, should fail with .cannotParseResponse, not trap"
    )
    func rangePastInt64() async throws {
        #if os(Linux)
            _ = try IntegrationServers.faultServer()

            // In a child process: before issue 38's fix the range's length overflowed and stopped it.
            let outcome = try await ChildProcess.run(
                probe: "range-past-int64", filter: "probeRangePastInt64", timeout: 120)

            #expect(outcome.succeeded, "\(outcome.output)")
            #expect(outcome.output.contains("range-past-int64 outcome"), "\(outcome.output)")
        #endif
    }

    // MARK: - A full disk

    @Test(
        "probe (child process only): a download under a 256 KiB file-size limit",
        .enabled(if: ChildProcess.isProbe("download-file-size-limit")))
    func probeFileSizeLimit() async throws {
        #if os(Linux)
            // write(2) then fails with EFBIG instead of raising SIGXFSZ: a full disk, as far as
            // the transport can tell.
            signal(SIGXFSZ, SIG_IGN)
            var limit = rlimit(rlim_cur: 256 * 1024, rlim_max: 256 * 1024)
            try #require(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0)
            let folder = try makeTemporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

            let result = await module.downloadOutcome(
                of: Endpoint(path: "/large", queryItems: [URLQueryItem(name: "bytes", value: "2000000")]),
                to: DownloadDestination(folder.appendingPathComponent("file.bin")))

            print("download-file-size-limit outcome: \(result)")
            guard case .transportError(let failure) = result.error else {
                Issue.record("\(result)")
                return
            }
            #expect(failure.code == .cannotWriteToFile)
            #expect(failure.message?.contains("cannot write to the file") == true, "\(failure)")
            #expect(fileNames(in: folder).isEmpty)
        #endif
    }

    @Test("when the disk is full (a file-size limit), should fail with .cannotWriteToFile and leave no file")
    func fullDisk() async throws {
        #if os(Linux)
            _ = try IntegrationServers.faultServer()

            let outcome = try await ChildProcess.run(
                probe: "download-file-size-limit", filter: "probeFileSizeLimit", timeout: 120)

            #expect(outcome.succeeded, "\(outcome.output)")
            #expect(outcome.output.contains("download-file-size-limit outcome"), "\(outcome.output)")
        #endif
    }
}
