import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a module delivers completions: the main queue, a queue of your choice, or
/// immediately on the thread that finished the request (for tests).
///
/// ```swift
/// DefaultNetworkModule(requestBuilder: builder, completionExecutor: .main)
/// DefaultNetworkModule(requestBuilder: builder, completionExecutor: .queue(myQueue))
/// DefaultNetworkModule(requestBuilder: builder, completionExecutor: .background)
/// DefaultNetworkModule(requestBuilder: builder, session: fake, completionExecutor: .immediate)
/// ```
public protocol CompletionExecutor: Sendable {
    /// Runs `work` once, on this executor's thread or queue.
    func execute(_ work: @escaping @Sendable () -> Void)
}

/// Runs completions asynchronously on a dispatch queue.
public struct DispatchQueueExecutor: CompletionExecutor {
    /// The queue completions run on.
    public let queue: DispatchQueue

    /// Creates an executor that runs completions on `queue`.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Runs `work` asynchronously on ``queue``.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// One serial queue shared by every module that uses ``CompletionExecutor/background``.
    static let sharedBackgroundQueue = DispatchQueue(
        label: "NetworkModule.completions", qos: .userInitiated)
}

/// Runs completions at once, on the thread that finished the request.
///
/// With a fake session that answers synchronously, a request then completes inside the
/// `perform` call: no run loop, no waiting. Meant for tests; in an app, completions would
/// run on URLSession's delegate queue.
public struct ImmediateExecutor: CompletionExecutor {
    /// Creates an immediate executor.
    public init() {}

    /// Runs `work` now, on the calling thread.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        work()
    }
}

extension CompletionExecutor where Self == DispatchQueueExecutor {
    /// The main queue: completions can update UI directly. The default.
    public static var main: DispatchQueueExecutor { DispatchQueueExecutor(queue: .main) }

    /// A given dispatch queue.
    public static func queue(_ queue: DispatchQueue) -> DispatchQueueExecutor {
        DispatchQueueExecutor(queue: queue)
    }

    /// One shared serial background queue (the same queue for every module and call).
    public static var background: DispatchQueueExecutor {
        DispatchQueueExecutor(queue: DispatchQueueExecutor.sharedBackgroundQueue)
    }
}

extension CompletionExecutor where Self == ImmediateExecutor {
    /// Completions run at once on the thread that finished the request; for tests.
    public static var immediate: ImmediateExecutor { ImmediateExecutor() }
}
