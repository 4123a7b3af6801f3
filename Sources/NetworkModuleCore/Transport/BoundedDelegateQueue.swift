#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// The delegate queue of a ``URLSessionTransport``'s `URLSession` on Linux: it gives the
    /// transfer the backpressure swift-corelibs-foundation lacks, so that the size limit bounds
    /// memory and not only the body.
    ///
    /// swift-corelibs-foundation hands every chunk libcurl reads to the delegate by calling
    /// `delegateQueue.addOperation` on the session's work queue, inside libcurl's write
    /// callback, and returns at once: libcurl reads on however far the delegate lags, and a
    /// server faster than the delegate (loopback, a loaded machine) fills memory with queued
    /// chunks, a gigabyte and more, before the delegate sees the size limit crossed.
    ///
    /// Here `addOperation` waits while ``capacity`` operations are queued and not yet finished,
    /// until half of them have run, so libcurl stops reading (the connection's receive window
    /// fills and the server slows) until the delegate catches up. At most `capacity` chunks
    /// (16 KiB at most each: libcurl's `CURL_MAX_WRITE_SIZE`, which Foundation caps its buffer
    /// at) wait on top of the body the delegate holds.
    ///
    /// A wait lasts at most ``longestWait``: the queue cannot know every caller, and an operation
    /// that waited for the session's work queue (`URLSessionTask.cancel()` does, with
    /// `workQueue.sync`) while the work queue waits here would otherwise deadlock. The transport
    /// never does that (it cancels tasks from a background queue); the bound keeps an
    /// unforeseen cycle a short stall rather than a hang. The bound is 10 ms: a delegate that
    /// lags longer lets libcurl on by one chunk per 10 ms (1.6 MB/s at most), which keeps memory
    /// bounded, while a caller that waits for the work queue (`resume()`, `cancel()`: both
    /// `workQueue.sync`) waits at most 10 ms per chunk libcurl is handing over. An operation
    /// added from this queue itself never waits.
    ///
    /// The operations run on a serial queue of the queue's own, which libdispatch serves from
    /// its overcommitting pool, not on the concurrent queue an `OperationQueue` makes by default,
    /// which shares the pool that has no more threads than cores. The callers of `dataTask`,
    /// `resume()` and `cancel()` wait for the session's work queue (`workQueue.sync`), which
    /// waits here for room: when they held every thread of the shared pool, an operation that
    /// needed one of those threads ran only as libcurl crawled on at one chunk per
    /// ``longestWait``, and every request of the process stalled with it (the integration
    /// suite's requests took 12 s and more on two cores).
    final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {
        // @unchecked Sendable is safe: the only mutable state, `queued`, is touched only while
        // holding `condition`; the rest is immutable or OperationQueue's own (thread-safe).

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

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            let mayWait = OperationQueue.current !== self
            let deadline = Date(timeIntervalSinceNow: longestWait)
            condition.lock()
            while mayWait, queued >= capacity, condition.wait(until: deadline) {}
            queued += 1
            condition.unlock()
            super.addOperation { [weak self] in
                block()
                self?.operationFinished()
            }
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
