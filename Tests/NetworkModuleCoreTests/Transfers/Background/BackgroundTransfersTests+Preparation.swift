import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Background preparation in the one pipeline, probed as a careless action and a careless app
/// would use it.
extension BackgroundTransfersTests {
    /// Keeps its completion; the test calls it as often as it likes.
    final class HeldCompletionAction: NetworkModuleAction {
        let completions = LockedState<[@Sendable (Result<URLRequest, any Error>) -> Void]>([])
        let prepares = LockedState(0)
        let completesInline: Int

        init(completesInline: Int = 0) { self.completesInline = completesInline }

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            prepares.withLock { $0 += 1 }
            for _ in 0..<completesInline { completion(.success(urlRequest)) }
            completions.withLock { $0.append(completion) }
        }

        func complete(_ request: URLRequest) {
            for completion in completions.value { completion(.success(request)) }
        }
    }

    struct TimedGet: NetworkRequest {
        var path: String { "/videos/7/file" }
        var timeout: TimeInterval?
    }

    @Test(
        "when an action completes its preparation twice, should prepare the next action once and send once (as the module does)"
    )
    func backgroundDoubleCompletion() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let twice = HeldCompletionAction()
        let next = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [twice, next, action], clock: clock))
        try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        let request = URLRequest(url: URL(string: "https://api.example.com/v2/videos/7/file")!)

        twice.complete(request)
        twice.complete(request)
        let nextPrepares = next.prepares.value
        next.complete(request)
        clock.runAll()

        print("double completion: next.prepares=\(nextPrepares) sent=\(system.sent.count) reports=\(reports.ids)")
        #expect(nextPrepares == 1)
        #expect(system.sent.count == 1)
        #expect(reports.ids.isEmpty)
    }

    @Test(
        "when an action completes twice inside its prepare, should prepare the next action once and send once"
    )
    func backgroundDoubleInlineCompletion() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let twice = HeldCompletionAction(completesInline: 2)
        let next = HeldCompletionAction()
        let transfers = transfers(module: module(actions: [twice, next, action], clock: ManualDelayScheduler()))
        try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        let nextPrepares = next.prepares.value
        next.complete(URLRequest(url: URL(string: "https://api.example.com/v2/videos/7/file")!))

        print("inline double: next.prepares=\(nextPrepares) sent=\(system.sent.count)")
        #expect(nextPrepares == 1)
        #expect(system.sent.count == 1)
    }

    @Test(
        "when an action never completes, should time out once at every timeout the builder takes, and free the ID",
        arguments: [1e-300, 1e-9, 0.5, 1e9, 1e10, .greatestFiniteMagnitude]
    )
    func backgroundNeverPrepares(timeout: TimeInterval) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let never = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [never, action], clock: clock))
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        try transfers.download(request: TimedGet(timeout: timeout), to: destination, id: "a")

        clock.advance(by: min(timeout, 1e9) + 1)
        never.complete(URLRequest(url: URL(string: "https://api.example.com/v2/videos/7/file")!))
        clock.runAll()

        if timeout <= 1e9 {
            #expect(reports.ids == ["a"])
            #expect(reports.results.first?.error == .timedOut)
            #expect(action.hooks.value == ["didFinish"])
            #expect(system.sent.isEmpty)
            #expect(try transfers.download(request: TimedGet(timeout: timeout), to: destination, id: "a"))
        } else {
            // No deadline: the completion (after 10⁹ s) sends it.
            #expect(reports.ids.isEmpty)
            #expect(system.sent.count == 1)
        }
    }

    @Test(
        "when the app cancels during preparation, should report once, send nothing, and no action hook after didFinish, even when the action completes and the deadline passes"
    )
    func backgroundCancelDuringPreparation() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let later = HeldCompletionAction()
        let clock = ManualDelayScheduler()
        let transfers = transfers(module: module(actions: [later, action], clock: clock))
        let destination = DownloadDestination(folder.appendingPathComponent("v"))
        try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")

        transfers.cancel(id: "a")
        let afterCancel = reports.ids
        // The ID again, at once: a new transfer; then the old action and the old deadline.
        try transfers.download(request: TimedGet(timeout: 5), to: destination, id: "a")
        later.completions.withLock { $0.removeLast() }  // the new transfer's
        later.complete(URLRequest(url: URL(string: "https://api.example.com/v2/videos/7/file")!))
        clock.advance(by: 6)
        clock.runAll()

        print(
            "cancel: afterCancel=\(afterCancel) reports=\(reports.ids) errors=\(reports.results.map(\.error)) sent=\(system.sent.count) hooks=\(action.hooks.value)"
        )
        #expect(afterCancel == ["a"])
        #expect(reports.results.first?.error == .cancelled)
        // the new one timed out at its own deadline; the old one sent nothing.
        #expect(system.sent.isEmpty)
        #expect(reports.ids == ["a", "a"])
        #expect(reports.results.last?.error == .timedOut)
        #expect(action.hooks.value == ["didFinish", "didFinish"])
    }
}
