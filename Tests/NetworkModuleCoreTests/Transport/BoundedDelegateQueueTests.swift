#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
    import NetworkModuleTestSupport
    import Testing

    @testable import NetworkModuleCore

    /// Backpressure for the delegate queue of a transport's `URLSession` on Linux, where
    /// swift-corelibs-foundation queues every chunk for the delegate without waiting.
    @Suite("Bounded delegate queue")
    struct BoundedDelegateQueueTests {
        /// Adds `count` operations that do nothing to `queue`.
        private static func fill(_ queue: BoundedDelegateQueue, count: Int) {
            for _ in 0..<count { queue.addOperation {} }
        }

        @Test("when the transport is created on Linux, its session should deliver through a bounded delegate queue")
        func transportUsesBoundedQueue() {
            let transport = URLSessionTransport(configuration: .ephemeral)

            let queue = transport.urlSession.delegateQueue

            #expect(queue is BoundedDelegateQueue)
            #expect(queue.maxConcurrentOperationCount == 1)
        }

        @Test("when the queue holds its capacity, addOperation should wait until an operation finishes")
        func waitsForRoom() async {
            let queue = BoundedDelegateQueue(capacity: 2, longestWait: 60)
            queue.isSuspended = true
            Self.fill(queue, count: 2)
            let added = DispatchSemaphore(value: 0)

            Thread.detachNewThread {
                queue.addOperation {}
                added.signal()
            }

            #expect(await added.signalled(within: 0.3) == false, "added while the queue was full")
            #expect(queue.pendingCount == 2)
            queue.isSuspended = false
            #expect(await added.signalled(within: 10), "still waiting after the queue drained")
        }

        @Test("when the queue stays full, addOperation should add after its longest wait rather than hang")
        func waitIsBounded() async {
            let queue = BoundedDelegateQueue(capacity: 1, longestWait: 0.05)
            queue.isSuspended = true
            Self.fill(queue, count: 1)
            let added = DispatchSemaphore(value: 0)

            Thread.detachNewThread {
                queue.addOperation {}
                added.signal()
            }

            #expect(await added.signalled(within: 10))
            #expect(queue.pendingCount == 2)
            queue.isSuspended = false
        }

        @Test("when an operation on the full queue adds another, it should not wait for itself")
        func addFromTheQueueItselfDoesNotWait() async {
            let queue = BoundedDelegateQueue(capacity: 1, longestWait: 60)
            let added = DispatchSemaphore(value: 0)

            queue.addOperation {
                queue.addOperation {}
                added.signal()
            }

            #expect(await added.signalled(within: 5), "an operation waited for room it held itself")
        }

        /// How many blocks the starved-pool probe queues on Dispatch's shared pool.
        private static let starvingBlocks = 8

        @Test(
            "probe (child process only): blocks on Dispatch's shared pool wait for the delegate queue",
            .enabled(if: ChildProcess.isProbe("starved-pool")))
        func probeStarvedPool() async {
            let queue = BoundedDelegateQueue()
            let delegateRan = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            let released = LockedState(0)
            // Each block holds a thread of the shared pool until the delegate queue has run an
            // operation, as callers of `dataTask(with:)`, `resume()` and `cancel()` do on Linux:
            // they wait for the session's work queue, which waits for room on this queue.
            for _ in 0..<Self.starvingBlocks {
                DispatchQueue.global().async(group: group) {
                    if delegateRan.wait(timeout: .now() + 5) == .success { released.withLock { $0 += 1 } }
                }
            }
            queue.addOperation {
                for _ in 0..<Self.starvingBlocks { delegateRan.signal() }
            }
            await waitOffThePool { group.wait() }

            #expect(released.withLock { $0 } == Self.starvingBlocks, "blocks gave up before the delegate queue ran")
        }

        @Test(
            "when every thread of Dispatch's shared pool waits for the delegate queue, its operations should still run"
        )
        func runsWhileThePoolIsStarved() async throws {
            let outcome = try await ChildProcess.run(probe: "starved-pool", filter: "probeStarvedPool", timeout: 120)

            #expect(outcome.succeeded, "\(outcome.output)")
        }

        @Test("when every operation has run, no room should stay taken")
        func countsFinishedOperations() async {
            let queue = BoundedDelegateQueue(capacity: 4, longestWait: 60)
            Self.fill(queue, count: 100)

            await waitOffThePool { queue.waitUntilAllOperationsAreFinished() }

            #expect(queue.pendingCount == 0)
        }
    }
#endif
