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

extension CompletionExecutor where Self == ImmediateExecutor {
    /// Completions run at once on the thread that finished the request; for tests.
    public static var immediate: ImmediateExecutor { ImmediateExecutor() }
}
