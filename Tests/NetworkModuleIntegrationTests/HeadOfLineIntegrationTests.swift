import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request's slow work never holds up another request of the same session: a completion
/// handler with a hook or a decoding to run leaves `URLSession`'s serial delegate queue
/// (`CompletionHandlerQueue`), and only a request with nothing slow left stays on it, as a raw
/// completion handler does (`TransferOptions.handlerIsShort`). The benchmark's head-of-line mode
/// measures the latencies; these tests pin the guarantee.
@Suite("Integration: no head-of-line blocking", .integration)
struct HeadOfLineIntegrationTests {
    /// The sessions a module can run on.
    enum Session: String, CaseIterable, CustomTestStringConvertible {
        case transport, plainURLSession

        var testDescription: String { rawValue }

        func module(baseURL: URL, actions: [any NetworkModuleAction] = []) -> DefaultNetworkModule {
            let builder = DefaultRequestBuilder(baseURL: baseURL)
            switch self {
            case .transport:
                return DefaultNetworkModule(
                    requestBuilder: builder, session: IntegrationServers.makeSession(), actions: actions,
                    completionExecutor: .immediate)
            case .plainURLSession:
                return DefaultNetworkModule(
                    requestBuilder: builder, session: URLSession(configuration: .ephemeral), actions: actions,
                    completionExecutor: .immediate)
            }
        }
    }

    @Test(
        "when one request's hook blocks, should still complete another request of the same session",
        arguments: Session.allCases)
    func blockedHookHoldsUpNoOtherRequest(session: Session) async throws {
        let hook = BlockingHook()
        let module = session.module(baseURL: try IntegrationServers.httpbin(), actions: [hook])

        let blocked = Task { try await module.perform(request: Endpoint(path: "/get", headers: ["X-Block": "yes"])) }
        #expect(await Self.wait(for: hook.started), "the blocking hook never ran")

        // Before the fix, this completion queued behind the blocked hook on the delegate queue,
        // so it came only after the hook gave up waiting.
        let other = try await module.perform(request: Endpoint(path: "/get"))
        hook.release.signal()

        #expect(other.statusCode == 200)
        #expect(try await blocked.value.statusCode == 200)
        #expect(hook.wasReleasedInTime, "the other request completed only after the hook gave up")
    }

    @Test(
        "when one request's body decodes slowly, should still complete a plain request of the same session",
        .serialized, arguments: Session.allCases)
    func slowDecodingHoldsUpNoOtherRequest(session: Session) async throws {
        let module = session.module(baseURL: try IntegrationServers.httpbin())

        let decoding = Task {
            try await module.performAndDecode(request: Endpoint(path: "/get"), responseType: SlowlyDecoded.self)
        }
        #expect(await Self.wait(for: SlowlyDecoded.gate.started), "the decoding never began")

        // This request has nothing slow left: its completion stays on the delegate queue, which
        // the decoding must have left.
        let other = try await module.perform(request: Endpoint(path: "/get"))
        SlowlyDecoded.gate.release.signal()

        #expect(other.statusCode == 200)
        _ = try await decoding.value
        #expect(SlowlyDecoded.gate.wasReleasedInTime, "the other request completed only after the decoding gave up")
    }

    @Test(
        "when a plain URLSession's request has nothing slow left, should run its completion on the session's delegate queue"
    )
    func shortCompletionStaysOnTheDelegateQueue() async throws {
        let urlSession = URLSession(configuration: .ephemeral)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: try IntegrationServers.httpbin()), session: urlSession,
            completionExecutor: .immediate)
        let ranOnDelegateQueue = LockedState<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)

        module.perform(request: Endpoint(path: "/get")) { result in
            ranOnDelegateQueue.withLock {
                $0 = (try? result.get()) != nil && OperationQueue.current === urlSession.delegateQueue
            }
            done.signal()
        }

        #expect(await Self.wait(for: done), "the request never completed")
        #expect(ranOnDelegateQueue.withLock { $0 } == true, "a hand-off raw URLSession does not make")
        urlSession.finishTasksAndInvalidate()
    }

    @Test(
        "when a timed-out request's completion blocks, should still time out another request of the same session",
        arguments: Session.allCases)
    func blockedTimeoutHoldsUpNoOtherTimeout(session: Session) async throws {
        let module = session.module(baseURL: try IntegrationServers.httpbin())
        let secondTimedOut = DispatchSemaphore(value: 0)
        let firstDone = DispatchSemaphore(value: 0)
        let releasedInTime = LockedState(false)

        // Nothing slow is left once the answer is in, so the first completion runs where its
        // timeout was noticed: it blocks there until the second request has timed out too.
        module.perform(request: Endpoint(path: "/delay/3", timeout: 0.3)) { _ in
            releasedInTime.withLock { $0 = secondTimedOut.wait(timeout: .now() + 10) == .success }
            firstDone.signal()
        }
        module.perform(request: Endpoint(path: "/delay/3", timeout: 0.6)) { result in
            if case .failure(.timedOut) = result { secondTimedOut.signal() }
        }

        #expect(await Self.wait(for: firstDone), "the first request never completed")
        #expect(releasedInTime.withLock { $0 }, "the second timeout waited for the first request's completion")
    }

    /// Waits for `semaphore` for at most 10 s on a thread of its own: neither on Swift
    /// concurrency's threads nor on Dispatch's, whose pool on Linux is as wide as the cores and
    /// grows only slowly past threads that block, so that a blocked waiter would hold up the
    /// very completion it waits for on a loaded two-core machine.
    static func wait(for semaphore: DispatchSemaphore) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
            }
        }
    }
}

/// A body whose decoding blocks until the test releases it or 10 s have passed.
private struct SlowlyDecoded: Decodable, Sendable {
    static let gate = Gate()

    init(from decoder: any Decoder) throws {
        Self.gate.started.signal()
        Self.gate.passed(Self.gate.release.wait(timeout: .now() + 10) == .success)
    }

    final class Gate: Sendable {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let releasedInTime = LockedState(false)

        var wasReleasedInTime: Bool { releasedInTime.withLock { $0 } }
        func passed(_ inTime: Bool) { releasedInTime.withLock { $0 = inTime } }
    }
}

/// An action whose `didReceive` blocks, for requests with an `X-Block` header, until it is
/// released or 10 s have passed.
private final class BlockingHook: NetworkModuleAction, @unchecked Sendable {
    // @unchecked Sendable is safe: the semaphores are thread-safe, and `releasedInTime` is only
    // touched under `lock`.
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var releasedInTime = false

    var wasReleasedInTime: Bool { lock.withLock { releasedInTime } }

    func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        guard context.sentRequest?.value(forHTTPHeaderField: "X-Block") != nil else { return }
        started.signal()
        let released = release.wait(timeout: .now() + 10) == .success
        lock.withLock { releasedInTime = released }
    }
}
