import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Attack 40d on acdc6c8: `cancel(id:)` of a transfer being prepared cancels its preparation's
/// `RequestStateMachine` (the handle the ledger keeps in `.preparing(start, handle:, cancelled:)`),
/// and the ledger remembers the cancel until the preparation ends. Probed by a tester who did not
/// write it, as an attacker and as a careless caller. Each test asserts the promise and prints
/// what it saw.
///
/// Its breaks, fixed: a cancel just before the hand-off reported the prepared request's refusal
/// instead of `.cancelled`; a cancel during preparation kept the ID's resume data (older). The
/// stress test caught acdc6c8's parent running didFinish inside a prepare (about one round in 300).
extension BackgroundTransfersTests {
    // MARK: - Harness

    /// Where a hook finds the instance under test, which is made after its actions.
    final class TransfersBox: Sendable {
        let transfers = LockedState<BackgroundTransfers?>(nil)
        func set(_ value: BackgroundTransfers) { transfers.withLock { $0 = value } }
        func cancel(_ id: String) { transfers.value?.cancel(id: id) }
    }

    /// A scheduler whose test hooks run inside `schedule` (the preparation deadline's scheduling
    /// call-out) or inside a handle's `cancel()` (the `.send` answer cancels the deadline there,
    /// between the machine's send and the ledger's `prepared`): a cancel from another thread,
    /// made to land in exactly that window.
    final class HookScheduler: DelayScheduler {
        struct Handle: NetworkCancellable {
            let onCancel: @Sendable () -> Void
            func cancel() { onCancel() }
        }

        let pending = LockedState<[Int: @Sendable () -> Void]>([:])
        let nextID = LockedState(0)
        let cancels = LockedState(0)
        let onSchedule = LockedState<(@Sendable () -> Void)?>(nil)
        let onCancel = LockedState<(@Sendable () -> Void)?>(nil)

        func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any NetworkCancellable {
            let id = nextID.withLock { id -> Int in
                id += 1
                return id
            }
            pending.withLock { $0[id] = work }
            if let hook = onSchedule.withLock({ $0.take() }) { hook() }
            return Handle { [self] in
                pending.withLock { $0[id] = nil }
                cancels.withLock { $0 += 1 }
                if let hook = onCancel.withLock({ $0.take() }) { hook() }
            }
        }

        /// Runs every pending piece of work (the deadline firing).
        func fireAll() {
            let works = pending.withLock { pending -> [@Sendable () -> Void] in
                defer { pending = [:] }
                return pending.sorted { $0.key < $1.key }.map(\.value)
            }
            for work in works { work() }
        }
    }

    /// Logs each hook with the request's ID: `begin`/`end` around `prepare`, and `didFinish`.
    /// Keeps its completions for the test to call, on any thread.
    final class RequestLogAction: NetworkModuleAction {
        let log = LockedState<[(id: UUID, hook: String)]>([])
        let completions = LockedState<[@Sendable (Result<URLRequest, any Error>) -> Void]>([])

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            log.withLock { $0.append((context.requestID, "begin")) }
            completions.withLock { $0.append(completion) }
            // A prepare that takes a moment: the window in which a cancel finds a hook running.
            for _ in 0..<20 { sched_yield() }
            log.withLock { $0.append((context.requestID, "end")) }
        }

        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            log.withLock { $0.append((context.requestID, "didFinish")) }
        }

        func completeAll(_ request: URLRequest) {
            for completion in completions.withLock({ $0 }) { completion(.success(request)) }
        }

        /// Per request: problems with "didFinish once, last, never inside a `prepare`".
        func violations() -> [String] {
            var byID: [UUID: [String]] = [:]
            for entry in log.value { byID[entry.id, default: []].append(entry.hook) }
            var bad: [String] = []
            for (id, hooks) in byID {
                let finishes = hooks.filter { $0 == "didFinish" }.count
                guard finishes <= 1 else {
                    bad.append("\(id): didFinish \(finishes)x \(hooks)")
                    continue
                }
                if finishes == 1, hooks.last != "didFinish" { bad.append("\(id): a hook after didFinish \(hooks)") }
                if let finish = hooks.firstIndex(of: "didFinish"),
                    hooks[..<finish].filter({ $0 == "begin" }).count != hooks[..<finish].filter({ $0 == "end" }).count
                {
                    bad.append("\(id): didFinish inside prepare \(hooks)")
                }
            }
            return bad
        }

        var finishCount: Int { log.value.filter { $0.hook == "didFinish" }.count }
    }

    /// The request the held actions complete with.
    static var preparedRequest: URLRequest { URLRequest(url: URL(string: "https://api.example.com/v2/videos/7/file")!) }

    /// Waits, at most `seconds`, for `condition`.
    static func waitFor(within seconds: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(500)
        }
        return true
    }

    // MARK: - An action that waits asynchronously: the transfer ends inside cancel(id:)

    @Test(
        "cancel(id:) of a transfer whose action waits: reported .cancelled before cancel returns, deadline cancelled, no later action prepared, another ID untouched, the ID free at once; twice and unknown IDs do nothing"
    )
    func cancelWhileAnActionWaits() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let held = HeldCompletionAction()
        let next = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [held, next, action], clock: clock))
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")
        try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "b")
        let pendingBefore = clock.pendingCount

        transfers.cancel(id: "a")
        let afterCancel = reports.ids
        let errorAfterCancel = reports.results.first?.error
        let pendingAfterCancel = clock.pendingCount
        transfers.cancel(id: "a")
        for odd in ["", "A", "a ", "\u{0}", String(repeating: "a", count: 10_000), "b-unknown"] {
            transfers.cancel(id: odd)
        }
        let afterOdd = reports.ids
        // Every held completion: "a"'s comes late (ignored), "b"'s moves it on to `next`.
        held.complete(Self.preparedRequest)
        held.complete(Self.preparedRequest)
        let nextPrepares = next.prepares.value
        next.complete(Self.preparedRequest)
        clock.runAll()
        let again = try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")

        print(
            "cancel while waiting: afterCancel=\(afterCancel) error=\(String(describing: errorAfterCancel)) pending before=\(pendingBefore) after=\(pendingAfterCancel) afterOdd=\(afterOdd) next.prepares=\(nextPrepares) sent=\(system.sent.map(\.request.url)) reports=\(reports.ids) hooks=\(action.hooks.value) again=\(again)"
        )
        #expect(afterCancel == ["a"])
        #expect(errorAfterCancel == .cancelled)
        #expect(pendingBefore == 2)
        #expect(pendingAfterCancel == 1)  // "b"'s deadline only
        #expect(afterOdd == ["a"])
        #expect(nextPrepares == 1)  // "b"'s only
        #expect(system.sent.count == 1)  // "b"
        #expect(reports.ids == ["a"])
        #expect(action.hooks.value == ["didFinish", "prepare"])  // "a" finished; "b" prepared, sent
        #expect(again)
    }

    // MARK: - An action whose prepare runs: the transfer ends when it returns

    @Test(
        "cancel(id:) while an action's prepare runs on another thread: no report until it returns, the ID stays taken (a second transfer with it is refused), then one .cancelled, didFinish after prepare-end, no later action, the ID free"
    )
    func cancelWhilePrepareRunsThenReuseTheID() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = HookLog()
        let blocking = BlockingAction(log: log)
        let next = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [blocking, next, action], clock: clock))
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        let started = DispatchSemaphore(value: 0)
        let firstBegun = LockedState<Bool?>(nil)
        DispatchQueue.global().async {
            firstBegun.withLock {
                $0 = try? transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")
            }
            started.signal()
        }
        #expect(await blocking.entered.signalled(within: 10))

        transfers.cancel(id: "a")
        let reportsAfterCancel = reports.ids
        // A careless app starts the ID again at once, and cancels again.
        let secondBegun = try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")
        transfers.cancel(id: "a")
        let reportsWhileRunning = reports.ids
        blocking.go.signal()
        #expect(await started.signalled(within: 10))
        let pending = clock.pendingCount
        // A late deadline and a late completion change nothing.
        clock.runAll()
        next.complete(Self.preparedRequest)
        let third = LockedState<Bool?>(nil)
        // The ID is free after the report: the blocking action lets this one through at once.
        blocking.go.signal()
        third.withLock { $0 = try? transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a") }

        print(
            "cancel while prepare runs: first=\(String(describing: firstBegun.value)) afterCancel=\(reportsAfterCancel) second=\(secondBegun) whileRunning=\(reportsWhileRunning) reports=\(reports.ids) errors=\(reports.results.map(\.error)) log=\(log.entries.value) next.prepares=\(next.prepares.value) pending=\(pending) sent=\(system.sent.count) third=\(String(describing: third.value))"
        )
        #expect(firstBegun.value == true)
        #expect(reportsAfterCancel.isEmpty)
        #expect(!secondBegun)  // docs/transfers.md: an ID is taken until reported
        #expect(reportsWhileRunning.isEmpty)
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error == .cancelled)
        #expect(Array(log.entries.value.prefix(3)) == ["prepare-begin", "prepare-end", "didFinish"])
        #expect(pending == 0)
        #expect(system.sent.isEmpty)
        #expect(third.value == true)
        #expect(next.prepares.value == 1)  // the third transfer's, not the cancelled one's
    }

    @Test(
        "cancel(id:) while the second action's prepare runs, started by the first action's completion on another thread: didFinish waits for it"
    )
    func cancelWhileALaterPrepareRunsOnAnotherThread() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = HookLog()
        let held = HeldCompletionAction()
        let blocking = BlockingAction(log: log)
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [held, blocking, action], clock: clock))
        try transfers.download(
            request: TimedGet(timeout: 5), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        let completed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            held.complete(Self.preparedRequest)
            completed.signal()
        }
        #expect(await blocking.entered.signalled(within: 10))

        transfers.cancel(id: "a")
        let afterCancel = reports.ids
        let hooksAfterCancel = action.hooks.value
        blocking.go.signal()
        #expect(await completed.signalled(within: 10))
        clock.runAll()

        print(
            "cancel while a later prepare runs: afterCancel=\(afterCancel) hooksAfterCancel=\(hooksAfterCancel) log=\(log.entries.value) hooks=\(action.hooks.value) reports=\(reports.ids) errors=\(reports.results.map(\.error)) sent=\(system.sent.count)"
        )
        #expect(afterCancel.isEmpty)
        #expect(hooksAfterCancel.isEmpty)
        #expect(log.entries.value == ["prepare-begin", "prepare-end", "didFinish"])
        #expect(action.hooks.value == ["didFinish"])  // never prepared
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error == .cancelled)
        #expect(system.sent.isEmpty)
    }

    // MARK: - cancel(id:) from inside the hooks

    enum InsideOrder: String, CaseIterable, Sendable {
        case cancelOnly, cancelThenComplete, completeThenCancel, cancelThenFail
    }

    @Test(
        "an action calls cancel(id:) on its own transfer from inside its prepare: no deadlock, ends when prepare returns, one .cancelled, nothing sent, no later action",
        arguments: InsideOrder.allCases
    )
    func cancelFromInsideOwnPrepare(order: InsideOrder) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        final class SelfCancelling: NetworkModuleAction {
            let box: TransfersBox
            let order: InsideOrder
            let log: HookLog
            init(box: TransfersBox, order: InsideOrder, log: HookLog) {
                self.box = box
                self.order = order
                self.log = log
            }

            func prepare(
                _ urlRequest: URLRequest, context: ActionContext,
                completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
            ) {
                log.add("prepare-begin")
                switch order {
                case .cancelOnly: box.cancel("a")
                case .cancelThenComplete:
                    box.cancel("a")
                    completion(.success(urlRequest))
                case .completeThenCancel:
                    completion(.success(urlRequest))
                    box.cancel("a")
                case .cancelThenFail:
                    box.cancel("a")
                    completion(.failure(URLError(.userAuthenticationRequired)))
                }
                log.add("prepare-end")
            }

            func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
                log.add("didFinish")
            }
        }
        let box = TransfersBox()
        let log = HookLog()
        let next = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(
            module: module(actions: [SelfCancelling(box: box, order: order, log: log), next, action], clock: clock))
        box.set(transfers)
        let destination = DownloadDestination(folder.appendingPathComponent("v"))

        let begun = try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")
        let pending = clock.pendingCount
        let hooks = log.entries.value

        print(
            "cancel inside own prepare (\(order)): begun=\(begun) reports=\(reports.ids) errors=\(reports.results.map(\.error)) log=\(hooks) next.prepares=\(next.prepares.value) pending=\(pending) sent=\(system.sent.count)"
        )
        #expect(begun)
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error == .cancelled)
        #expect(hooks == ["prepare-begin", "prepare-end", "didFinish"])
        #expect(next.prepares.value == 0)
        #expect(pending == 0)
        #expect(system.sent.isEmpty)
        box.transfers.withLock { $0 = nil }  // no cycle through the box
    }

    @Test(
        "a built-in header action's value closure calls cancel(id:) (inside the synchronous prepare call-out): ends .cancelled when it returns, never sent"
    )
    func cancelFromInsideAHeaderAction() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let box = TransfersBox()
        let calls = LockedState(0)
        let header = BuiltInAction.header("X-Trace") { _ in
            calls.withLock { $0 += 1 }
            box.cancel("a")
            return "t"
        }
        let transfers = transfers(module: module(actions: [header, action], clock: ManualDelayScheduler()))
        box.set(transfers)
        try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")

        print(
            "cancel inside a header action: calls=\(calls.value) reports=\(reports.ids) errors=\(reports.results.map(\.error)) hooks=\(action.hooks.value) sent=\(system.sent.count)"
        )
        #expect(calls.value == 1)
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error == .cancelled)
        #expect(system.sent.isEmpty)
        #expect(action.hooks.value.last == "didFinish")
        #expect(action.hooks.value.filter { $0 == "didFinish" }.count == 1)
        box.transfers.withLock { $0 = nil }
    }

    @Test(
        "didFinish and the handler of the cancelled transfer call cancel(id:) again, and the handler starts the ID again: one report for the first, the second prepares and is sent"
    )
    func cancelFromDidFinishAndHandlerThenRestart() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        final class CancelsInDidFinish: NetworkModuleAction {
            let box: TransfersBox
            let finishes = LockedState(0)
            init(box: TransfersBox) { self.box = box }
            func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
                finishes.withLock { $0 += 1 }
                box.cancel("a")
                box.cancel("never-seen")
            }
        }
        let box = TransfersBox()
        let held = HeldCompletionAction()
        let finisher = CancelsInDidFinish(box: box)
        let clock = ManualDelayScheduler()
        let restarted = LockedState<[Bool?]>([])
        let localReports = Reports()
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        let transfers = BackgroundTransfers(
            identifier: "com.example.transfers", module: module(actions: [held, finisher], clock: clock),
            directory: folder.appendingPathComponent("state"), system: system, serverTrust: .system,
            credentialsMayFollowRedirects: true,
            handler: { id, result in
                localReports.handler(id, result)
                box.cancel(id)
                if case .failure(.cancelled) = result, restarted.value.isEmpty {
                    // A careless app retries at once, from inside the handler.
                    restarted.withLock {
                        $0.append(
                            try? box.transfers.value?.download(request: TimedGet(timeout: 5), to: destination, id: id))
                    }
                }
            })
        box.set(transfers)
        try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")

        transfers.cancel(id: "a")
        let afterCancel = localReports.ids
        let prepares = held.prepares.value
        held.complete(Self.preparedRequest)  // the first's (ignored) and the second's
        clock.runAll()

        print(
            "didFinish/handler cancel, restart: afterCancel=\(afterCancel) restarted=\(restarted.value) prepares=\(prepares) finishes=\(finisher.finishes.value) reports=\(localReports.ids) errors=\(localReports.results.map(\.error)) sent=\(system.sent.count)"
        )
        #expect(afterCancel == ["a"])
        #expect(localReports.results.first?.error == .cancelled)
        #expect(restarted.value == [true])
        #expect(prepares == 2)
        #expect(finisher.finishes.value == 1)
        #expect(system.sent.count == 1)
        #expect(localReports.ids == ["a"])
        box.transfers.withLock { $0 = nil }
    }

    // MARK: - Windows only a hook can hit: the deadline's scheduling, the machine's send

    @Test(
        "cancel(id:) lands while the preparation deadline is being scheduled: the deadline just scheduled is cancelled, one .cancelled, the late completion ignored"
    )
    func cancelWhileTheDeadlineIsScheduled() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let held = HeldCompletionAction()
        let scheduler = HookScheduler()
        let box = TransfersBox()
        scheduler.onSchedule.withLock { $0 = { box.cancel("a") } }
        let transfers = transfers(
            module: DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
                session: FakeNetworkSession(), actions: [held, action], completionExecutor: .immediate,
                delayScheduler: scheduler))
        box.set(transfers)
        try transfers.download(
            request: TimedGet(timeout: 5), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        let pending = scheduler.pending.value.count
        held.complete(Self.preparedRequest)
        scheduler.fireAll()

        print(
            "cancel while the deadline is scheduled: reports=\(reports.ids) errors=\(reports.results.map(\.error)) pending=\(pending) cancels=\(scheduler.cancels.value) hooks=\(action.hooks.value) sent=\(system.sent.count)"
        )
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error == .cancelled)
        #expect(pending == 0)
        #expect(scheduler.cancels.value == 1)
        #expect(action.hooks.value == ["didFinish"])
        #expect(system.sent.isEmpty)
        box.transfers.withLock { $0 = nil }
    }

    enum SendWindowCase: String, CaseIterable, Sendable {
        /// The prepared request is fine: only the cancel can end it.
        case plain
        /// The prepared request carries `Authorization` and credentials may not follow redirects.
        case credentialsRefused
        /// An action wrote a header field the pipeline's header check refuses.
        case invalidHeader
    }

    /// Writes an invalid header field value, completing inside its `prepare` (`setValue` on
    /// Linux would drop such a value).
    struct WritesBadHeader: NetworkModuleAction {
        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            var request = urlRequest
            var fields = request.allHTTPHeaderFields ?? [:]
            fields["X-Bad"] = "v\r\nX-Injected: 1"
            request.allHTTPHeaderFields = fields
            completion(.success(request))
        }
    }

    @Test(
        "cancel(id:) lands between the machine's send and the ledger (inside the deadline's cancel): .cancelled is delivered, as a module's request delivers it, whatever check the prepared request then fails",
        arguments: SendWindowCase.allCases
    )
    func cancelBetweenTheMachinesSendAndTheLedger(variant: SendWindowCase) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let held = HeldCompletionAction()
        let scheduler = HookScheduler()
        let box = TransfersBox()
        let tail: any NetworkModuleAction =
            switch variant {
            case .plain: HeldCompletionAction(completesInline: 1)
            case .credentialsRefused: action  // adds Authorization
            case .invalidHeader: WritesBadHeader()
            }
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: FakeNetworkSession(), actions: [held, tail], completionExecutor: .immediate,
            delayScheduler: scheduler)
        let transfers = transfers(module: module, credentialsMayFollowRedirects: variant != .credentialsRefused)
        box.set(transfers)
        try transfers.download(
            request: TimedGet(timeout: 5), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        let cancelledInWindow = LockedState(false)
        scheduler.onCancel.withLock {
            $0 = {
                cancelledInWindow.withLock { $0 = true }
                box.cancel("a")
            }
        }
        held.complete(Self.preparedRequest)
        let error = reports.results.first?.error

        // The module's own request, cancelled in the same window (header check failing or not).
        let moduleScheduler = HookScheduler()
        let moduleHeld = HeldCompletionAction()
        let moduleTail: any NetworkModuleAction =
            variant == .invalidHeader ? WritesBadHeader() : HeldCompletionAction(completesInline: 1)
        let requestModule = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: FakeNetworkSession(), actions: [moduleHeld, moduleTail], completionExecutor: .immediate,
            delayScheduler: moduleScheduler)
        let moduleResults = LockedState<[Result<NetworkResponse, NetworkError>]>([])
        let handle = requestModule.perform(request: TimedGet(timeout: 5)) { result in
            moduleResults.withLock { $0.append(result) }
        }
        moduleScheduler.onCancel.withLock { $0 = { handle.cancel() } }
        moduleHeld.complete(Self.preparedRequest)
        let moduleError = moduleResults.value.first?.error

        print(
            "cancel in the send window (\(variant)): inWindow=\(cancelledInWindow.value) reports=\(reports.ids) error=\(String(describing: error)) sent=\(system.sent.count) | module's request: results=\(moduleResults.value.count) error=\(String(describing: moduleError))"
        )
        #expect(cancelledInWindow.value)
        #expect(reports.ids == ["a"])
        #expect(system.sent.isEmpty)
        #expect(moduleError == .cancelled)
        #expect(error == .cancelled)
        box.transfers.withLock { $0 = nil }
    }

    // MARK: - The deadline against the cancel, deterministically

    @Test(
        "the deadline fires, then cancel(id:): one .timedOut; cancel(id:), then the deadline's time passes: one .cancelled; neither sends"
    )
    func deadlineAndCancelInEitherOrder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let held = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [held, action], clock: clock))
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")
        clock.advance(by: 6)
        transfers.cancel(id: "a")
        try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "b")
        transfers.cancel(id: "b")
        clock.advance(by: 6)
        held.complete(Self.preparedRequest)
        clock.runAll()

        print(
            "deadline vs cancel: reports=\(reports.ids) errors=\(reports.results.map(\.error)) pending=\(clock.pendingCount) hooks=\(action.hooks.value) sent=\(system.sent.count)"
        )
        #expect(reports.ids == ["a", "b"])
        #expect(reports.results.map(\.error) == [.timedOut, .cancelled])
        #expect(action.hooks.value == ["didFinish", "didFinish"])
        #expect(system.sent.isEmpty)
        #expect(clock.pendingCount == 0)
    }

    @Test(
        "an action completes, the next waits, the app cancels, the first completes again, the next completes: one .cancelled, the next prepared once, nothing sent"
    )
    func doubleCompletionAcrossTheCancel() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = HeldCompletionAction()
        let second = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [first, second, action], clock: clock))
        try transfers.download(
            request: TimedGet(timeout: 5), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        first.complete(Self.preparedRequest)
        transfers.cancel(id: "a")
        first.complete(Self.preparedRequest)
        second.complete(Self.preparedRequest)
        second.complete(Self.preparedRequest)
        clock.runAll()

        print(
            "double completion across cancel: reports=\(reports.ids) errors=\(reports.results.map(\.error)) second.prepares=\(second.prepares.value) hooks=\(action.hooks.value) sent=\(system.sent.count)"
        )
        #expect(reports.ids == ["a"])
        #expect(reports.results.first?.error == .cancelled)
        #expect(second.prepares.value == 1)
        #expect(action.hooks.value == ["didFinish"])
        #expect(system.sent.isEmpty)
    }

    // MARK: - What the cancel promises beside the report

    @Test(
        "cancel(id:) of a download being prepared drops the ID's resume data (docs: its next download starts over), as the cancel of a sent one or of an unknown ID does"
    )
    func cancelDuringPreparationDropsResumeData() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let held = HeldCompletionAction()
        // No credentials: the resume data is kept.
        let transfers = transfers(module: module(actions: [held], clock: ManualDelayScheduler()))
        let destination = DownloadDestination(folder.appendingPathComponent("intro.mp4"))
        try transfers.download(request: Get(), to: destination, id: "intro")
        held.complete(Self.preparedRequest)
        let first = try #require(system.sent.first?.token)
        transfers.systemCompleted(
            token: first,
            completion: BackgroundTransferOutcome.SystemCompletion(error: URLError(.networkConnectionLost)),
            resumeData: Data("resume here".utf8))
        let store = BackgroundTransferStore(directory: folder.appendingPathComponent("state"))
        let kept = store.resumeData(for: "intro")

        try transfers.download(request: Get(), to: destination, id: "intro")  // prepares: held waits
        transfers.cancel(id: "intro")
        let afterCancel = store.resumeData(for: "intro")
        try transfers.download(request: Get(), to: destination, id: "intro")
        held.complete(Self.preparedRequest)
        let third = system.sent.last?.task

        print(
            "resume data after a cancel in preparation: kept=\(kept.map { String(decoding: $0, as: UTF8.self) } ?? "nil") afterCancel=\(afterCancel.map { String(decoding: $0, as: UTF8.self) } ?? "nil") third=\(String(describing: third)) reports=\(reports.ids) errors=\(reports.results.map(\.error))"
        )
        #expect(kept == Data("resume here".utf8))
        #expect(reports.results.map(\.error) == [.networkConnectionLost, .cancelled])
        #expect(afterCancel == nil)
        #expect(third == .download)
    }

    @Test(
        "after the end of a cancelled preparation whose action completes late and then lets go: the request, the machine's closures and the instance itself are released"
    )
    func lateCompletionAfterCancelReleasesEverything() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let later = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        weak var weakRequest: ClassGet?
        weak var weakTransfers: BackgroundTransfers?
        let localReports = Reports()
        try {
            let transfers = BackgroundTransfers(
                identifier: "com.example.transfers", module: module(actions: [later], clock: clock),
                directory: folder.appendingPathComponent("state"), system: FakeSystem(), serverTrust: .system,
                credentialsMayFollowRedirects: true, handler: localReports.handler)
            weakTransfers = transfers
            let request = ClassGet()
            weakRequest = request
            try transfers.download(
                request: request, to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
            transfers.cancel(id: "a")
        }()
        later.complete(Self.preparedRequest)  // late: ignored
        later.completions.withLock { $0.removeAll() }
        let pending = clock.pendingCount

        print(
            "release after a late completion: reports=\(localReports.ids) requestAlive=\(weakRequest != nil) transfersAlive=\(weakTransfers != nil) pending=\(pending)"
        )
        #expect(localReports.ids == ["a"])
        #expect(weakRequest == nil)
        #expect(weakTransfers == nil)
        #expect(pending == 0)
    }

    @Test(
        "an instance dropped while a transfer prepares and its action gave up its completion: kept until the deadline ends the transfer, then released, and its state folder free for a new instance"
    )
    func droppedInstanceWhileAnActionGaveUp() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let gaveUp = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let directory = folder.appendingPathComponent("state")
        weak var weakTransfers: BackgroundTransfers?
        try {
            let transfers = BackgroundTransfers(
                identifier: "com.example.transfers", module: module(actions: [gaveUp], clock: clock),
                directory: directory, system: FakeSystem(), serverTrust: .system, credentialsMayFollowRedirects: true,
                claimsDirectory: true, handler: reports.handler)
            weakTransfers = transfers
            try transfers.download(
                request: TimedGet(timeout: 5), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        }()
        gaveUp.completions.withLock { $0.removeAll() }  // the action gives up, never completing
        // Kept while the transfer prepares: an action completing late must still find it.
        let aliveWhilePreparing = weakTransfers != nil

        clock.advance(by: 5)
        let again = BackgroundTransfers(
            identifier: "com.example.transfers", module: module(actions: [], clock: clock), directory: directory,
            system: FakeSystem(), serverTrust: .system, credentialsMayFollowRedirects: true, claimsDirectory: true,
            handler: reports.handler)
        let refused =
            (try? again.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("w")), id: "b"))
            == nil

        print(
            "dropped while an action gave up: aliveWhilePreparing=\(aliveWhilePreparing) aliveAfterDeadline=\(weakTransfers != nil) newInstanceRefuses=\(refused) reports=\(reports.ids)"
        )
        #expect(aliveWhilePreparing)
        #expect(reports.results.first?.error == .timedOut)
        #expect(weakTransfers == nil)
        #expect(!refused)
        #expect(clock.pendingCount == 0)
    }

    // MARK: - Stress

    @Test(
        "stress, 300 rounds: an action's completion, the deadline, cancel(id:) and a new transfer with the same ID on four threads: every transfer begun is reported once, a cancelled one is never sent without the system's cancel, didFinish once and last, none inside a prepare"
    )
    func cancelDuringPreparationStress() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var bad: [String] = []
        var tally = (cancelled: 0, timedOut: 0, sent: 0, restarted: 0, sentThenCancelled: 0)
        for round in 0..<300 {
            let logAction = RequestLogAction()
            let clock = ManualDelayScheduler()
            let fakeSystem = FakeSystem()
            let roundReports = Reports()
            let roundFolder = folder.appendingPathComponent("r\(round)")
            let destination = DownloadDestination(roundFolder.appendingPathComponent("v"))
            let transfers = BackgroundTransfers(
                identifier: "com.example.transfers", module: module(actions: [logAction], clock: clock),
                directory: roundFolder.appendingPathComponent("state"), system: fakeSystem, serverTrust: .system,
                credentialHeaderNames: [], credentialsMayFollowRedirects: true, writesFiles: nil,
                handler: roundReports.handler)
            let begun = LockedState(0)
            if try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a") {
                begun.withLock { $0 += 1 }
            }
            let group = DispatchGroup()
            let go = DispatchSemaphore(value: 0)
            let threads = 4
            func onThread(_ work: @escaping @Sendable () -> Void) {
                DispatchQueue.global().async(group: group) {
                    go.wait()
                    work()
                }
            }
            onThread { logAction.completeAll(Self.preparedRequest) }
            onThread { clock.advance(by: round % 2 == 0 ? 6 : 4) }
            onThread {
                transfers.cancel(id: "a")
                if round % 5 == 0 { transfers.cancel(id: "a") }
            }
            onThread {
                if (try? transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")) == true {
                    begun.withLock { $0 += 1 }
                }
                if round % 3 == 0 { transfers.cancel(id: "a") }
            }
            for _ in 0..<threads { go.signal() }
            guard await group.emptied(within: 30) else {
                bad.append("round \(round): threads did not finish in 30 s")
                break
            }
            // Settle: every held completion, every deadline, then every sent task ends.
            logAction.completeAll(Self.preparedRequest)
            clock.runAll()
            let cancelledTokens = Set(fakeSystem.cancelled)
            var silentSends: [String] = []
            for sent in fakeSystem.sent {
                let before = roundReports.ids.count
                transfers.systemCompleted(
                    token: sent.token,
                    completion: BackgroundTransferOutcome.SystemCompletion(error: URLError(.networkConnectionLost)),
                    resumeData: nil)
                let reported = roundReports.ids.count - before
                if cancelledTokens.contains(sent.token) {
                    tally.sentThenCancelled += 1
                    if reported != 0 { silentSends.append("cancelled task reported again \(sent.token)") }
                } else if reported != 1 {
                    // Sent, never cancelled by the system, and its end reports nothing: its
                    // transfer was reported (cancelled) while the system ran it.
                    silentSends.append("sent without cancel, reported \(reported)x: \(sent.token)")
                }
            }
            let errors = roundReports.results.map(\.error)
            tally.cancelled += errors.filter { $0 == .cancelled }.count
            tally.timedOut += errors.filter { $0 == .timedOut }.count
            tally.sent += fakeSystem.sent.count
            tally.restarted += begun.value - 1
            let violations = logAction.violations()
            let reportsOK = roundReports.ids.count == begun.value && roundReports.ids.allSatisfy { $0 == "a" }
            let finishesOK = logAction.finishCount == begun.value
            let freeAgain = (try? transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")) == true
            if !reportsOK || !finishesOK || !violations.isEmpty || !silentSends.isEmpty || !freeAgain {
                bad.append(
                    "round \(round): begun=\(begun.value) reports=\(roundReports.ids.count) errors=\(errors) finishes=\(logAction.finishCount) sent=\(fakeSystem.sent.count) cancelledTasks=\(cancelledTokens.count) violations=\(violations) silent=\(silentSends) freeAgain=\(freeAgain)"
                )
            }
            transfers.cancel(id: "a")
            logAction.completions.withLock { $0.removeAll() }  // no cycle through the action's completions
        }
        print("cancel-during-preparation stress: \(bad.count) bad rounds, tally=\(tally) first=\(bad.prefix(5))")
        #expect(bad.isEmpty)
    }
}
