import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request's slow work never holds up another request of the same session: completion
/// handlers run off `URLSession`'s serial delegate queue (`CompletionHandlerQueue`). The
/// benchmark's head-of-line mode measures the latencies; these tests pin the guarantee.
@Suite("Integration: no head-of-line blocking", .integration)
struct HeadOfLineIntegrationTests {
    /// The sessions a module can run on.
    enum Session: String, CaseIterable, CustomTestStringConvertible {
        case transport, plainURLSession

        var testDescription: String { rawValue }

        func module(baseURL: URL, action: some NetworkModuleAction) -> DefaultNetworkModule {
            let builder = DefaultRequestBuilder(baseURL: baseURL)
            switch self {
            case .transport:
                return DefaultNetworkModule(
                    requestBuilder: builder, session: IntegrationServers.makeSession(), actions: [action],
                    completionExecutor: .immediate)
            case .plainURLSession:
                return DefaultNetworkModule(
                    requestBuilder: builder, session: URLSession(configuration: .ephemeral), actions: [action],
                    completionExecutor: .immediate)
            }
        }
    }

    @Test(
        "when one request's hook blocks, should still complete another request of the same session",
        arguments: Session.allCases)
    func blockedHookHoldsUpNoOtherRequest(session: Session) async throws {
        let hook = BlockingHook()
        let module = session.module(baseURL: try IntegrationServers.httpbin(), action: hook)

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
