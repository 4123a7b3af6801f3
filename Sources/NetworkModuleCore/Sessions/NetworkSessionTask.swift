/// A task created by a ``NetworkSession``: enough to start and stop it, so that fakes need
/// no `URLSessionDataTask` subclass.
public protocol NetworkSessionTask: Sendable {
    /// Starts the task. Does nothing if the task was cancelled or already started.
    func resume()
    /// Cancels the task.
    ///
    /// Safe at any moment, and the framework relies on it: before `resume()` (the task then
    /// never starts, and lets go of its completion handler; the decorators cancel a task they
    /// no longer want instead of leaving it unresumed), while it runs, after it completed,
    /// and more than once.
    func cancel()
}
