import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Adversarial checks of the promises of issue 39, items 1-5 (commit b5fdfa1). Each test asserts
/// the promise: a test that fails is a break, one that passes held.
@Suite("BackgroundTransfersAttack", .serialized)
struct BackgroundTransfersAttackTests {
    typealias Base = BackgroundTransfersTests

    /// The system's side, logging every call in order ("send <token>", "cancel <token>").
    final class LogSystem: BackgroundTaskSystem {
        let log = LockedState<[String]>([])
        let sent = LockedState<[(id: String, token: String)]>([])
        let listing = LockedState<(@Sendable (Set<String>) -> Void)?>(nil)
        func attach(to owner: BackgroundTransfers) {}
        func send(_ request: URLRequest, as task: BackgroundTaskKind, token: String) {
            log.withLock { $0.append("send \(token)") }
            sent.withLock { $0.append((request.url?.lastPathComponent ?? "", token)) }
        }
        func cancel(token: String) { log.withLock { $0.append("cancel \(token)") } }
        func listTokens(_ completion: @escaping @Sendable (Set<String>) -> Void) {
            listing.withLock { $0 = completion }
        }
        func list(_ tokens: Set<String>) { listing.value?(tokens) }
        var tokens: [String] { sent.value.map(\.token) }
    }

    /// A write seam that can hold the next ledger write (the store's lock is held meanwhile),
    /// fail writes, or write and still report failure.
    final class Gate: Sendable {
        enum Mode { case pass, fail, writeButReportFailure }
        let mode = LockedState(Mode.pass)
        let holdNext = LockedState(false)
        let ledgerWrites = LockedState(0)
        /// Fail (with `mode`) only the ledger write with this ordinal (1-based), if set.
        let failOnly = LockedState<Int?>(nil)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        var seam: @Sendable (Data, URL) -> Bool {
            { data, url in
                let isLedger = url.lastPathComponent == "transfers.json"
                if isLedger,
                    self.holdNext.withLock({ held in
                        defer { held = false }
                        return held
                    })
                {
                    self.entered.signal()
                    self.release.wait()
                }
                var mode = self.mode.value
                if isLedger {
                    let n = self.ledgerWrites.withLock {
                        $0 += 1
                        return $0
                    }
                    if let only = self.failOnly.value { mode = n == only ? mode : .pass }
                }
                switch mode {
                case .pass: return BackgroundTransferStore.write(data, to: url)
                case .fail: return false
                case .writeButReportFailure:
                    _ = BackgroundTransferStore.write(data, to: url)
                    return false
                }
            }
        }
    }

    /// Counts the actions' hooks per transfer (by the sent request's last path component or the
    /// network request's ID).
    final class CountingAction: NetworkModuleAction {
        let didFinish = LockedState(0)
        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            didFinish.withLock { $0 += 1 }
        }
    }

    struct Upload: NetworkRequest {
        let file: URL
        var name = "videos"
        var path: String { "/\(name)" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .file(file, contentType: "video/mp4") }
    }

    struct Get: NetworkRequest {
        var path: String = "/videos/7/file"
    }

    let folder: URL
    let reports = Base.Reports()
    let counter = CountingAction()

    init() throws { folder = try makeTemporaryFolder() }

    var state: URL { folder.appendingPathComponent("state") }
    var ledgerFile: URL { state.appendingPathComponent("transfers.json") }

    func module(
        actions: [any NetworkModuleAction]? = nil, executor: some CompletionExecutor = .immediate,
        clock: ManualDelayScheduler? = nil
    ) -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: FakeNetworkSession(), actions: actions ?? [counter], completionExecutor: executor,
            delayScheduler: clock ?? ManualDelayScheduler())
    }

    func transfers(
        module: DefaultNetworkModule? = nil, system: LogSystem, writes: (@Sendable (Data, URL) -> Bool)? = nil
    ) -> BackgroundTransfers {
        BackgroundTransfers(
            identifier: "com.example.transfers", module: module ?? self.module(), directory: state, system: system,
            credentialsMayFollowRedirects: true, writesFiles: writes, handler: reports.handler)
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

    func count(_ id: String) -> Int { reports.ids.filter { $0 == id }.count }

    func resumeFiles() -> [String] {
        fileNames(in: state).filter { $0.hasPrefix("resume-") }
    }

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

    static func isBodyEncodingFailed(_ error: NetworkError?) -> Bool {
        if case .invalidRequest(.bodyEncodingFailed)? = error { return true }
        return false
    }

    // MARK: - Item 1: the upload file after the actions

    /// The file is swapped for `replace` while an asynchronous action runs.
    func uploadAfterSwap(_ replace: (URL) throws -> Void) throws -> (LogSystem, Base.LaterAction) {
        let later = Base.LaterAction()
        let system = LogSystem()
        let t = transfers(module: module(actions: [later, counter]), system: system)
        let video = try file()
        try t.upload(request: Upload(file: video), id: "a")
        try FileManager.default.removeItem(at: video)
        try replace(video)
        later.release()
        return (system, later)
    }

    @Test("item 1: file replaced by a directory after the actions: bodyEncodingFailed, unsent, once")
    func uploadFileBecameDirectory() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (system, _) = try uploadAfterSwap {
            try FileManager.default.createDirectory(at: $0, withIntermediateDirectories: false)
        }
        #expect(system.tokens.isEmpty)
        #expect(reports.ids == ["a"] && Self.isBodyEncodingFailed(reports.results.first?.error))
        #expect(counter.didFinish.value == 1)
    }

    @Test("item 1: file replaced by a FIFO after the actions: no hang, bodyEncodingFailed, unsent")
    func uploadFileBecameFIFO() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (system, _) = try uploadAfterSwap { #expect(mkfifo($0.path, 0o644) == 0) }
        #expect(system.tokens.isEmpty)
        #expect(reports.ids == ["a"] && Self.isBodyEncodingFailed(reports.results.first?.error))
    }

    @Test("item 1: file replaced by a symlink to /dev/zero after the actions: bodyEncodingFailed, unsent")
    func uploadFileBecameSymlinkToDevZero() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (system, _) = try uploadAfterSwap {
            try FileManager.default.createSymbolicLink(atPath: $0.path, withDestinationPath: "/dev/zero")
        }
        #expect(system.tokens.isEmpty)
        #expect(reports.ids == ["a"] && Self.isBodyEncodingFailed(reports.results.first?.error))
    }

    @Test("item 1: file replaced by a dangling symlink after the actions: bodyEncodingFailed, unsent")
    func uploadFileBecameDanglingSymlink() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (system, _) = try uploadAfterSwap {
            try FileManager.default.createSymbolicLink(atPath: $0.path, withDestinationPath: "/nonexistent/x")
        }
        #expect(system.tokens.isEmpty)
        #expect(reports.ids == ["a"] && Self.isBodyEncodingFailed(reports.results.first?.error))
    }

    @Test("item 1: file removed with no action delay (removed after build, during a sync action)")
    func uploadFileRemovedDuringSyncAction() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        final class Remover: NetworkModuleAction {
            let file: URL
            init(file: URL) { self.file = file }
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
                try? FileManager.default.removeItem(at: file)
            }
        }
        let system = LogSystem()
        let video = try file()
        let t = transfers(module: module(actions: [Remover(file: video), counter]), system: system)
        try t.upload(request: Upload(file: video), id: "a")
        #expect(system.tokens.isEmpty)
        #expect(reports.ids == ["a"] && Self.isBodyEncodingFailed(reports.results.first?.error))
        #expect(
            !fileNames(in: state).contains("transfers.json")
                || (try? Data(contentsOf: ledgerFile)).map {
                    !String(decoding: $0, as: UTF8.self).contains("\"a\"")
                } == true)
    }

    // MARK: - Item 2: a locked or damaged ledger

    @Test(
        "item 2: an end delivered while the ledger is locked, then the process ends before the unlock: reported once, lost"
    )
    func lockedEndSurvivesProcessDeath() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = LogSystem()
        let t1 = transfers(system: first)
        try t1.upload(request: Upload(file: file()), id: "a")
        let token = try #require(first.tokens.first)
        let saved = try lockLedger()

        // Relaunch 2, before the first unlock: the system delivers the end (and considers it delivered).
        let second = LogSystem()
        let t2 = transfers(system: second)
        second.list([])
        t2.systemCompleted(token: token, completion: response(201), resumeData: nil)
        // Process 2 is suspended and killed before the device is unlocked.

        try unlockLedger(saved)
        let clock = ManualDelayScheduler()
        let third = LogSystem()
        let t3 = transfers(module: module(clock: clock), system: third)
        third.list([])  // the system delivered the end already: the task is gone
        t3.systemEventsFinished()
        clock.advance(by: 61)

        // The documented limit (docs/transfers.md, "A ledger that cannot be read"): nothing can be
        // written before the first unlock, so the end lives in memory only; once the process is
        // gone, the transfer is reported, once, as lost, and never as a success it cannot prove.
        #expect(count("a") == 1)
        #expect(reports.results.first?.error?.transportFailure?.code == .backgroundSessionWasDisconnected)
        _ = (t1, t2)
    }

    @Test("item 2: locked at two relaunches in a row, then read: cancels only the stray, reports once")
    func lockedTwiceThenRead() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = LogSystem()
        let t1 = transfers(system: first)
        try t1.upload(request: Upload(file: file()), id: "a")
        let token = try #require(first.tokens.first)
        let saved = try lockLedger()

        let s2 = LogSystem()
        let t2 = transfers(system: s2)
        s2.list([token, "stray"])
        let s3 = LogSystem()
        let clock = ManualDelayScheduler()
        let t3 = transfers(module: module(clock: clock), system: s3)
        s3.list([token, "stray"])
        clock.advance(by: 30)  // still locked: reload re-armed
        try unlockLedger(saved)
        clock.advance(by: 30)  // reload reads
        clock.advance(by: 30)  // a second reload must do nothing
        t3.systemCompleted(token: token, completion: response(201), resumeData: nil)
        clock.advance(by: 120)

        #expect(s2.log.value.isEmpty)
        #expect(s3.log.value == ["cancel stray"])
        #expect(count("a") == 1 && counter.didFinish.value == 1)
        #expect((try? reports.results.first?.get().statusCode) == 201)
        _ = (t1, t2)
    }

    @Test("item 2: ends kept while locked for tokens the file does not name: dropped, no resume data, no delivery")
    func pendingEndsForUnknownTokens() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = LogSystem()
        let t1 = transfers(system: first)
        try t1.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("out")), id: "d")
        let token = try #require(first.tokens.first)
        let saved = try lockLedger()

        let s2 = LogSystem()
        let clock = ManualDelayScheduler()
        let t2 = transfers(module: module(clock: clock), system: s2)
        s2.list([token, "ghost"])
        var interrupted = response(200)
        interrupted.error = URLError(.networkConnectionLost)
        t2.systemCompleted(token: "ghost", completion: interrupted, resumeData: Data("ghost-headers".utf8))
        t2.systemCompleted(token: token, completion: interrupted, resumeData: Data("d-resume".utf8))
        try unlockLedger(saved)
        clock.advance(by: 30)
        clock.advance(by: 60)

        #expect(reports.ids == ["d"])
        #expect(s2.log.value == ["cancel ghost"])
        // One resume data file: d's, named by the ledger.
        let store = BackgroundTransferStore(directory: state)
        #expect(resumeFiles().count == 1)
        #expect(store.resumeData(for: "d") == Data("d-resume".utf8))
        _ = t1
    }

    @Test("item 2: a damaged ledger's transfers are not cancelled silently at the next relaunch either")
    func damagedThenRelaunchCancels() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = LogSystem()
        let t1 = transfers(system: first)
        try t1.upload(request: Upload(file: file()), id: "a")
        let token = try #require(first.tokens.first)
        try Data("{not json".utf8).write(to: ledgerFile)

        let s2 = LogSystem()
        let t2 = transfers(system: s2)
        s2.list([token])
        try t2.upload(request: Upload(file: file("b.mp4")), id: "b")  // the app goes on: a ledger is saved
        let s3 = LogSystem()
        let t3 = transfers(system: s3)
        s3.list(Set([token] + s2.tokens))

        #expect(s2.log.value.filter { $0.hasPrefix("cancel") }.isEmpty)
        #expect(s3.log.value.isEmpty, "relaunch 3 cancelled the damaged ledger's task silently: \(s3.log.value)")
        #expect(!reports.ids.contains("a"))
        _ = (t1, t3)
    }

    // MARK: - Item 3: unlisted transfers

    @Test("item 3: a transfer of THIS launch missing from the listing is not lost; its end is delivered once")
    func thisLaunchUnlisted() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualDelayScheduler()
        let system = LogSystem()
        let t = transfers(module: module(clock: clock), system: system)
        try t.upload(request: Upload(file: file()), id: "a")
        system.list([])
        t.systemEventsFinished()
        clock.advance(by: 120)
        #expect(reports.ids.isEmpty)
        t.systemCompleted(token: system.tokens[0], completion: response(201), resumeData: nil)
        #expect(count("a") == 1 && (try? reports.results.first?.get().statusCode) == 201)
    }

    @Test(
        "item 3: every order of listing, completion, eventsDrained and grace: exactly once, real result when the end comes first"
    )
    func everyOrder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = ["list", "complete", "drain", "grace"]
        func permutations(_ a: [String]) -> [[String]] {
            a.count <= 1
                ? [a]
                : a.indices.flatMap { i in
                    permutations(Array(a[..<i] + a[(i + 1)...])).map { [a[i]] + $0 }
                }
        }
        for order in permutations(events) {
            let sub = try makeTemporaryFolder()
            defer { try? FileManager.default.removeItem(at: sub) }
            let reports = Base.Reports()
            func make(_ system: LogSystem, _ clock: ManualDelayScheduler) -> BackgroundTransfers {
                BackgroundTransfers(
                    identifier: "x", module: module(clock: clock), directory: sub, system: system,
                    credentialsMayFollowRedirects: true, handler: reports.handler)
            }
            let s1 = LogSystem()
            let t1 = make(s1, ManualDelayScheduler())
            try t1.upload(request: Upload(file: file()), id: "a")
            let token = s1.tokens[0]
            let s2 = LogSystem()
            let clock = ManualDelayScheduler()
            let t2 = make(s2, clock)
            var completedBeforeLost = false
            for event in order {
                switch event {
                case "list": s2.list([])  // a force-quit: the task is gone, its end may still come
                case "complete":
                    completedBeforeLost = reports.ids.isEmpty
                    t2.systemCompleted(token: token, completion: response(201), resumeData: nil)
                case "drain": t2.systemEventsFinished()
                default: clock.advance(by: 60)
                }
            }
            clock.advance(by: 600)
            #expect(reports.ids == ["a"], "order \(order): \(reports.ids)")
            if completedBeforeLost {
                #expect((try? reports.results.first?.get().statusCode) == 201, "order \(order)")
            }
            #expect(s2.log.value.filter { $0.hasPrefix("cancel") }.isEmpty, "order \(order)")
            _ = t1
        }
    }

    @Test("item 3: cancel while unlisted: .cancelled once, the late end and the grace timer deliver nothing")
    func cancelWhileUnlisted() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let s1 = LogSystem()
        let t1 = transfers(system: s1)
        try t1.upload(request: Upload(file: file()), id: "a")
        let token = s1.tokens[0]
        let clock = ManualDelayScheduler()
        let s2 = LogSystem()
        let t2 = transfers(module: module(clock: clock), system: s2)
        s2.list([])
        t2.cancel(id: "a")
        t2.systemCompleted(token: token, completion: response(201), resumeData: nil)
        clock.advance(by: 61)
        t2.systemEventsFinished()
        _ = transfers(system: LogSystem())
        #expect(reports.results.map(\.error) == [.cancelled])
        #expect(counter.didFinish.value == 1)
        _ = t1
    }

    // MARK: - Item 4: exactly once whatever the disk does

    /// Upload "a", end it with 201, deliver; the `k`-th ledger write behaves as `mode`. Then two
    /// relaunches, each listing nothing and draining. Returns (deliveries of a, didFinish calls).
    func scenario(failing k: Int, mode: Gate.Mode) throws -> (Int, Int) {
        let gate = Gate()
        gate.mode.withLock { $0 = mode }
        gate.failOnly.withLock { $0 = k }
        let s1 = LogSystem()
        let t1 = transfers(system: s1, writes: gate.seam)
        try t1.upload(request: Upload(file: file()), id: "a")
        if let token = s1.tokens.first {
            t1.systemCompleted(token: token, completion: response(201), resumeData: nil)
        }
        // The first process ends; two relaunches.
        for _ in 0..<2 {
            let clock = ManualDelayScheduler()
            let s = LogSystem()
            let t = transfers(module: module(clock: clock), system: s)
            s.list([])
            t.systemEventsFinished()
            clock.advance(by: 61)
        }
        return (count("a"), counter.didFinish.value)
    }

    @Test(
        "item 4: each ledger save failing once (prepared, completed, reporting), then relaunches: once",
        arguments: 1...3)
    func failEachSave(k: Int) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (deliveries, finishes) = try scenario(failing: k, mode: .fail)
        #expect(deliveries == 1, "save #\(k) failed: delivered \(deliveries) times: \(reports.results)")
        #expect(finishes == 1)
    }

    @Test(
        "item 4: a save that reaches the disk but reports failure (prepared, completed, reporting): once",
        arguments: 1...3)
    func ambiguousSave(k: Int) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (deliveries, finishes) = try scenario(failing: k, mode: .writeButReportFailure)
        #expect(deliveries == 1, "save #\(k) landed but failed: delivered \(deliveries) times: \(reports.results)")
        #expect(finishes == 1)
    }

    @Test("item 4: a failed 'prepared' save racing another transfer's save: the unsent transfer is reported once")
    func notSavedRacingAnotherSave() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let gate = Gate()
        let s1 = LogSystem()
        let t1 = transfers(system: s1, writes: gate.seam)
        let b = try file("b.mp4")
        let c = try file("c.mp4")
        gate.holdNext.withLock { $0 = true }
        gate.mode.withLock { $0 = .fail }
        gate.failOnly.withLock { $0 = 1 }  // only b's 'prepared' save fails (a transient failure)
        let group = DispatchGroup()
        group.enter()
        Thread {
            _ = try? t1.upload(request: Upload(file: b, name: "b"), id: "b")
            group.leave()
        }.start()
        #expect(await gate.entered.signalled(within: 30))
        // While b's save is on its way to failing, c is prepared: its snapshot names b as sent.
        group.enter()
        Thread {
            _ = try? t1.upload(request: Upload(file: c, name: "c"), id: "c")
            group.leave()
        }.start()
        // c's snapshot, taken with its `prepared`, names b as sent: its save follows b's failing one.
        let cPrepared = await TransferTestSupport.waitUntil(within: 30) {
            t1.ledger.withLock { $0.persisted.transfers.contains { $0.id == "c" } }
        }
        #expect(cPrepared)
        gate.release.signal()
        #expect(await group.emptied(within: 30))
        print(
            "race: ledger after the race:", (try? String(contentsOf: ledgerFile, encoding: .utf8)) ?? "none", "writes",
            gate.ledgerWrites.value, reports.ids)
        #expect(s1.sent.value.map(\.id) == ["c"])
        #expect(count("b") == 1)

        // The process ends before any other save; relaunch.
        let clock = ManualDelayScheduler()
        let s2 = LogSystem()
        let t2 = transfers(module: module(clock: clock), system: s2)
        s2.list(Set(s1.tokens))
        t2.systemEventsFinished()
        clock.advance(by: 61)

        #expect(
            count("b") == 1,
            "b (never sent) was reported \(count("b")) times: \(reports.all.value.map { "\($0.id): \($0.result)" })"
        )
        #expect(counter.didFinish.value == 1 + count("c"))
    }

    @Test("item 4: cancel during .reporting (held executor) changes nothing: the real result, once")
    func cancelDuringReporting() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let held = Base.HeldExecutor()
        let s = LogSystem()
        let t = transfers(module: module(executor: held), system: s)
        try t.upload(request: Upload(file: file()), id: "a")
        t.systemCompleted(token: s.tokens[0], completion: response(201), resumeData: nil)
        t.cancel(id: "a")
        for job in held.jobs.withLock({ $0 }) { job() }
        t.cancel(id: "a")
        for job in held.jobs.withLock({ $0 }).dropFirst() { job() }
        _ = transfers(system: LogSystem())
        #expect(count("a") == 1 && (try? reports.results.first?.get().statusCode) == 201)
        #expect(counter.didFinish.value == 1)
    }

    // MARK: - Races

    @Test("races: a cancel racing the hand-off never lets the system run a transfer reported cancelled")
    func cancelRacingSend() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var broken: [String] = []
        for round in 0..<300 {
            let sub = try makeTemporaryFolder()
            defer { try? FileManager.default.removeItem(at: sub) }
            let reports = Base.Reports()
            let system = LogSystem()
            let t = BackgroundTransfers(
                identifier: "x", module: module(actions: []), directory: sub, system: system,
                credentialsMayFollowRedirects: true, handler: reports.handler)
            let video = try file()
            let stop = LockedState(false)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                while !stop.value && reports.ids.isEmpty { t.cancel(id: "a") }
            }
            DispatchQueue.global().async(group: group) {
                _ = try? t.upload(request: Upload(file: video), id: "a")
                // Without actions, the hand-off happens inside `upload`: the cancels have raced
                // all of it.
                stop.withLock { $0 = true }
            }
            group.wait()
            let log = system.log.value
            if reports.results.first?.error == .cancelled, let token = system.tokens.first,
                let sendAt = log.firstIndex(of: "send \(token)"),
                log.firstIndex(of: "cancel \(token)").map({ $0 < sendAt }) ?? true
            {
                broken.append("round \(round): \(log)")
            }
        }
        #expect(broken.isEmpty, "the system ran transfers the app was told were cancelled: \(broken.prefix(3))")
    }

    @Test("races: cancel vs completion vs drain on many threads: each ID once, didFinish once, no stray resume data")
    func stressCancelVersusCompletion() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = LogSystem()
        let t = transfers(system: system)
        let n = 200
        for i in 0..<n {
            try t.download(
                request: Get(), to: DownloadDestination(folder.appendingPathComponent("out-\(i)")), id: "d\(i)")
        }
        let tokens = system.sent.value.map(\.token)
        var interrupted = response(200)
        interrupted.error = URLError(.networkConnectionLost)
        let completion = interrupted
        DispatchQueue.concurrentPerform(iterations: n * 3) { k in
            let i = k / 3
            switch k % 3 {
            case 0: t.cancel(id: "d\(i)")
            case 1: t.systemCompleted(token: tokens[i], completion: completion, resumeData: Data("r\(i)".utf8))
            default: t.systemEventsFinished()
            }
        }
        for i in 0..<n { #expect(count("d\(i)") == 1, "d\(i) delivered \(count("d\(i)")) times") }
        #expect(counter.didFinish.value == n)
        let persisted = BackgroundTransferStore(directory: state).load().persisted
        #expect(persisted?.transfers.isEmpty == true)
        let named = Set(
            (persisted?.resumeData ?? []).map {
                BackgroundTransferStore(directory: state).resumeDataURL(for: $0).lastPathComponent
            })
        #expect(
            Set(resumeFiles()).isSubset(of: named),
            "resume data no entry names: \(Set(resumeFiles()).subtracting(named).count)")
        // Every ID cancelled after its end kept... and every ID cancelled before it has no resume data.
        let cancelled = reports.all.value.filter { $0.result.error == .cancelled }.map(\.id)
        for id in cancelled {
            #expect(persisted?.resumeData.contains(id) != true, "\(id) reported cancelled keeps resume data")
        }
    }
}
