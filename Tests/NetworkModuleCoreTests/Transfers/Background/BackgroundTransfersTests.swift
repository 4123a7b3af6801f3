import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `BackgroundTransfers` on a fake of the system's side: what it sends, what it refuses, how the
/// module's actions see each transfer, and what the handler gets, once, across simulated
/// relaunches (a new instance on the same folder). The `.immediate` executor delivers inside
/// the call under test.
@Suite("BackgroundTransfers")
struct BackgroundTransfersTests {
    /// The system's side, recording what it is asked; the test plays its events.
    final class FakeSystem: BackgroundTaskSystem {
        struct Sent: Sendable {
            let request: URLRequest
            let task: BackgroundTaskKind
            let token: String
        }

        private struct State {
            var sent: [Sent] = []
            var cancelled: [String] = []
            var listing: (@Sendable (Set<String>) -> Void)?
            var attached = false
        }

        private let state = LockedState(State())

        var sent: [Sent] { state.value.sent }
        var cancelled: [String] { state.value.cancelled }
        var attached: Bool { state.value.attached }

        func attach(to owner: BackgroundTransfers) { state.withLock { $0.attached = true } }

        func send(_ request: URLRequest, as task: BackgroundTaskKind, token: String) {
            state.withLock { $0.sent.append(Sent(request: request, task: task, token: token)) }
        }

        func cancel(token: String) { state.withLock { $0.cancelled.append(token) } }

        func listTokens(_ completion: @escaping @Sendable (Set<String>) -> Void) {
            state.withLock { $0.listing = completion }
        }

        /// Answers the listing asked at launch.
        func list(_ tokens: Set<String>) {
            state.withLock { $0.listing }?(tokens)
        }
    }

    /// Records every hook it sees, and adds a header when it prepares.
    final class RecordingAction: NetworkModuleAction {
        let hooks = LockedState<[String]>([])
        let contexts = LockedState<[ActionContext]>([])

        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
            hooks.withLock { $0.append("prepare") }
            urlRequest.setValue("Bearer token-1", forHTTPHeaderField: "Authorization")
        }

        func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            hooks.withLock { $0.append("didReceive") }
        }

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            hooks.withLock { $0.append("didFinish") }
            contexts.withLock { $0.append(context) }
        }
    }

    /// An action that prepares later, when the test says.
    final class LaterAction: NetworkModuleAction {
        let waiting = LockedState<[@Sendable () -> Void]>([])

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            var prepared = urlRequest
            prepared.setValue("later", forHTTPHeaderField: "X-Later")
            waiting.withLock { [prepared] in $0.append { completion(.success(prepared)) } }
        }

        func release() { for finish in waiting.withLock({ $0 }) { finish() } }
    }

    /// An executor that keeps its jobs: what a process that ends before they run leaves undone.
    final class HeldExecutor: CompletionExecutor {
        let jobs = LockedState<[@Sendable () -> Void]>([])
        func execute(_ work: @escaping @Sendable () -> Void) { jobs.withLock { $0.append(work) } }
    }

    final class Reports: Sendable {
        let all = LockedState<[(id: String, result: Result<NetworkResponse, NetworkError>)]>([])
        var ids: [String] { all.value.map(\.id) }
        var results: [Result<NetworkResponse, NetworkError>] { all.value.map(\.result) }
        var handler: @Sendable (String, Result<NetworkResponse, NetworkError>) -> Void {
            { id, result in self.all.withLock { $0.append((id, result)) } }
        }
    }

    struct Upload: NetworkRequest {
        let file: URL
        var path: String { "/videos" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .file(file, contentType: "video/mp4") }
    }

    struct JSONUpload: NetworkRequest {
        var path: String { "/videos" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .data(Data("{}".utf8), contentType: "application/json") }
    }

    struct Get: NetworkRequest {
        var path: String = "/videos/7/file"
        var redirectPolicy: RedirectPolicy? = nil
        var acceptableStatusCodes: AcceptableStatusCodes = .moduleDefault
    }

    let folder: URL
    let system = FakeSystem()
    let reports = Reports()
    let action = RecordingAction()

    init() throws {
        folder = try makeTemporaryFolder()
    }

    func module(
        actions: [any NetworkModuleAction]? = nil, executor: some CompletionExecutor = .immediate,
        clock: ManualDelayScheduler? = nil
    ) -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: FakeNetworkSession(), actions: actions ?? [action], completionExecutor: executor,
            delayScheduler: clock)
    }

    /// An instance on the fake system, its state in the test's folder: a new one is a relaunch.
    /// Its transfers may carry credentials (the recording action's `Authorization`) unless
    /// `credentialsMayFollowRedirects` says otherwise.
    func transfers(
        module: DefaultNetworkModule? = nil, system: FakeSystem? = nil, onLinux: Bool = false,
        serverTrust: ServerTrustPolicy? = .system, credentialHeaderNames: Set<String> = [],
        credentialsMayFollowRedirects: Bool = true, writesFiles: (@Sendable (Data, URL) -> Bool)? = nil
    ) -> BackgroundTransfers {
        BackgroundTransfers(
            identifier: "com.example.transfers", module: module ?? self.module(),
            directory: folder.appendingPathComponent("state"), system: onLinux ? nil : (system ?? self.system),
            serverTrust: serverTrust, credentialHeaderNames: credentialHeaderNames,
            credentialsMayFollowRedirects: credentialsMayFollowRedirects,
            writesFiles: writesFiles, handler: reports.handler)
    }

    /// The ledger file in the test's folder.
    var ledgerFile: URL { folder.appendingPathComponent("state/transfers.json") }

    func videoFile() throws -> URL {
        let file = folder.appendingPathComponent("video.mp4")
        try Data(repeating: 7, count: 1_000).write(to: file)
        return file
    }

    func response(_ status: Int) -> BackgroundTransferOutcome.SystemCompletion {
        BackgroundTransferOutcome.SystemCompletion(
            response: HTTPURLResponse(
                url: URL(string: "https://api.example.com/v2/videos")!, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"]),
            bytesSent: 1_000, bytesReceived: 8)
    }

    /// A file as the system leaves a download's body.
    func downloaded(_ text: String) throws -> URL {
        let file = folder.appendingPathComponent("CFNetworkDownload_\(UUID().uuidString).tmp")
        try Data(text.utf8).write(to: file)
        return file
    }

    // MARK: - Refusals

    @Test("when there is no background session (Linux), should refuse every transfer, unsent")
    func linux() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers(onLinux: true)

        let upload = #expect(throws: NetworkError.self) {
            try transfers.upload(request: Upload(file: videoFile()), id: "a")
        }
        let download = #expect(throws: NetworkError.self) {
            try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "b")
        }

        #expect(upload == .transportError(.unsupportedURL))
        #expect(download?.transportFailure?.message?.contains("swift-corelibs-foundation") == true)
        #expect(reports.ids.isEmpty && action.hooks.value.isEmpty)
    }

    @Test("when an upload's body is not a file, should refuse it, unsent")
    func uploadNotAFile() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()

        let error = #expect(throws: NetworkError.self) { try transfers.upload(request: JSONUpload(), id: "a") }

        #expect(error == .transportError(.unsupportedURL))
        #expect(error?.transportFailure?.message?.contains("RequestBody.file") == true)
        #expect(system.sent.isEmpty && reports.ids.isEmpty)
    }

    @Test("when a download has a body or a redirect policy other than follow, should refuse it, unsent")
    func downloadRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()
        let destination = DownloadDestination(folder.appendingPathComponent("video.mp4"))

        let withBody = #expect(throws: NetworkError.self) {
            try transfers.download(request: Upload(file: videoFile()), to: destination, id: "a")
        }
        let refusingRedirects = #expect(throws: NetworkError.self) {
            try transfers.download(request: Get(redirectPolicy: .refuse), to: destination, id: "b")
        }

        #expect(withBody?.transportFailure?.message?.contains("no body") == true)
        #expect(refusingRedirects?.transportFailure?.message?.contains("redirect") == true)
        #expect(system.sent.isEmpty)
    }

    @Test("when the module's session hides its transport's server-trust policy, should refuse every transfer, unsent")
    func serverTrustUnknown() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers(serverTrust: nil)

        let upload = #expect(throws: NetworkError.self) {
            try transfers.upload(request: Upload(file: videoFile()), id: "a")
        }
        let download = #expect(throws: NetworkError.self) {
            try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "b")
        }

        #expect(upload == .transportError(.unsupportedURL))
        #expect(download?.transportFailure?.message?.contains("Create BackgroundTransfers with serverTrust:") == true)
        #expect(system.sent.isEmpty && reports.ids.isEmpty && action.hooks.value.isEmpty)
    }

    @Test("when a prepared transfer carries credentials the app did not allow, should report the refusal, unsent")
    func credentialsRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers(credentialsMayFollowRedirects: false)

        let started = try transfers.upload(request: Upload(file: videoFile()), id: "a")

        #expect(started)
        #expect(reports.ids == ["a"])
        let error = reports.results.first?.error
        #expect(error == .transportError(.unsupportedURL))
        #expect(error?.transportFailure?.message?.contains("(Authorization)") == true)
        #expect(error?.transportFailure?.message?.contains("credentialsMayFollowRedirects: true") == true)
        #expect(system.sent.isEmpty)
        #expect(action.hooks.value == ["prepare", "didFinish"])
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("state/transfers.json").path))
    }

    @Test("when the transport names more credential headers, should refuse a transfer that carries one of them")
    func transportCredentialNamesRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        struct TenantKey: NetworkModuleAction {
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
                urlRequest.setValue("t-1", forHTTPHeaderField: "X-Tenant-Key")
            }
        }
        let transfers = transfers(
            module: module(actions: [TenantKey()]), credentialHeaderNames: ["x-tenant-key"],
            credentialsMayFollowRedirects: false)
        let allowed = self.transfers(module: module(actions: [TenantKey()]), credentialsMayFollowRedirects: false)

        try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        try allowed.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("w")), id: "b")

        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error?.transportFailure?.message?.contains("X-Tenant-Key") == true)
        #expect(system.sent.map(\.request.url?.path) == ["/v2/videos/7/file"])
    }

    // MARK: - Starting

    @Test("when an upload starts, should prepare it with the actions and hand the file to the system")
    func uploadSent() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()
        let file = try videoFile()

        let started = try transfers.upload(request: Upload(file: file), id: "video-42")

        #expect(started)
        let sent = try #require(system.sent.first)
        #expect(sent.task == .upload(fromFile: file))
        #expect(sent.request.url?.absoluteString == "https://api.example.com/v2/videos")
        #expect(sent.request.httpMethod == "POST")
        #expect(sent.request.value(forHTTPHeaderField: "Authorization") == "Bearer token-1")
        #expect(sent.request.value(forHTTPHeaderField: "Content-Type") == "video/mp4")
        #expect(sent.request.httpBodyStream == nil && sent.request.httpBody == nil)
        #expect(action.hooks.value == ["prepare"])
        #expect(system.attached)
    }

    @Test("when the transfer cannot be written down, should report it as not sent, and send nothing")
    func ledgerNotWritable() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // A file where the ledger's folder goes: no ledger can be written there.
        try Data().write(to: folder.appendingPathComponent("state"))
        let transfers = transfers()

        let started = try transfers.upload(request: Upload(file: videoFile()), id: "a")

        #expect(started)
        #expect(system.sent.isEmpty)
        #expect(reports.ids == ["a"])
        let error = reports.results.first?.error
        #expect(error == .transportError(.cannotWriteToFile))
        #expect(error?.transportFailure?.message?.contains("not handed to the system") == true)
        #expect(action.hooks.value == ["prepare", "didFinish"])
    }

    @Test("when an action prepares later, should send only once it has")
    func preparesLater() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let later = LaterAction()
        let transfers = transfers(module: module(actions: [later, action]))

        try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        let before = system.sent.count
        later.release()

        #expect(before == 0)
        #expect(system.sent.first?.request.value(forHTTPHeaderField: "X-Later") == "later")
        #expect(system.sent.first?.request.value(forHTTPHeaderField: "Authorization") == "Bearer token-1")
    }

    @Test(
        "when an action never completes its preparation, should report .timedOut once after the request's timeout and send nothing"
    )
    func preparationTimesOut() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        struct SlowGet: NetworkRequest {
            var path: String { "/videos/7/file" }
            var timeout: TimeInterval? { 5 }
        }
        let later = LaterAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [later, action], clock: clock))
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        try transfers.download(request: SlowGet(), to: destination, id: "a")

        clock.advance(by: 4.9)
        let before = reports.ids
        clock.advance(by: 0.1)
        later.release()
        clock.runAll()

        #expect(before.isEmpty)
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error == .timedOut)
        #expect(system.sent.isEmpty)
        #expect(action.hooks.value == ["didFinish"])
        #expect(
            BackgroundTransferStore(directory: folder.appendingPathComponent("state")).load().persisted?.transfers
                .isEmpty ?? true)
        // The ledger holds no entry for the ID: it starts again.
        #expect(try transfers.download(request: SlowGet(), to: destination, id: "a"))
    }

    @Test(
        "when the upload's file is removed while an action prepares, should report the file error once and hand nothing to the system"
    )
    func uploadFileGone() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let later = LaterAction()
        let transfers = transfers(module: module(actions: [later, action]))
        let file = try videoFile()
        try transfers.upload(request: Upload(file: file), id: "a")
        try FileManager.default.removeItem(at: file)

        later.release()

        #expect(system.sent.isEmpty)
        #expect(reports.ids == ["a"])
        guard case .invalidRequest(.bodyEncodingFailed(let message))? = reports.results.first?.error else {
            return #expect(Bool(false), "\(reports.results)")
        }
        #expect(message.contains("video.mp4"))
        #expect(
            BackgroundTransferStore(directory: folder.appendingPathComponent("state")).load().persisted?.transfers
                .isEmpty == true)
        #expect(try transfers.upload(request: Upload(file: videoFile()), id: "a"))
    }

    @Test("when an action fails the transfer, should report the error once and send nothing")
    func preparationFails() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        struct Refuses: NetworkModuleAction {
            struct NoToken: Error {}
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest)
                throws
            { throw NoToken() }
        }
        let transfers = transfers(module: module(actions: [Refuses(), action]))

        let started = try transfers.upload(request: Upload(file: videoFile()), id: "a")

        #expect(started)
        #expect(reports.ids == ["a"])
        guard case .actionFailed(let name, _)? = reports.results.first?.error else { return #expect(Bool(false)) }
        #expect(name == "Refuses")
        #expect(system.sent.isEmpty)
        #expect(action.hooks.value == ["didFinish"])
    }

    @Test("when a transfer with the ID is under way, should start nothing")
    func idTaken() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        try transfers.download(request: Get(), to: destination, id: "a")

        let again = try transfers.download(request: Get(), to: destination, id: "a")

        #expect(!again)
        #expect(system.sent.count == 1)
    }

    // MARK: - Ending

    @Test("when an upload is answered, should report its reply once, after the actions observed it")
    func uploadAnswered() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()
        try transfers.upload(request: Upload(file: videoFile()), id: "video-42")
        let token = try #require(system.sent.first?.token)

        _ = transfers.systemBodyReceived(token: token, data: Data("{\"id\":42}".utf8))
        transfers.systemCompleted(token: token, completion: response(201), resumeData: nil)
        transfers.systemCompleted(token: token, completion: response(500), resumeData: nil)

        #expect(reports.ids == ["video-42"])
        let answer = try #require(try reports.results.first?.get())
        #expect(answer.statusCode == 201 && answer.data == Data("{\"id\":42}".utf8))
        #expect(answer.request.value(forHTTPHeaderField: "Authorization") == "Bearer token-1")
        #expect(action.hooks.value == ["prepare", "didReceive", "didFinish"])
        #expect(action.contexts.value.first?.bytesSent == 1_000)
        #expect(action.contexts.value.first?.networkRequest is Upload)
        #expect(
            BackgroundTransferStore(directory: folder.appendingPathComponent("state")).load().persisted?.transfers
                .isEmpty == true)
    }

    @Test("when a download succeeds, should move its file to the destination and report it once")
    func downloadPlaced() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()
        let destination = folder.appendingPathComponent("videos/intro.mp4")
        try transfers.download(request: Get(), to: DownloadDestination(destination), id: "intro")
        let token = try #require(system.sent.first?.token)
        let location = try downloaded("the video")

        transfers.systemDownloadFinished(token: token, location: location, completion: response(200))
        transfers.systemCompleted(token: token, completion: response(200), resumeData: nil)

        #expect(reports.ids == ["intro"])
        #expect(try reports.results.first?.get().data == Data())
        #expect(try String(contentsOf: destination, encoding: .utf8) == "the video")
        #expect(fileNames(in: destination.deletingLastPathComponent()) == ["intro.mp4"])
    }

    @Test("when a download's status is refused, should report the status with its body and place no file")
    func downloadRefusedStatus() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()
        let destination = folder.appendingPathComponent("intro.mp4")
        try transfers.download(request: Get(), to: DownloadDestination(destination), id: "intro")
        let token = try #require(system.sent.first?.token)

        transfers.systemDownloadFinished(
            token: token, location: try downloaded("{\"error\":\"gone\"}"), completion: response(404))

        let error = reports.results.first?.error
        #expect(error?.statusCode == 404)
        #expect(error?.httpErrorResponse?.body == Data("{\"error\":\"gone\"}".utf8))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("when a download's file cannot be placed, should report the file error")
    func downloadNotPlaced() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()
        let destination = folder.appendingPathComponent("missing/intro.mp4")
        let keeps = DownloadDestination(destination, createsFolders: false)
        try transfers.download(request: Get(), to: keeps, id: "intro")
        let token = try #require(system.sent.first?.token)

        transfers.systemDownloadFinished(token: token, location: try downloaded("video"), completion: response(200))

        #expect(reports.results.first?.error == .transportError(.cannotCreateFile))
    }

    @Test("when an interrupted download is started again, should continue from its resume data, then drop it")
    func resumes() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // No credentials: resume data of a request with credentials is not kept.
        let transfers = transfers(module: module(actions: []))
        let destination = DownloadDestination(folder.appendingPathComponent("intro.mp4"))
        try transfers.download(request: Get(), to: destination, id: "intro")
        let first = try #require(system.sent.first?.token)
        let interrupted = BackgroundTransferOutcome.SystemCompletion(error: URLError(.networkConnectionLost))
        transfers.systemCompleted(token: first, completion: interrupted, resumeData: Data("resume here".utf8))
        let store = BackgroundTransferStore(directory: folder.appendingPathComponent("state"))
        let kept = store.resumeData(for: "intro")

        try transfers.download(request: Get(), to: destination, id: "intro")
        let second = try #require(system.sent.last)
        transfers.systemDownloadFinished(
            token: second.token, location: try downloaded("video"), completion: response(200))

        #expect(reports.results.first?.error == .networkConnectionLost)
        #expect(kept == Data("resume here".utf8))
        #expect(second.task == .resumedDownload(Data("resume here".utf8)))
        #expect(reports.ids == ["intro", "intro"])
        #expect(store.resumeData(for: "intro") == nil)
    }

    @Test("when a sent transfer is cancelled, should report .cancelled at once, cancel its task, and drop late events")
    func cancelled() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers()
        try transfers.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)

        transfers.cancel(id: "a")
        transfers.systemCompleted(
            token: token, completion: BackgroundTransferOutcome.SystemCompletion(error: URLError(.cancelled)),
            resumeData: nil)

        #expect(reports.results.map(\.error) == [.cancelled])
        #expect(system.cancelled == [token])
    }

    // MARK: - Relaunching

    @Test(
        "when the process ends after a transfer ended but before the app was told, should report it at relaunch, once")
    func relaunchReports() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let held = HeldExecutor()
        let first = transfers(module: module(executor: held))
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        first.systemCompleted(token: token, completion: response(201), resumeData: nil)

        // The first process ends here: its executor's job never runs.

        _ = transfers(system: FakeSystem())
        _ = transfers(system: FakeSystem())

        #expect(held.jobs.value.count == 1)
        #expect(reports.ids == ["a"])
        #expect(try reports.results.first?.get().statusCode == 201)
        #expect(try reports.results.first?.get().request.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("when the app was told before the process ended, should not report it again at relaunch")
    func relaunchAfterReport() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = transfers()
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        first.systemCompleted(token: token, completion: response(201), resumeData: nil)

        _ = transfers(system: FakeSystem())

        #expect(reports.ids == ["a"])
    }

    @Test("when a transfer ends while the app is away, should report it when the relaunched session says so")
    func endedWhileAway() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = transfers()
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        let relaunchedSystem = FakeSystem()
        let relaunchedAction = RecordingAction()

        let second = transfers(module: module(actions: [relaunchedAction]), system: relaunchedSystem)
        relaunchedSystem.list([token])
        second.systemCompleted(token: token, completion: response(201), resumeData: nil)

        #expect(reports.ids == ["a"])
        #expect(relaunchedAction.hooks.value == ["didReceive", "didFinish"])
        #expect(relaunchedAction.contexts.value.first?.networkRequest == nil)
        #expect(relaunchedAction.contexts.value.first?.sentRequest?.url?.path == "/v2/videos")
        _ = first
    }

    @Test("when the relaunched session delivers a transfer's end before its task list, should report the end, not lost")
    func endedBeforeListing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = transfers()
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        let relaunchedSystem = FakeSystem()

        // The system lists a task until its end has been delivered, so a list made after the end
        // no longer has it.
        let second = transfers(system: relaunchedSystem)
        second.systemCompleted(token: token, completion: response(201), resumeData: nil)
        relaunchedSystem.list([])

        #expect(reports.ids == ["a"])
        #expect(try reports.results.first?.get().statusCode == 201)
        _ = first
    }

    @Test(
        "when the relaunched session no longer has a transfer, should report it lost after the grace time and cancel unknown tasks"
    )
    func lostAtRelaunch() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = transfers()
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let relaunchedSystem = FakeSystem()
        let clock = ManualDelayScheduler()

        let second = transfers(module: module(clock: clock), system: relaunchedSystem)
        try second.upload(request: Upload(file: videoFile()), id: "b")
        relaunchedSystem.list(["stray"])
        let beforeGrace = reports.ids
        clock.advance(by: 59)
        let justBefore = reports.ids
        clock.advance(by: 1)

        #expect(beforeGrace.isEmpty && justBefore.isEmpty)
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error == .transportError(.backgroundSessionWasDisconnected))
        #expect(relaunchedSystem.cancelled == ["stray"])
        #expect(relaunchedSystem.sent.count == 1)
        _ = first
    }

    @Test("when the relaunched session delivers a transfer's end after a listing that lacks it, should report the end")
    func endedAfterListing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = transfers()
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        let relaunchedSystem = FakeSystem()
        let clock = ManualDelayScheduler()

        let second = transfers(module: module(clock: clock), system: relaunchedSystem)
        relaunchedSystem.list([])
        second.systemCompleted(token: token, completion: response(201), resumeData: nil)
        clock.advance(by: 60)

        #expect(reports.ids == ["a"])
        #expect(try reports.results.first?.get().statusCode == 201)
        _ = first
    }

    @Test("when the session's events are drained and a listed-out transfer never ended, should report it lost then")
    func lostWhenDrained() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = transfers()
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let relaunchedSystem = FakeSystem()
        let clock = ManualDelayScheduler()

        let second = transfers(module: module(clock: clock), system: relaunchedSystem)
        relaunchedSystem.list([])
        second.systemEventsFinished()
        clock.advance(by: 60)

        #expect(reports.results.map(\.error) == [.transportError(.backgroundSessionWasDisconnected)])
        _ = first
    }

    // MARK: - A ledger that cannot be read, or saved

    @Test(
        "when the ledger cannot be read at relaunch, should cancel nothing, and report the transfer once it can be read"
    )
    func ledgerLockedAtRelaunch() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = transfers()
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        let saved = try Data(contentsOf: ledgerFile)
        // A ledger that cannot be read: locked by data protection before the first unlock.
        try FileManager.default.removeItem(at: ledgerFile)
        try FileManager.default.createDirectory(at: ledgerFile, withIntermediateDirectories: false)
        let relaunchedSystem = FakeSystem()
        let clock = ManualDelayScheduler()

        let second = transfers(module: module(clock: clock), system: relaunchedSystem)
        relaunchedSystem.list([token, "stray"])
        let cancelledWhileLocked = relaunchedSystem.cancelled
        try FileManager.default.removeItem(at: ledgerFile)
        try saved.write(to: ledgerFile)
        clock.advance(by: 30)
        second.systemCompleted(token: token, completion: response(201), resumeData: nil)

        #expect(cancelledWhileLocked.isEmpty)
        #expect(relaunchedSystem.cancelled == ["stray"])
        #expect(reports.ids == ["a"])
        #expect(try reports.results.first?.get().statusCode == 201)
        _ = first
    }

    @Test("when a transfer ends while the ledger cannot be read, should report the end once the file can be read")
    func endedWhileLocked() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = transfers()
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        let saved = try Data(contentsOf: ledgerFile)
        try FileManager.default.removeItem(at: ledgerFile)
        try FileManager.default.createDirectory(at: ledgerFile, withIntermediateDirectories: false)
        let relaunchedSystem = FakeSystem()
        let clock = ManualDelayScheduler()

        let second = transfers(module: module(clock: clock), system: relaunchedSystem)
        second.systemCompleted(token: token, completion: response(201), resumeData: nil)
        relaunchedSystem.list([])
        let whileLocked = reports.ids
        try FileManager.default.removeItem(at: ledgerFile)
        try saved.write(to: ledgerFile)
        clock.advance(by: 30)
        clock.advance(by: 60)

        #expect(whileLocked.isEmpty && relaunchedSystem.cancelled.isEmpty)
        #expect(reports.ids == ["a"])
        #expect(try reports.results.first?.get().statusCode == 201)
        _ = first
    }

    @Test(
        "when the ledger cannot be saved as the app is told, should not call the handler, and deliver once after a relaunch"
    )
    func reportNotSaved() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let failing = LockedState(false)
        let held = HeldExecutor()
        let first = transfers(
            module: module(executor: held),
            writesFiles: { data, url in !failing.value && BackgroundTransferStore.write(data, to: url) })
        try first.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        first.systemCompleted(token: token, completion: response(201), resumeData: nil)

        failing.withLock { $0 = true }
        for job in held.jobs.withLock({ $0 }) { job() }
        let whileFailing = reports.ids

        _ = transfers(system: FakeSystem())
        _ = transfers(system: FakeSystem())

        #expect(whileFailing.isEmpty)
        #expect(reports.ids == ["a"])
        #expect(try reports.results.first?.get().statusCode == 201)
    }

    @Test("when a report could not be saved, should deliver it once after the next save that reaches the disk")
    func reportRetried() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let failing = LockedState(false)
        let transfers = transfers(
            writesFiles: { data, url in !failing.value && BackgroundTransferStore.write(data, to: url) })
        try transfers.upload(request: Upload(file: videoFile()), id: "a")
        let token = try #require(system.sent.first?.token)
        // The end is saved; the removal, as the app is about to be told, is not.
        let store = BackgroundTransferStore(directory: folder.appendingPathComponent("state"))
        failing.withLock { $0 = true }
        transfers.systemCompleted(token: token, completion: response(201), resumeData: nil)
        let whileFailing = reports.ids

        failing.withLock { $0 = false }
        try transfers.upload(request: Upload(file: videoFile()), id: "b")
        _ = self.transfers(system: FakeSystem())

        #expect(whileFailing.isEmpty)
        #expect(reports.ids == ["a"])
        #expect(try reports.results.first?.get().statusCode == 201)
        #expect(store.load().persisted?.transfers.map(\.id) == ["b"])
    }

    // MARK: - The app delegate's completion handler

    @Test("when the identifier is another session's, should keep nothing; without a session, call it at once")
    @MainActor
    func handleEvents() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transfers = transfers(onLinux: true)
        let calls = LockedState(0)

        let other = transfers.handleEvents(forBackgroundURLSession: "other") { calls.withLock { $0 += 1 } }
        let own = transfers.handleEvents(forBackgroundURLSession: "com.example.transfers") {
            calls.withLock { $0 += 1 }
        }

        #expect(!other && own)
        #expect(calls.value == 1)
    }
}
