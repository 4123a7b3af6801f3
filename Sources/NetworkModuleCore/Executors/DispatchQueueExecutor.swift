import Foundation

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
