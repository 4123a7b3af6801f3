import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension LockedState {
    /// How every decorator hands a request to the session it wraps: creates the task with
    /// no lock held, lets `adopt` (run inside the lock) keep it if the decorator's task still
    /// wants it, and resumes it if so.
    ///
    /// `adopt` returns `false` when the decorator's task was cancelled meanwhile, or when
    /// the wrapped session answered inside `dataTask(with:)`. The task is the wrapped session's
    /// ``TransferringSession/transferTask(with:transfer:completionHandler:)``. The new task is then cancelled,
    /// never resumed: a task left alone would hold its completion handler (and everything
    /// it captures) for as long as the wrapped session keeps it, which for a
    /// swift-corelibs-foundation `URLSession` is until the session is invalidated. Its
    /// answer to the cancel is dropped by the decorator's task, already finished.
    /// (``NetworkSessionTask/cancel()`` before `resume()` is safe: the framework's own
    /// tasks then never reach `URLSession` at all.)
    func send(
        _ request: URLRequest, on session: any TransferringSession, transfer: TransferOptions = TransferOptions(),
        adopt: (inout State, any NetworkSessionTask) -> Bool, completionHandler: @escaping SessionCompletionHandler
    ) {
        let task = session.transferTask(with: request, transfer: transfer, completionHandler: completionHandler)
        if withLock({ adopt(&$0, task) }) {
            task.resume()
        } else {
            task.cancel()
        }
    }
}
