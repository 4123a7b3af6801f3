import Foundation

/// An executor the framework ships, made by a static member of ``CompletionExecutor``:
/// ``CompletionExecutor/main``, ``CompletionExecutor/queue(_:)``, ``CompletionExecutor/background``
/// or ``CompletionExecutor/immediate``.
///
/// You write the static member where an executor is expected and never name this type:
/// `completionExecutor: .main`.
public struct BuiltInExecutor: CompletionExecutor {
    /// Where the work runs.
    enum Target: Sendable {
        /// Asynchronously, on this queue.
        case queue(DispatchQueue)
        /// At once, on the calling thread.
        case callingThread
    }

    let target: Target

    /// One serial queue shared by every module that uses ``CompletionExecutor/background``.
    static let sharedBackgroundQueue = DispatchQueue(label: "NetworkModule.completions", qos: .userInitiated)

    /// Runs `work` as the executor was made to: asynchronously on its queue, or at once.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        switch target {
        case .queue(let queue): queue.async(execute: work)
        case .callingThread: work()
        }
    }

    /// The queue completions run on, or `nil` for ``CompletionExecutor/immediate``.
    var deliveryQueue: DispatchQueue? {
        if case .queue(let queue) = target { return queue }
        return nil
    }
}

extension CompletionExecutor where Self == BuiltInExecutor {
    /// The main queue: completions can update UI directly. The default.
    public static var main: BuiltInExecutor { .queue(.main) }

    /// A given dispatch queue.
    public static func queue(_ queue: DispatchQueue) -> BuiltInExecutor {
        BuiltInExecutor(target: .queue(queue))
    }

    /// One shared serial background queue (the same queue for every module and call).
    public static var background: BuiltInExecutor { .queue(BuiltInExecutor.sharedBackgroundQueue) }

    /// Completions run at once, on the thread that finished the request: with a fake session
    /// that answers synchronously, a request then completes inside the `perform` call, with no
    /// run loop and no waiting. Meant for tests; in an app, completions would run on the
    /// session's delegate queue.
    public static var immediate: BuiltInExecutor { BuiltInExecutor(target: .callingThread) }
}
