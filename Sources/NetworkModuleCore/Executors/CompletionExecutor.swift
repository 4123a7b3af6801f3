import Foundation

/// Where a module delivers completions: the main queue, a queue of your choice, or
/// immediately on the thread that finished the request (for tests).
///
/// ```swift
/// let app = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .main)
/// let images = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .queue(imageQueue))
/// let worker = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .background)
/// let tests = DefaultNetworkModule(requestBuilder: builder, session: fake, completionExecutor: .immediate)
/// ```
public protocol CompletionExecutor: Sendable {
    /// Runs `work` once, on this executor's thread or queue.
    func execute(_ work: @escaping @Sendable () -> Void)
}
