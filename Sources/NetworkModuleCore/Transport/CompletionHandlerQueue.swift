import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the framework's sessions call their tasks' completion handlers: off `URLSession`'s
/// serial delegate queue, where one large decode or slow hook started by a handler would hold up
/// every other task of the session, each on a serial queue no other handler is using.
///
/// Serial queues, not one shared concurrent queue: on Linux libdispatch gives a concurrent queue
/// no more threads than cores, even while they sleep in a slow hook, whereas serial queues run on
/// the overcommitting pool (the benchmark's head-of-line mode shows it). Idle queues are reused,
/// at most ``maximumIdleQueues``, so a steady stream of requests makes no new queue and no
/// handler waits behind another. Each handler is still called exactly once.
final class CompletionHandlerQueue: Sendable {
    /// The queues of the framework's sessions.
    static let shared = CompletionHandlerQueue()

    /// The most idle queues kept for reuse: more than a process has handlers running at once in
    /// any measured load (the benchmark's 32 in flight), few enough to cost nothing when idle.
    static let maximumIdleQueues = 64

    /// Queues whose last handler has returned, the most recently freed last.
    private let idle = LockedState<[DispatchQueue]>([])

    /// How many idle queues are kept now.
    var idleCount: Int { idle.withLock { $0.count } }

    /// Calls `handler` with the task's outcome, off the caller's queue, on a queue that runs
    /// nothing else until it returns.
    func call(
        _ handler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void, data: Data?,
        response: URLResponse?, error: (any Error)?
    ) {
        run { handler(data, response, error) }
    }

    /// Runs `work` off the caller's queue, on a queue that runs nothing else until it returns.
    func run(_ work: @escaping @Sendable () -> Void) {
        let queue = idle.withLock { $0.popLast() } ?? DispatchQueue(label: "NetworkModule.completionHandler")
        queue.async {
            work()
            self.idle.withLock { queues in
                if queues.count < Self.maximumIdleQueues { queues.append(queue) }
            }
        }
    }
}
