import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of docs/transfers.md.
@Suite("Transfers samples")
struct TransfersSamples {
    // sample: transfers-request
    struct GetVideo: NetworkRequest {
        let id: Int
        var path: String { "/videos/\(id)/file" }
    }

    struct GetExport: NetworkRequest {
        let id: Int
        var path: String { "/exports/\(id)" }
    }

    struct UploadVideo: NetworkRequest {
        let file: URL
        var path: String { "/videos" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .file(file, contentType: "video/mp4") }
    }
    // end-sample

    final class ProgressBar: @unchecked Sendable {
        // @unchecked Sendable is safe: `lock` guards `fractions`.
        private let lock = NSLock()
        private var fractions: [Double] = []
        var progress: Double {
            get { lock.withLock { fractions.last ?? 0 } }
            set { lock.withLock { fractions.append(newValue) } }
        }
        var all: [Double] { lock.withLock { fractions } }
    }

    private func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("transfers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("when a download is started with a progress handler, should save the file and end the bar at 1")
    func callbackDownload() throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/videos/7/file"), with: .status(200, body: Data(count: 4_096)))
        let module = makeSampleModule(session: session)
        let bar = ProgressBar()
        let videos = try makeFolder()
        defer { try? FileManager.default.removeItem(at: videos) }

        let lines = Transcript.recording {
            // sample: transfers-download
            module.download(
                request: GetVideo(id: 7), to: DownloadDestination(videos.appendingPathComponent("intro.mp4")),
                progress: { progress in bar.progress = progress.fractionCompleted ?? 0 },
                completion: { result in
                    switch result {
                    case .success(let download): print("Saved \(download.fileURL.lastPathComponent)")
                    case .failure(let error): print("No file: \(error)")
                    }
                })
            // end-sample
        }

        #expect(lines == ["Saved intro.mp4"])
        #expect(bar.all == [1])
        #expect(try Data(contentsOf: videos.appendingPathComponent("intro.mp4")).count == 4_096)
    }

    @Test("when a download is awaited with its progress as a sequence, should save the file")
    func asyncDownload() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/videos/7/file"), with: .status(200, body: Data(count: 10)))
        let module = makeSampleModule(session: session)
        let bar = ProgressBar()
        let videos = try makeFolder()
        defer { try? FileManager.default.removeItem(at: videos) }

        // sample: transfers-download-async
        let transfer = module.downloadTask(
            request: GetVideo(id: 7), to: DownloadDestination(videos.appendingPathComponent("intro.mp4")))
        let following = Task { for await p in transfer.progress { bar.progress = p.fractionCompleted ?? 0 } }
        let download = try await transfer.value
        // end-sample
        await following.value

        #expect(download.statusCode == 200)
        #expect(bar.all == [1])
    }

    @Test("when a download is cut and retried, should resume it and save the whole file")
    func resumedDownload() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/videos/7/file"), sequence: [.error(.networkConnectionLost), .status(200, body: Data(count: 10))])
        let videos = try makeFolder()
        defer { try? FileManager.default.removeItem(at: videos) }

        // sample: transfers-retry
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: session, actions: [.retry(RetryPolicy(maxAttempts: 5))], completionExecutor: .main)
        let download = try await module.download(
            request: GetVideo(id: 7), to: DownloadDestination(videos.appendingPathComponent("intro.mp4")))
        // end-sample

        #expect(try Data(contentsOf: download.fileURL).count == 10)
        #expect(session.recordedRequests.count == 2)
    }

    @Test("when progress is asked of an ordinary request, should report each direction and end complete")
    func requestProgress() throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/videos/7/file"), with: .status(200, body: Data(count: 3)))
        let module = makeSampleModule(session: session)

        let lines = Transcript.recording {
            // sample: transfers-progress
            module.perform(request: GetVideo(id: 7), progress: { progress in
                let direction = progress.isUpload ? "upload" : "download"
                print("\(direction): \(progress.completedBytes) of \(progress.expectedBytes ?? -1)")
            }, completion: { result in print("done: \((try? result.get())?.statusCode ?? 0)") })
            // end-sample
        }

        #expect(lines == ["download: 3 of 3", "done: 200"])
    }

    /// Whether the background sample runs here: on Linux it shows the refusal; on an Apple
    /// platform it would hand a real transfer to the system, so it is only compiled there.
    static let runsBackgroundSample: Bool = {
        #if canImport(FoundationNetworking)
            true
        #else
            false
        #endif
    }()

    @Test("when background transfers are asked for on Linux, should refuse them unsent and free the app delegate")
    @MainActor
    func backgroundTransfers() throws {
        guard Self.runsBackgroundSample else { return }
        let module = makeSampleModule(session: FakeNetworkSession())
        let videos = try makeFolder()
        defer { try? FileManager.default.removeItem(at: videos) }
        let videoURL = videos.appendingPathComponent("intro.mp4")
        let savedURL = videos.appendingPathComponent("saved.mp4")
        try Data(count: 10).write(to: videoURL)
        let identifier = "com.example.bg"
        let delegateCalls = LockedState(0)
        let completionHandler: () -> Void = { delegateCalls.withLock { $0 += 1 } }
        var refusal: NetworkError?

        let lines = Transcript.recording {
            do {
                // sample: transfers-background
                let transfers = BackgroundTransfers(identifier: "com.example.bg", module: module) { id, result in
                    print(id, (try? result.get())?.statusCode ?? 0)  // on the module's completion executor
                }
                try transfers.upload(request: UploadVideo(file: videoURL), id: "video-42")  // on Linux, throws
                try transfers.download(request: GetVideo(id: 7), to: DownloadDestination(savedURL), id: "video-7")
                // In the app delegate's application(_:handleEventsForBackgroundURLSession:completionHandler:):
                transfers.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler)
                // end-sample
            } catch {
                refusal = error as? NetworkError
            }
            let transfers = BackgroundTransfers(identifier: identifier, module: module) { _, _ in }
            transfers.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler)
        }

        #expect(lines.isEmpty)
        #expect(refusal == .transportError(.unsupportedURL))
        #expect(refusal?.transportFailure?.message?.contains("Linux") == true)
        #expect(delegateCalls.withLock { $0 } == 1)
        #expect(!FileManager.default.fileExists(atPath: savedURL.path))
    }
}
