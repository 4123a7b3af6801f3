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
            // Queued blocks: an idle queue would run the block inline, on this thread.
            let queue = BoundedDelegateQueue(runsIdleBlocksInline: false)
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

        // MARK: Blocks run inline while the queue is idle

        @Test("when the queue is idle, a block should run at once on the thread that adds it")
        func idleBlockRunsInline() {
            let queue = BoundedDelegateQueue()
            let adder = pthread_self()
            let ranOn = LockedState<pthread_t?>(nil)

            queue.addOperation { ranOn.withLock { $0 = pthread_self() } }

            #expect(ranOn.withLock { $0 }.map { pthread_equal($0, adder) != 0 } == true)
            #expect(queue.pendingCount == 0)
        }

        @Test("when a block is pending, a block added should queue behind it, not run inline")
        func busyQueueQueues() async {
            let queue = BoundedDelegateQueue()
            queue.isSuspended = true
            let runs = LockedState<[Int]>([])
            queue.addOperation { runs.withLock { $0.append(1) } }

            queue.addOperation { runs.withLock { $0.append(2) } }

            #expect(runs.withLock { $0 }.isEmpty, "a block ran past a suspended queue")
            queue.isSuspended = false
            await waitOffThePool { queue.waitUntilAllOperationsAreFinished() }
            #expect(runs.withLock { $0 } == [1, 2])
        }

        @Test(
            "when an inline block passes work off the work queue, it should run on the queue's thread, before every block added after"
        )
        func callOutFromInlineQueuesInOrder() async {
            let queue = BoundedDelegateQueue()
            let adder = pthread_self()
            let runs = LockedState<[String]>([])
            let callOutThread = LockedState<pthread_t?>(nil)

            queue.addOperation {
                runs.withLock { $0.append("inline") }
                BoundedDelegateQueue.runOffTheWorkQueue {
                    callOutThread.withLock { $0 = pthread_self() }
                    runs.withLock { $0.append("call-out") }
                }
            }
            queue.addOperation { runs.withLock { $0.append("next") } }
            await waitOffThePool { queue.waitUntilAllOperationsAreFinished() }

            #expect(runs.withLock { $0 } == ["inline", "call-out", "next"])
            #expect(callOutThread.withLock { $0 }.map { pthread_equal($0, adder) == 0 } == true)
            #expect(queue.pendingCount == 0)
        }

        @Test("when not inside an inline block, work passed off the work queue should run at once, where it is")
        func callOutElsewhereRunsAtOnce() async {
            let queue = BoundedDelegateQueue(runsIdleBlocksInline: false)
            let here = LockedState(false)
            let onTheQueue = LockedState(false)

            BoundedDelegateQueue.runOffTheWorkQueue { here.withLock { $0 = true } }
            queue.addOperation {
                let ranAtOnce = LockedState(false)
                BoundedDelegateQueue.runOffTheWorkQueue { ranAtOnce.withLock { $0 = true } }
                onTheQueue.withLock { $0 = ranAtOnce.withLock { $0 } }
            }
            await waitOffThePool { queue.waitUntilAllOperationsAreFinished() }

            #expect(here.withLock { $0 })
            #expect(onTheQueue.withLock { $0 }, "a block already on the queue's thread queued its work again")
        }

        @Test("when a block runs inline on another thread, waitUntilAllOperationsAreFinished should wait for it")
        func waitIncludesInlineBlocks() async {
            let queue = BoundedDelegateQueue()
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let finished = LockedState(false)
            Thread.detachNewThread {
                queue.addOperation {
                    started.signal()
                    _ = release.wait(timeout: .now() + 30)
                    finished.withLock { $0 = true }
                }
            }
            #expect(await started.signalled(within: 10))
            let waited = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                queue.waitUntilAllOperationsAreFinished()
                waited.signal()
            }

            #expect(await waited.signalled(within: 0.3) == false, "returned while an inline block ran")
            release.signal()
            #expect(await waited.signalled(within: 10))
            #expect(finished.withLock { $0 })
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
