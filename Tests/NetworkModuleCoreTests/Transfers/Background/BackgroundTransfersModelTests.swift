import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Random lives of many background transfers across relaunches (seeded, replayable): uploads,
/// ends, cancels, tasks the system forgets, ledger writes that fail, a ledger locked across a
/// relaunch, drains and timers. Whatever the order, each transfer the app started is reported
/// exactly once by the end.
@Suite("BackgroundTransfersModel", .serialized)
struct BackgroundTransfersModelTests {
    typealias Base = BackgroundTransfersTests
    typealias Attack = BackgroundTransfersAttackTests

    /// One random life; returns what went wrong, or `nil`.
    static let stats = LockedState([String: Int]())

    /// Runs each job on `target`, or at once.
    struct Relay: CompletionExecutor {
        let target: Base.HeldExecutor?
        func execute(_ work: @escaping @Sendable () -> Void) {
            if let target { target.execute(work) } else { work() }
        }
    }

    static func run(
        seed: UInt64, steps: Int, locks: Bool, ambiguous: Bool = false, queued: Bool = false, reuse: Bool = false,
        downloads: Bool = false
    ) throws -> String? {
        var rng = SeededGenerator(seed: seed)
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state")
        let ledgerFile = state.appendingPathComponent("transfers.json")
        let reports = Base.Reports()
        let failing = LockedState(0)
        let seam: @Sendable (Data, URL) -> Bool = { data, url in
            if url.lastPathComponent == "transfers.json",
                failing.withLock({ count in
                    guard count > 0 else { return false }
                    count -= 1
                    return true
                })
            {
                // An ambiguous failure: the file may have been replaced all the same.
                if ambiguous, data.count % 2 == 0 { _ = BackgroundTransferStore.write(data, to: url) }
                return false
            }
            return BackgroundTransferStore.write(data, to: url)
        }
        let file = folder.appendingPathComponent("video.mp4")
        try Data(repeating: 7, count: 100).write(to: file)
        var trace: [String] = []
        var live: [String: String] = [:]  // token -> id: the tasks the system runs
        var started: [String] = []
        /// The starts handed to the system (the others failed unsent, or were cancelled while
        /// prepared): those are on disk, and reach the app whatever happens to the process.
        var handed: [String] = []
        var next = 0
        var lockedData: Data?
        var executor = Base.HeldExecutor()

        /// Runs the module's queued deliveries (a main queue's turn).
        func runJobs() {
            while true {
                let jobs = executor.jobs.withLock { jobs in
                    defer { jobs = [] }
                    return jobs
                }
                if jobs.isEmpty { return }
                for job in jobs { job() }
            }
        }

        func launch() -> (BackgroundTransfers, Attack.LogSystem, ManualDelayScheduler) {
            let system = Attack.LogSystem()
            let clock = ManualDelayScheduler()
            // A process that ends drops what its queue held.
            executor = Base.HeldExecutor()
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
                session: FakeNetworkSession(),
                completionExecutor: Relay(target: queued ? executor : nil),
                delayScheduler: clock)
            let transfers = BackgroundTransfers(
                identifier: "com.example.model", module: module, directory: state, system: system,
                credentialsMayFollowRedirects: true, writesFiles: seam, handler: reports.handler)
            return (transfers, system, clock)
        }
        var (t, system, clock) = launch()
        system.list(Set(live.keys))
        var seenLog = 0
        var seenSent = 0

        /// The system's side of what the object asked: new tasks run, cancelled ones end.
        func sync() {
            let sent = system.sent.value
            for (name, token) in sent[seenSent...] {
                live[token] = name
                handed.append(name)
            }
            seenSent = sent.count
            let log = system.log.value
            for entry in log[seenLog...] where entry.hasPrefix("cancel ") {
                let token = String(entry.dropFirst("cancel ".count))
                if live.removeValue(forKey: token) != nil {
                    t.systemCompleted(
                        token: token,
                        completion: BackgroundTransferOutcome.SystemCompletion(error: URLError(.cancelled)),
                        resumeData: nil)
                }
            }
            seenLog = log.count
        }

        func relaunch() {
            (t, system, clock) = launch()
            seenLog = 0
            seenSent = 0
            system.list(Set(live.keys))
            sync()
        }

        for _ in 0..<steps {
            let op = Int.random(in: 0..<(queued ? 11 : 10), using: &rng)
            switch op {
            case 10:
                trace.append("run queue")
                runJobs()
            case 0, 1:
                next += 1
                var id = "t\(next)"
                // An ID whose every start was reported may be used again.
                if reuse, Bool.random(using: &rng),
                    let old = Set(started).filter({ old in
                        started.filter { $0 == old }.count == reports.ids.filter { $0 == old }.count
                    }).sorted().randomElement(using: &rng)
                {
                    id = old
                }
                trace.append("upload \(id)")
                let began =
                    downloads
                    ? try? t.download(
                        request: Attack.Get(path: "/\(id)"),
                        to: DownloadDestination(folder.appendingPathComponent("\(id).bin")), id: id)
                    : try? t.upload(request: Attack.Upload(file: file, name: id), id: id)
                if began == true { started.append(id) }
            case 2, 3:
                guard let token = live.keys.sorted().randomElement(using: &rng) else { continue }
                trace.append("end \(live[token] ?? "?")")
                let id = live[token] ?? "?"
                live[token] = nil
                if downloads, Bool.random(using: &rng) {
                    trace[trace.count - 1] += " (interrupted)"
                    t.systemCompleted(
                        token: token,
                        completion: BackgroundTransferOutcome.SystemCompletion(error: URLError(.networkConnectionLost)),
                        resumeData: Data("resume-\(id)".utf8))
                    continue
                }
                t.systemCompleted(
                    token: token,
                    completion: BackgroundTransferOutcome.SystemCompletion(
                        response: HTTPURLResponse(
                            url: URL(string: "https://api.example.com/v2/x")!, statusCode: 201, httpVersion: nil,
                            headerFields: [:]), bytesSent: 100, bytesReceived: 2),
                    resumeData: nil)
            case 4:
                guard let id = started.randomElement(using: &rng) else { continue }
                trace.append("cancel \(id)")
                t.cancel(id: id)
            case 5:
                let count = Int.random(in: 1...2, using: &rng)
                trace.append("fail next \(count) writes")
                failing.withLock { $0 = count }
            case 6:
                var note = "relaunch"
                if locks, lockedData == nil, Bool.random(using: &rng),
                    let data = try? Data(contentsOf: ledgerFile)
                {
                    try FileManager.default.removeItem(at: ledgerFile)
                    try FileManager.default.createDirectory(at: ledgerFile, withIntermediateDirectories: false)
                    lockedData = data
                    note += " (locked)"
                }
                trace.append(note)
                relaunch()
            case 7:
                trace.append("drain")
                t.systemEventsFinished()
            case 8:
                if let data = lockedData, Bool.random(using: &rng) {
                    trace.append("unlock")
                    try FileManager.default.removeItem(at: ledgerFile)
                    try data.write(to: ledgerFile)
                    lockedData = nil
                } else {
                    trace.append("advance 31")
                }
                clock.advance(by: 31)
            default:
                guard let token = live.keys.sorted().randomElement(using: &rng) else { continue }
                trace.append("system forgets \(live[token] ?? "?")")
                live[token] = nil
            }
            sync()
            if ProcessInfo.processInfo.environment["MODEL_DEBUG"] == "\(seed)" {
                let disk = (try? String(decoding: Data(contentsOf: ledgerFile), as: UTF8.self)) ?? "(none)"
                let ids = disk.components(separatedBy: "\"id\":\"").dropFirst().map { $0.prefix(3) }
                print("DEBUG \(trace.last ?? ""): disk \(ids) reports \(reports.ids) live \(live.values.sorted())")
            }
        }
        // The end: the disk works, the file can be read, every task ends, two relaunches drain.
        failing.withLock { $0 = 0 }
        if let data = lockedData {
            try FileManager.default.removeItem(at: ledgerFile)
            try data.write(to: ledgerFile)
            trace.append("unlock")
        }
        clock.advance(by: 31)
        runJobs()
        for (token, _) in live.sorted(by: { $0.key < $1.key }) {
            t.systemCompleted(
                token: token, completion: BackgroundTransferOutcome.SystemCompletion(error: URLError(.timedOut)),
                resumeData: nil)
        }
        live = [:]
        runJobs()
        for _ in 0..<2 {
            relaunch()
            runJobs()
            t.systemEventsFinished()
            runJobs()
            clock.advance(by: 61)
            runJobs()
        }
        stats.withLock {
            $0["started", default: 0] += started.count
            $0["reports", default: 0] += reports.ids.count
            $0["locked relaunches", default: 0] += trace.filter { $0.hasSuffix("(locked)") }.count
            $0["unsent", default: 0] +=
                reports.results.filter { $0.error?.transportFailure?.code == .cannotWriteToFile }.count
            $0["cancelled", default: 0] += reports.results.filter { $0.error == .cancelled }.count
            $0["successes", default: 0] += reports.results.filter { (try? $0.get()) != nil }.count
        }
        var problems: [String] = []
        // No resume data file that the ledger on disk does not name (it holds header fields).
        let store = BackgroundTransferStore(directory: state)
        let named = Set(
            (store.load().persisted?.resumeData ?? []).map { store.resumeDataURL(for: $0).lastPathComponent })
        let files = Set(
            ((try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []).filter {
                $0.hasPrefix("resume-")
            })
        stats.withLock { $0["resume files at the end", default: 0] += files.count }
        if !files.isSubset(of: named) {
            problems.append("orphaned resume data: \(files.subtracting(named).count) file(s)")
        }
        for id in Set(started + reports.ids).sorted() {
            let count = reports.ids.filter { $0 == id }.count
            // A start never handed to the system is told through the module's queue only: a
            // process that ends first drops it (its transfer was never sent).
            if count > started.filter({ $0 == id }).count || count < handed.filter({ $0 == id }).count {
                let results = reports.all.value.filter { $0.id == id }.map { "\($0.result)".prefix(120) }
                problems.append("\(id): started \(started.contains(id)), reported \(count) times \(results)")
            }
        }
        return problems.isEmpty ? nil : "seed \(seed): \(problems.joined(separator: "; "))\n  trace: \(trace)"
    }

    @Test(
        "random lives (failed writes, a ledger locked across relaunches): each transfer reported once",
        arguments: [false, true])
    func randomLives(locks: Bool) throws {
        var failures: [String] = []
        for seed in 1...150 {
            if let failure = try Self.run(seed: UInt64(seed), steps: 30, locks: locks) { failures.append(failure) }
        }
        print(
            "model stats (locks \(locks)):",
            Self.stats.withLock { stats in
                defer { stats = [:] }
                return stats
            })
        #expect(failures.isEmpty, "\(failures.count) of 150 lives: \(failures.prefix(3).joined(separator: "\n"))")
    }

    @Test("random lives with writes that may land though they report failure: each transfer reported once")
    func randomLivesAmbiguousWrites() throws {
        var failures: [String] = []
        for seed in 1...150 {
            if let failure = try Self.run(seed: UInt64(seed), steps: 30, locks: true, ambiguous: true) {
                failures.append(failure)
            }
        }
        print(
            "model stats (ambiguous):",
            Self.stats.withLock { stats in
                defer { stats = [:] }
                return stats
            })
        #expect(failures.isEmpty, "\(failures.count) of 150 lives: \(failures.prefix(3).joined(separator: "\n"))")
    }

    @Test(
        "random lives, results on a queue a process end drops, IDs used again: each start the system got reported once, none twice"
    )
    func randomLivesQueued() throws {
        var failures: [String] = []
        for seed in 1...150 {
            if let failure = try Self.run(seed: UInt64(seed), steps: 30, locks: true, queued: true, reuse: true) {
                failures.append(failure)
            }
        }
        print(
            "model stats (queued):",
            Self.stats.withLock { stats in
                defer { stats = [:] }
                return stats
            })
        #expect(failures.isEmpty, "\(failures.count) of 150 lives: \(failures.prefix(3).joined(separator: "\n"))")
    }

    @Test("random lives of downloads, some interrupted with resume data: each reported once, no resume data orphaned")
    func randomDownloads() throws {
        var failures: [String] = []
        for seed in 1...150 {
            if let failure = try Self.run(
                seed: UInt64(seed), steps: 30, locks: true, queued: true, reuse: true, downloads: true)
            {
                failures.append(failure)
            }
        }
        print(
            "model stats (downloads):",
            Self.stats.withLock { stats in
                defer { stats = [:] }
                return stats
            })
        #expect(failures.isEmpty, "\(failures.count) of 150 lives: \(failures.prefix(3).joined(separator: "\n"))")
    }
}
