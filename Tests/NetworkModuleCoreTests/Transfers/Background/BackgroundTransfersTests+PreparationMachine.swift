import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Background preparation on the request state machine (one attempt), probed by a tester who
/// did not write it: a cancel while a hook runs, the deadline after a cancel, timeouts an action
/// writes, and a completion racing the deadline racing `cancel(id:)`. The two breaks it found
/// (a cancel while a hook runs, and the deadline after a cancel) are fixed: `cancel(id:)` cancels
/// the preparation's machine.
extension BackgroundTransfersTests {
    /// Shared log of hook events, across actions.
    final class HookLog: Sendable {
        let entries = LockedState<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    }

    /// A synchronous `prepare` that blocks until the test lets it go.
    final class BlockingAction: NetworkModuleAction {
        let log: HookLog
        let entered = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)

        init(log: HookLog) { self.log = log }

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            log.add("prepare-begin")
            entered.signal()
            go.wait()
            log.add("prepare-end")
            completion(.success(urlRequest))
        }

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            log.add("didFinish")
        }
    }

    /// A request as a class, to watch with a weak reference what the preparation keeps.
    final class ClassGet: NetworkRequest, @unchecked Sendable {
        var path: String { "/videos/7/file" }
        var timeout: TimeInterval? { 5 }
    }

    @Test(
        "cancel(id:) while an action's prepare runs: didFinish waits for that hook to return (docs/actions.md: none is running when it starts)"
    )
    func backgroundCancelWhileAHookRuns() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = HookLog()
        let blocking = BlockingAction(log: log)
        let transfers = transfers(module: module(actions: [blocking], clock: ManualDelayScheduler()))
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? transfers.download(request: Get(), to: destination, id: "a")
            started.signal()
        }
        blocking.entered.wait()
        transfers.cancel(id: "a")
        blocking.go.signal()
        started.wait()

        print("cancel while a hook runs: log=\(log.entries.value) reports=\(reports.ids) sent=\(system.sent.count)")
        #expect(reports.ids == ["a"])
        #expect(system.sent.isEmpty)
        #expect(log.entries.value == ["prepare-begin", "prepare-end", "didFinish"])
    }

    @Test(
        "cancel(id:) during preparation: the deadline is cancelled and the preparation keeps nothing once the action lets go of its completion"
    )
    func backgroundCancelReleasesTheDeadline() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let later = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        // No recording action: it keeps the contexts (and so the request) it sees.
        let transfers = transfers(module: module(actions: [later], clock: clock))
        weak var weakRequest: ClassGet?
        try {
            let request = ClassGet()
            weakRequest = request
            try transfers.download(
                request: request, to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        }()
        let pendingBefore = clock.pendingCount

        transfers.cancel(id: "a")
        later.completions.withLock { $0.removeAll() }  // the action gives up, never completing
        let pendingAfter = clock.pendingCount
        let alive = weakRequest != nil

        print(
            "cancel releases: pending before=\(pendingBefore) after=\(pendingAfter) requestAlive=\(alive) reports=\(reports.ids)"
        )
        #expect(reports.ids == ["a"])
        #expect(pendingBefore == 1)
        #expect(pendingAfter == 0)
        #expect(!alive)
        clock.runAll()
        #expect(reports.ids == ["a"])
        #expect(weakRequest == nil)
    }

    @Test(
        "an action that writes a timeout that is not one (0, -1, NaN, ±inf, 1e-300, 1e10): no crash, one report, no send",
        arguments: [0, -1, .nan, .infinity, -.infinity, 1e-300, 1e10] as [TimeInterval]
    )
    func backgroundActionWrittenTimeout(timeout: TimeInterval) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        struct Rewrite: NetworkModuleAction {
            let timeout: TimeInterval
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
                urlRequest.timeoutInterval = timeout
            }
        }
        let never = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [Rewrite(timeout: timeout), never, action], clock: clock))
        try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        let delays = clock.requestedDelays

        clock.advance(by: 61)
        clock.runAll()

        print(
            "written timeout \(timeout): delays=\(delays) reports=\(reports.ids) errors=\(reports.results.map(\.error))"
        )
        #expect(system.sent.isEmpty)
        if timeout == 1e10 {
            #expect(reports.ids.isEmpty)
            #expect(clock.pendingCount == 0)
        } else {
            #expect(reports.ids == ["a"])
            #expect(reports.results.first?.error == .timedOut)
            #expect(action.hooks.value == ["didFinish"])
        }
    }

    @Test(
        "an action that completes with a failure then a success inside prepare: one report, the failure, nothing sent, ID reusable"
    )
    func backgroundInlineFailureThenSuccess() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        struct Flaky: NetworkModuleAction {
            func prepare(
                _ urlRequest: URLRequest, context: ActionContext,
                completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
            ) {
                completion(.failure(URLError(.notConnectedToInternet)))
                completion(.success(urlRequest))
                completion(.success(urlRequest))
            }
        }
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [Flaky(), action], clock: clock))
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        try transfers.download(request: Get(), to: destination, id: "a")

        print(
            "inline failure then success: reports=\(reports.ids) sent=\(system.sent.count) pending=\(clock.pendingCount)"
        )
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error != nil)
        #expect(system.sent.isEmpty)
        #expect(clock.pendingCount == 0)
        #expect(action.hooks.value == ["didFinish"])
        #expect(try transfers.download(request: Get(), to: destination, id: "a"))
    }

    @Test(
        "stress: an action's completion, the deadline and cancel(id:) on three threads, 200 rounds: one report, didFinish once"
    )
    func backgroundPreparationRaceStress() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var bad: [String] = []
        for round in 0..<200 {
            let later = HeldCompletionAction()
            let recorder = RecordingAction()
            let clock = ManualDelayScheduler()
            let fakeSystem = FakeSystem()
            let roundReports = Reports()
            let roundFolder = folder.appendingPathComponent("r\(round)")
            let transfers = BackgroundTransfers(
                identifier: "com.example.transfers", module: module(actions: [later, recorder], clock: clock),
                directory: roundFolder.appendingPathComponent("state"), system: fakeSystem,
                serverTrust: .system, credentialHeaderNames: [], credentialsMayFollowRedirects: true,
                writesFiles: nil, handler: roundReports.handler)
            try transfers.download(
                request: TimedGet(timeout: 5), to: DownloadDestination(roundFolder.appendingPathComponent("v")),
                id: "a")
            let request = URLRequest(url: URL(string: "https://api.example.com/v2/videos/7/file")!)
            let group = DispatchGroup()
            let cancels = round % 3 != 0
            DispatchQueue.global().async(group: group) { later.complete(request) }
            DispatchQueue.global().async(group: group) { clock.advance(by: 6) }
            if cancels { DispatchQueue.global().async(group: group) { transfers.cancel(id: "a") } }
            group.wait()
            clock.runAll()
            let sent = fakeSystem.sent.count
            let ids = roundReports.ids
            let finishes = recorder.hooks.value.filter { $0 == "didFinish" }.count
            // Sent and not cancelled: no report yet. Otherwise one report, one didFinish.
            let ok =
                sent == 1 && !cancels
                ? ids.isEmpty && finishes == 0
                : ids == ["a"] && finishes == 1 && sent <= 1
            if !ok { bad.append("round \(round): sent=\(sent) ids=\(ids) finishes=\(finishes) cancels=\(cancels)") }
        }
        print("stress: \(bad.count) bad rounds \(bad.prefix(5))")
        #expect(bad.isEmpty)
    }
}

extension BackgroundTransfersTests {
    @Test(
        "a header-field action on the shared table (a built-in header) writing CR, LF or NUL: refused, never handed to the system",
        arguments: ["a\r\nX-Evil: 1", "a\nb", "a\u{0}b", "a\rb"]
    )
    func backgroundTableHeaderInjection(value: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        for actions: [any NetworkModuleAction] in [
            [.header("X-Trace", value: { _ in value }), action]
        ] {
            let system = FakeSystem()
            let reports = Reports()
            let transfers = BackgroundTransfers(
                identifier: "com.example.transfers", module: module(actions: actions, clock: ManualDelayScheduler()),
                directory: folder.appendingPathComponent("state-\(reports.ids.count)-\(UUID().uuidString)"),
                system: system, serverTrust: .system, credentialHeaderNames: [], credentialsMayFollowRedirects: true,
                writesFiles: nil, handler: reports.handler)
            try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
            print(
                "table header \(value.debugDescription): sent=\(system.sent.count) headers=\(system.sent.first?.request.allHTTPHeaderFields ?? [:]) reports=\(reports.ids)"
            )
            #expect(system.sent.isEmpty)
            #expect(reports.ids == ["a"])
        }
    }

    @Test(
        "an action that gives a download a body: refused as the builder's body is (downloadWithBody), never sent with one"
    )
    func backgroundActionAddsABodyToADownload() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        struct AddsBody: NetworkModuleAction {
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
                urlRequest.httpBody = Data("smuggled".utf8)
            }
        }
        let transfers = transfers(module: module(actions: [AddsBody(), action], clock: ManualDelayScheduler()))
        try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")

        let body = system.sent.first?.request.httpBody
        print(
            "action body on a download: sent=\(system.sent.count) body=\(body.map { String(decoding: $0, as: UTF8.self) } ?? "nil") reports=\(reports.ids)"
        )
        #expect(system.sent.isEmpty)
        #expect(reports.ids == ["a"])
        #expect(
            reports.results.first?.error?.transportFailure?.message?.contains("A background download sends no body")
                == true,
            "\(reports.results)")
    }
}
