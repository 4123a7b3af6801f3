import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A second running attack on issue 39's background transfers (3e0b800): the app's calls while
/// the ledger cannot be read, and the credentials resume data carries. Each test asserts the
/// promise; a break is pinned with `withKnownIssue("BREAK: …")`.
@Suite("BackgroundTransfersSecondAttack", .serialized)
struct BackgroundTransfersSecondAttackTests {
    typealias Base = BackgroundTransfersTests
    typealias Attack = BackgroundTransfersAttackTests

    /// Adds a bearer token, as an authentication action does.
    struct Authorize: NetworkModuleAction {
        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
            urlRequest.setValue("Bearer s3cr3t-token", forHTTPHeaderField: "Authorization")
        }
    }

    let folder: URL
    let reports = Base.Reports()

    init() throws { folder = try makeTemporaryFolder() }

    var state: URL { folder.appendingPathComponent("state") }
    var ledgerFile: URL { state.appendingPathComponent("transfers.json") }

    func module(
        actions: [any NetworkModuleAction] = [], clock: ManualDelayScheduler = ManualDelayScheduler(),
        executor: any CompletionExecutor = BuiltInExecutor.immediate
    ) -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: FakeNetworkSession(), actions: actions, completionExecutor: executor, delayScheduler: clock)
    }

    func transfers(
        module: DefaultNetworkModule? = nil, system: any BackgroundTaskSystem,
        credentialsMayFollowRedirects: Bool = true
    ) -> BackgroundTransfers {
        BackgroundTransfers(
            identifier: "com.example.transfers", module: module ?? self.module(), directory: state, system: system,
            credentialsMayFollowRedirects: credentialsMayFollowRedirects, handler: reports.handler)
    }

    /// An instance as the app makes it: holding its state folder for its life.
    func claiming(system: any BackgroundTaskSystem) -> BackgroundTransfers {
        BackgroundTransfers(
            identifier: "com.example.transfers", module: module(), directory: state, system: system,
            credentialsMayFollowRedirects: true, claimsDirectory: true, handler: reports.handler)
    }

    func file(_ name: String = "video.mp4") throws -> URL {
        let file = folder.appendingPathComponent(name)
        try Data(repeating: 7, count: 1_000).write(to: file)
        return file
    }

    func response(_ status: Int) -> BackgroundTransferOutcome.SystemCompletion {
        BackgroundTransferOutcome.SystemCompletion(
            response: HTTPURLResponse(
                url: URL(string: "https://api.example.com/v2/videos")!, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: [:]),
            bytesSent: 1_000, bytesReceived: 8)
    }

    /// Makes the ledger unreadable (a directory where the file was), as data protection does
    /// before the first unlock; returns what it held.
    func lockLedger() throws -> Data {
        let saved = try Data(contentsOf: ledgerFile)
        try FileManager.default.removeItem(at: ledgerFile)
        try FileManager.default.createDirectory(at: ledgerFile, withIntermediateDirectories: false)
        return saved
    }

    func unlockLedger(_ saved: Data) throws {
        try FileManager.default.removeItem(at: ledgerFile)
        try saved.write(to: ledgerFile)
    }

    func describe() -> String {
        reports.all.value.map { "\($0.id): \($0.result)" }.joined(separator: "; ")
    }

    // MARK: - The app's calls while the ledger cannot be read

    @Test("locked ledger: cancel(id:) of an earlier launch's transfer ends it as .cancelled and cancels its task")
    func cancelWhileLocked() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Attack.LogSystem()
        let t1 = transfers(system: first)
        try t1.upload(request: Attack.Upload(file: file()), id: "a")
        let token = try #require(first.tokens.first)
        let saved = try lockLedger()

        // Relaunch before the first unlock: the user cancels the upload from the app's UI.
        let second = Attack.LogSystem()
        let clock = ManualDelayScheduler()
        let t2 = transfers(module: module(clock: clock), system: second)
        second.list([token])
        t2.cancel(id: "a")
        try unlockLedger(saved)
        clock.advance(by: 30)  // the reload timer reads the file
        // The task the app cancelled was never cancelled: it runs to its end.
        t2.systemCompleted(token: token, completion: response(201), resumeData: nil)
        clock.advance(by: 120)

        #expect(reports.ids == ["a"], "once: \(describe())")
        let cancelledTask = second.log.value.contains("cancel \(token)")
        let reportedCancel = reports.results.first?.error == .cancelled
        #expect(cancelledTask, "the system's task was never cancelled: \(second.log.value)")
        #expect(reportedCancel, "the app cancelled \"a\" and was told: \(describe())")
        _ = t1
    }

    @Test("locked ledger: a new transfer with the ID of an earlier launch's transfer: the ID gets one result")
    func idReusedWhileLocked() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Attack.LogSystem()
        let t1 = transfers(system: first)
        try t1.upload(request: Attack.Upload(file: file()), id: "a")
        let token = try #require(first.tokens.first)
        let saved = try lockLedger()

        let second = Attack.LogSystem()
        let clock = ManualDelayScheduler()
        let t2 = transfers(module: module(clock: clock), system: second)
        second.list([token])
        // The app does not know "a" is under way (its own state was lost too) and starts it again.
        // Which IDs are taken is unknown until the read: nothing begins.
        let refused = #expect(throws: NetworkError.self) {
            try t2.upload(request: Attack.Upload(file: file("again.mp4")), id: "a")
        }
        #expect(refused?.transportFailure?.code == .cannotWriteToFile)
        try unlockLedger(saved)
        clock.advance(by: 30)
        t2.systemCompleted(token: token, completion: response(201), resumeData: nil)
        clock.advance(by: 120)

        let count = reports.ids.filter { $0 == "a" }.count
        #expect(count == 1, "handler got: \(describe())")
        #expect((try? reports.results.first?.get().statusCode) == 201)
        _ = t1
    }

    @Test(
        "locked ledger: an ID reused while locked, its unsent report still queued when the file is read: the earlier transfer is not cancelled"
    )
    func idReusedWhileLockedQueuedReport() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Attack.LogSystem()
        let t1 = transfers(system: first)
        try t1.upload(request: Attack.Upload(file: file()), id: "a")
        let token = try #require(first.tokens.first)
        let saved = try lockLedger()

        // Relaunch before the first unlock; the module delivers on a queue (the main queue, say).
        let second = Attack.LogSystem()
        let executor = Base.HeldExecutor()
        let clock = ManualDelayScheduler()
        let t2 = transfers(module: module(clock: clock, executor: executor), system: second)
        second.list([token])
        // Refused at once (nothing enters the ledger), so no report waits on the queue.
        #expect(throws: NetworkError.self) { try t2.upload(request: Attack.Upload(file: file("again.mp4")), id: "a") }
        try unlockLedger(saved)
        clock.advance(by: 30)  // the reload reads the file before the queue runs
        for job in executor.jobs.withLock({ jobs in
            defer { jobs = [] }
            return jobs
        }) { job() }
        t2.systemCompleted(token: token, completion: response(201), resumeData: nil)
        for job in executor.jobs.withLock({ jobs in
            defer { jobs = [] }
            return jobs
        }) { job() }
        clock.advance(by: 120)
        for job in executor.jobs.withLock({ jobs in
            defer { jobs = [] }
            return jobs
        }) { job() }

        let cancelled = second.log.value.contains("cancel \(token)")
        let real = reports.results.contains { (try? $0.get().statusCode) == 201 }
        let onDisk = (try? String(decoding: Data(contentsOf: ledgerFile), as: UTF8.self)) ?? ""
        #expect(!cancelled, "the earlier launch's task was cancelled: \(second.log.value)")
        #expect(real, "the earlier launch's result never came: \(describe()); ledger now \(onDisk)")
        _ = t1
    }

    @Test("locked ledger: cancel(id:) of an ID with resume data drops the resume data (its next download starts over)")
    func cancelDropsResumeDataWhileLocked() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Base.FakeSystem()
        let t1 = transfers(system: first)
        let destination = DownloadDestination(folder.appendingPathComponent("intro.mp4"))
        try t1.download(request: Attack.Get(), to: destination, id: "d")
        let token = try #require(first.sent.first?.token)
        var interrupted = response(200)
        interrupted.error = URLError(.networkConnectionLost)
        t1.systemCompleted(token: token, completion: interrupted, resumeData: Data("old-attempt".utf8))
        let store = BackgroundTransferStore(directory: state)
        #expect(store.resumeData(for: "d") == Data("old-attempt".utf8))
        let saved = try lockLedger()

        let second = Base.FakeSystem()
        let clock = ManualDelayScheduler()
        let t2 = transfers(module: module(clock: clock), system: second)
        second.list([])
        t2.cancel(id: "d")  // "drop it, start over next time"
        try unlockLedger(saved)
        clock.advance(by: 30)
        try t2.download(request: Attack.Get(), to: destination, id: "d")

        let kind = second.sent.last?.task
        #expect(kind == .download, "sent as \(String(describing: kind))")
        _ = t1
    }

    // MARK: - The store's commit point while the ledger is locked

    @Test(
        "store: a report applied while the ledger is locked, then an older snapshot naming the transfer after the unlock: never written"
    )
    func olderSnapshotAfterReportWhileBlocked() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        typealias Ledger = BackgroundTransferLedger
        let records = BackgroundTransferStoreTests()
        let store = BackgroundTransferStore(directory: state)
        store.save(Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(transfers: [records.record("old")])))
        let saved = try lockLedger()
        #expect(store.load() == .blocked)
        // Another thread's step took snapshot 2, naming "x" (this launch, unsent: finished in
        // memory), and is about to apply it. "x" is reported with snapshot 3 first.
        let older = Ledger.Snapshot(
            number: 2, persisted: Ledger.Persisted(transfers: [records.record("old"), records.record("x")]))
        var report = Ledger.Step()
        report.snapshot = Ledger.Snapshot(number: 3, persisted: Ledger.Persisted(transfers: [records.record("old")]))
        let mayReport = store.applyReport(report, of: "x")
        #expect(mayReport, "no ledger on disk names x: the app is told")
        try unlockLedger(saved)
        #expect(store.load() != .blocked)

        let olderSaved = store.save(older)

        let names = store.load().persisted?.transfers.map(\.id) ?? []
        #expect(!olderSaved, "snapshot 2 came after snapshot 3 was tried")
        #expect(!names.contains("x"), "x, reported already, is on disk again (a relaunch reports it twice): \(names)")
    }

    // MARK: - A disk that fails twice

    /// Ledger writes behave as `modes` says, by ordinal (1-based); the rest succeed.
    static func seam(_ modes: [Int: Attack.Gate.Mode]) -> @Sendable (Data, URL) -> Bool {
        let writes = LockedState(0)
        return { data, url in
            guard url.lastPathComponent == "transfers.json" else { return BackgroundTransferStore.write(data, to: url) }
            let n = writes.withLock {
                $0 += 1
                return $0
            }
            switch modes[n] ?? .pass {
            case .pass: return BackgroundTransferStore.write(data, to: url)
            case .fail: return false
            case .writeButReportFailure:
                _ = BackgroundTransferStore.write(data, to: url)
                return false
            }
        }
    }

    @Test(
        "full disk: the 'prepared' save lands but reports failure, then the report's save fails: reported once across a relaunch"
    )
    func landedThenFailed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Attack.LogSystem()
        let t1 = BackgroundTransfers(
            identifier: "com.example.transfers", module: module(), directory: state, system: first,
            credentialsMayFollowRedirects: true, writesFiles: Self.seam([1: .writeButReportFailure, 2: .fail]),
            handler: reports.handler)
        try t1.upload(request: Attack.Upload(file: file()), id: "a")
        // The store reads a failed write back: this one landed, so the transfer is sent.
        #expect(first.tokens.count == 1, "sent: its save is on disk")
        #expect(reports.ids.isEmpty, "nothing reported yet: \(describe())")
        let onDisk = (try? String(decoding: Data(contentsOf: ledgerFile), as: UTF8.self)) ?? ""

        // The process ends; relaunch.
        let clock = ManualDelayScheduler()
        let second = Attack.LogSystem()
        let t2 = transfers(module: module(clock: clock), system: second)
        second.list([])
        t2.systemEventsFinished()
        clock.advance(by: 61)

        let count = reports.ids.filter { $0 == "a" }.count
        #expect(count == 1, "ledger left by launch 1: \(onDisk); reports: \(describe())")
        _ = t1
    }

    @Test(
        "full disk: the end's save fails, then the report's save lands but reports failure, then the process ends: reported once"
    )
    func failedThenLandedReport() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Attack.LogSystem()
        let t1 = BackgroundTransfers(
            identifier: "com.example.transfers", module: module(), directory: state, system: first,
            credentialsMayFollowRedirects: true, writesFiles: Self.seam([2: .fail, 3: .writeButReportFailure]),
            handler: reports.handler)
        try t1.upload(request: Attack.Upload(file: file()), id: "a")
        let token = try #require(first.tokens.first)
        t1.systemCompleted(token: token, completion: response(201), resumeData: nil)  // writes 2 and 3
        // The report's save landed (read back): the app is told at once.
        #expect(reports.ids == ["a"], "told: its report's save is on disk")
        let onDisk = (try? String(decoding: Data(contentsOf: ledgerFile), as: UTF8.self)) ?? ""

        // The process ends before any other save; two relaunches.
        for _ in 0..<2 {
            let clock = ManualDelayScheduler()
            let system = Attack.LogSystem()
            let t = transfers(module: module(clock: clock), system: system)
            system.list([])
            t.systemEventsFinished()
            clock.advance(by: 61)
        }

        let count = reports.ids.filter { $0 == "a" }.count
        #expect(count == 1, "reported \(count) times; the ledger launch 1 left: \(onDisk)")
        _ = t1
    }

    // MARK: - A careless caller

    @Test(
        "two objects for one identifier (made twice, say on a scene reconnect): the second refuses, no transfer is lost"
    )
    @MainActor
    func twoObjectsForOneIdentifier() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Attack.LogSystem()
        let t1 = claiming(system: first)
        try t1.upload(request: Attack.Upload(file: file()), id: "a")
        let tokenA = try #require(first.tokens.first)
        // The app makes the object again, in the same process: it refuses, and makes no session.
        let second = Attack.LogSystem()
        let t2 = claiming(system: second)
        let refused = #expect(throws: NetworkError.self) {
            try t2.upload(request: Attack.Upload(file: file("b.mp4")), id: "b")
        }
        t2.cancel(id: "a")
        let handedOver = t2.handleEvents(forBackgroundURLSession: "com.example.transfers") {}
        t1.systemCompleted(token: tokenA, completion: response(201), resumeData: nil)

        #expect(refused?.transportFailure?.message?.contains("Another BackgroundTransfers") == true)
        #expect(second.log.value.isEmpty && !handedOver, "the second made no session and took no events")
        #expect(reports.ids == ["a"] && (try? reports.results.first?.get().statusCode) == 201)
    }

    @Test("cancel(id:) of a download that ended interrupted, its report still queued: the resume data is dropped")
    func cancelAfterInterruptedEndBeforeReport() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = Base.FakeSystem()
        let executor = Base.HeldExecutor()
        let t = transfers(module: module(executor: executor), system: system)
        let destination = DownloadDestination(folder.appendingPathComponent("intro.mp4"))
        try t.download(request: Attack.Get(), to: destination, id: "d")
        let token = try #require(system.sent.first?.token)
        var interrupted = response(200)
        interrupted.error = URLError(.networkConnectionLost)
        t.systemCompleted(token: token, completion: interrupted, resumeData: Data("resume-here".utf8))
        // The user cancels as the failure is on its way to the app: "start over next time".
        t.cancel(id: "d")
        for job in executor.jobs.withLock({ jobs in
            defer { jobs = [] }
            return jobs
        }) { job() }

        try t.download(request: Attack.Get(), to: destination, id: "d")

        #expect(reports.ids == ["d"])
        let kind = system.sent.last?.task
        #expect(kind == .download, "sent as \(String(describing: kind))")
        #expect(BackgroundTransferStore(directory: state).resumeData(for: "d") == nil)
    }

    // MARK: - Credentials in resume data

    @Test("resume data holding a credential header does not outlive the reported transfer")
    func resumeDataOutlivesTheTransfer() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = Base.FakeSystem()
        let t = transfers(module: module(actions: [Authorize()]), system: system)
        let destination = DownloadDestination(folder.appendingPathComponent("intro.mp4"))
        try t.download(request: Attack.Get(), to: destination, id: "d")
        let sent = try #require(system.sent.first)
        #expect(sent.request.value(forHTTPHeaderField: "Authorization") == "Bearer s3cr3t-token")
        // Apple's resume data is a plist holding the request, header fields and all.
        let resumeData = Data("<plist>Authorization: Bearer s3cr3t-token</plist>".utf8)
        var interrupted = response(200)
        interrupted.error = URLError(.networkConnectionLost)
        t.systemCompleted(token: sent.token, completion: interrupted, resumeData: resumeData)

        #expect(reports.ids == ["d"], "the transfer ended and was reported: \(describe())")
        let onDisk = fileNames(in: state).filter { $0.hasPrefix("resume-") }.compactMap {
            try? Data(contentsOf: state.appendingPathComponent($0))
        }
        let holdsSecret = onDisk.contains { String(decoding: $0, as: UTF8.self).contains("s3cr3t-token") }
        // None is kept of a request with credentials: it would rest on disk until the ID is
        // downloaded again or cancelled, which an app may never do.
        #expect(!holdsSecret, "a resume-*.data file still holds the bearer token after the report")
    }

    @Test(
        "resume data taken with credentials allowed is not sent by a launch that refuses credentials to follow redirects"
    )
    func resumeDataBypassesTheCredentialsRefusal() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Base.FakeSystem()
        let t1 = transfers(module: module(actions: [Authorize()]), system: first, credentialsMayFollowRedirects: true)
        let destination = DownloadDestination(folder.appendingPathComponent("intro.mp4"))
        try t1.download(request: Attack.Get(), to: destination, id: "d")
        let token = try #require(first.sent.first?.token)
        let resumeData = Data("<plist>Authorization: Bearer s3cr3t-token</plist>".utf8)
        var interrupted = response(200)
        interrupted.error = URLError(.networkConnectionLost)
        t1.systemCompleted(token: token, completion: interrupted, resumeData: resumeData)

        // The next version of the app no longer lets credentials follow the system's redirects,
        // and no longer authorizes this download.
        let second = Base.FakeSystem()
        let t2 = transfers(module: module(), system: second, credentialsMayFollowRedirects: false)
        second.list([])
        try t2.download(request: Attack.Get(), to: destination, id: "d")

        let kind = second.sent.last?.task
        #expect(kind == .download, "handed to the system as \(String(describing: kind))")
        _ = t1
    }
}
