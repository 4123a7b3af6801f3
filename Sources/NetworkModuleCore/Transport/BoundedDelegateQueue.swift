#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// The delegate queue of a ``URLSessionTransport``'s `URLSession` on Linux: it gives the
    /// transfer the backpressure swift-corelibs-foundation lacks, so that the size limit bounds
    /// memory and not only the body.
    ///
    /// swift-corelibs-foundation hands every chunk to the delegate with `delegateQueue.addOperation`
    /// inside libcurl's write callback and returns at once: a server faster than the delegate
    /// would fill memory with queued chunks before the size limit is seen crossed. Here
    /// `addOperation` waits while ``capacity`` operations are pending, until half have run, so
    /// libcurl stops reading (the receive window fills) until the delegate catches up.
    ///
    /// A wait lasts at most ``longestWait``: an operation that waits for the session's work queue
    /// (`resume()`, `cancel()`: `workQueue.sync`) while the work queue waits here would otherwise
    /// deadlock. The transport cancels from a background queue, but a short completion handler
    /// (``TransferOptions/handlerIsShort``) runs the caller's `.immediate` completion here, which
    /// may start the next request: while 256 chunks wait, its `resume()` stalls for at most that
    /// bound, and memory stays bounded. An operation added from this queue itself never waits.
    ///
    /// The operations run on a serial queue of their own (libdispatch's overcommitting pool), not
    /// on a default concurrent `OperationQueue`, whose pool has no more threads than cores: when
    /// callers waiting for the work queue held all of those, every request of the process stalled.
    ///
    /// A block goes straight to that queue, not through `OperationQueue`'s machinery (an
    /// `Operation`, key-value observing and two locks for each): swift-corelibs-foundation only
    /// ever adds blocks to its delegate queue, three a small request, and the machinery cost the
    /// transport 40 to 60 µs of CPU a request (docs/performance.md). ``isSuspended`` and
    /// ``waitUntilAllOperationsAreFinished()`` act on the blocks as `OperationQueue`'s do; an
    /// `Operation` object (which URLSession never adds) still goes through `OperationQueue`, on the
    /// same serial queue.
    final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {
        // @unchecked Sendable is safe: the mutable state, `queued` and `suspended`, is touched
        // only while holding `condition`; the rest is immutable or OperationQueue's own
        // (thread-safe).

        /// How many operations may be queued and not yet finished before `addOperation` waits.
        let capacity: Int

        /// The longest one `addOperation` call waits for room.
        let longestWait: TimeInterval

        /// Where the operations run. Held here: `OperationQueue.underlyingQueue` does not keep
        /// the queue it is given alive (`unowned(unsafe)` in swift-corelibs-foundation).
        private let operationsQueue = DispatchQueue(label: "NetworkModule.URLSessionTransport.delegate")

        /// Guards `queued`, and wakes a waiting `addOperation` when half the room is free.
        private let condition = NSCondition()
        /// Operations added through `addOperation(_:)` and not yet finished.
        private var queued = 0
        /// Whether `operationsQueue` is suspended by ``isSuspended``.
        private var suspended = false
        /// The queue whose block the current thread is running, if any: per thread, as
        /// `OperationQueue.current` answers, so that a block that adds another through a queue it
        /// waits on (`sync`) is still known as this queue's.
        private static let runningQueue: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key, nil)
            return key
        }()

        init(capacity: Int = 256, longestWait: TimeInterval = 0.01) {
            self.capacity = max(1, capacity)
            self.longestWait = longestWait
            super.init()
            maxConcurrentOperationCount = 1
            name = "NetworkModule.URLSessionTransport.delegate"
            underlyingQueue = operationsQueue
        }

        /// The number of operations added and not yet finished (for tests).
        var pendingCount: Int {
            condition.lock()
            defer { condition.unlock() }
            return queued
        }

        /// Whether the current thread is running one of this queue's blocks.
        private var isRunningOnThisThread: Bool {
            pthread_getspecific(Self.runningQueue) == Unmanaged.passUnretained(self).toOpaque()
        }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            let mayWait = !isRunningOnThisThread
            let deadline = Date(timeIntervalSinceNow: longestWait)
            condition.lock()
            while mayWait, queued >= capacity, condition.wait(until: deadline) {}
            queued += 1
            condition.unlock()
            operationsQueue.async { [weak self] in
                let outer = pthread_getspecific(Self.runningQueue)
                pthread_setspecific(Self.runningQueue, self.map { Unmanaged.passUnretained($0).toOpaque() })
                block()
                pthread_setspecific(Self.runningQueue, outer)
                self?.operationFinished()
            }
        }

        deinit {
            // libdispatch traps on the release of a suspended queue.
            if suspended { operationsQueue.resume() }
        }

        /// Whether the blocks wait: set, no block starts until it is cleared.
        override var isSuspended: Bool {
            get {
                condition.lock()
                defer { condition.unlock() }
                return suspended
            }
            set {
                condition.lock()
                defer { condition.unlock() }
                guard newValue != suspended else { return }
                suspended = newValue
                if newValue { operationsQueue.suspend() } else { operationsQueue.resume() }
                super.isSuspended = newValue
            }
        }

        /// Waits until every block added so far has run. Called from one of the queue's own
        /// blocks (a completion the module runs on the delegate queue), returns at once: the
        /// blocks before it have run, and the ones after it cannot run until it returns.
        override func waitUntilAllOperationsAreFinished() {
            guard !isRunningOnThisThread else { return }
            operationsQueue.sync {}
            super.waitUntilAllOperationsAreFinished()
        }

        private func operationFinished() {
            condition.lock()
            queued -= 1
            // Waiters wake when half the room is free, not at each operation: one wake-up adds
            // many chunks, rather than a thread switch per chunk while the queue is full.
            if queued == capacity / 2 { condition.broadcast() }
            condition.unlock()
        }
    }
#endif
