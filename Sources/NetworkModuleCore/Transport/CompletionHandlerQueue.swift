import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the framework's sessions call their tasks' completion handlers: off `URLSession`'s
/// delegate queue, each on a thread of its own when the others are busy.
///
/// A `URLSession` delegate queue is serial, and what a completion handler starts runs on it:
/// the module's actions' hooks, the decoding of `performAndDecode`, a completion delivered with
/// `.immediate`. On the delegate queue, one large decode or one slow hook would hold up every
/// other task of the session, the delivery of their responses included.
///
/// Each call gets a serial queue of its own rather than a place on one shared concurrent queue:
/// on Linux, libdispatch gives a concurrent queue no more threads than the machine has cores,
/// even while they all sleep in a slow hook, whereas a serial queue runs on the overcommitting
/// pool, which starts a thread when none is free. (Measured with the benchmark's head-of-line
/// mode: with a shared concurrent queue on two cores, small requests waited up to 40 ms behind
/// two 50 ms hooks.) Each request's handler is still called exactly once; requests were never
/// ordered with each other.
enum CompletionHandlerQueue {
    /// Calls `handler` with the task's outcome, off the caller's queue.
    static func call(
        _ handler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void, data: Data?,
        response: URLResponse?, error: (any Error)?
    ) {
        DispatchQueue(label: "NetworkModule.completionHandler").async { handler(data, response, error) }
    }
}
