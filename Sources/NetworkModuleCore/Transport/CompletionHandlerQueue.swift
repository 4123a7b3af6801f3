import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the framework's sessions call their tasks' completion handlers: off `URLSession`'s
/// delegate queue, each on a serial queue that no other handler is using at the time.
///
/// A `URLSession` delegate queue is serial, and what a completion handler starts runs on it:
/// the module's actions' hooks, the decoding of `performAndDecode`, a completion delivered with
/// `.immediate`. On the delegate queue, one large decode or one slow hook would hold up every
/// other task of the session, the delivery of their responses included.
///
/// Each call runs on a serial queue of its own rather than on one shared concurrent queue: on
/// Linux, libdispatch gives a concurrent queue no more threads than the machine has cores, even
/// while they all sleep in a slow hook, whereas a serial queue runs on the overcommitting pool,
/// which starts a thread when none is free. (Measured with the benchmark's head-of-line mode:
/// with a shared concurrent queue on two cores, small requests waited up to 40 ms behind two
/// 50 ms hooks.)
///
/// The queues are reused rather than made per call: a call takes an idle queue (or makes one
/// when every queue is busy) and gives it back once its handler has returned, so a queue never
/// holds a handler that waits behind another, and a steady stream of requests makes no new
/// queue. At most ``maximumIdleQueues`` idle queues are kept; the rest are released. Each
/// request's handler is still called exactly once; requests were never ordered with each other.
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
        let queue = idle.withLock { $0.popLast() } ?? DispatchQueue(label: "NetworkModule.completionHandler")
        queue.async {
            handler(data, response, error)
            self.idle.withLock { queues in
                if queues.count < Self.maximumIdleQueues { queues.append(queue) }
            }
        }
    }
}
