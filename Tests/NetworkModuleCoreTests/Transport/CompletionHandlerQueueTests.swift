import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Completion handlers off the delegate queue: none waits behind another, and the queues they
/// run on are reused rather than made per request.
@Suite("Completion handler queue")
struct CompletionHandlerQueueTests {
    /// Calls `body` through `queues` and returns a semaphore signalled once `body` has returned.
    private static func call(on queues: CompletionHandlerQueue, _ body: @escaping @Sendable () -> Void)
        -> DispatchSemaphore
    {
        let done = DispatchSemaphore(value: 0)
        queues.call(
            { _, _, _ in
                body()
                done.signal()
            }, data: nil, response: nil, error: nil)
        return done
    }

    /// Waits until `queues` keeps `count` idle queues, for at most 10 seconds.
    private static func idleCount(of queues: CompletionHandlerQueue, reaches count: Int) async -> Bool {
        for _ in 0..<1_000 {
            if queues.idleCount == count { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return queues.idleCount == count
    }

    @Test("when one handler blocks, should still call another at once")
    func blockedHandlerHoldsUpNoOther() async {
        let queues = CompletionHandlerQueue()
        let release = DispatchSemaphore(value: 0)
        let first = Self.call(on: queues) { release.wait() }

        let second = Self.call(on: queues) {}

        #expect(await second.signalled(within: 10), "the second handler waited behind the first")
        release.signal()
        #expect(await first.signalled(within: 10))
    }

    @Test("when handlers are called one after another, should reuse one queue")
    func reusesIdleQueue() async {
        let queues = CompletionHandlerQueue()

        for _ in 0..<50 {
            #expect(await Self.call(on: queues) {}.signalled(within: 10))
            #expect(await Self.idleCount(of: queues, reaches: 1))
        }

        #expect(queues.idleCount == 1, "a queue was made for a handler while one was idle")
    }

    @Test("when more handlers run at once than are kept idle, should keep only the most allowed")
    func keepsBoundedIdleQueues() async {
        let queues = CompletionHandlerQueue()
        let running = CompletionHandlerQueue.maximumIdleQueues + 6
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let done = (0..<running).map { _ in
            Self.call(on: queues) {
                started.signal()
                release.wait()
            }
        }
        for _ in 0..<running { #expect(await started.signalled(within: 10)) }
        #expect(queues.idleCount == 0, "a queue was idle while its handler ran")

        for _ in 0..<running { release.signal() }
        for handler in done { #expect(await handler.signalled(within: 10)) }

        #expect(await Self.idleCount(of: queues, reaches: CompletionHandlerQueue.maximumIdleQueues))
    }
}
