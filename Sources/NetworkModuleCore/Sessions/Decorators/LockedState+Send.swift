import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension LockedState {
    /// How every decorator hands a request to the session it wraps: creates the wrapped session's
    /// task with no lock held, lets `adopt` (inside the lock) keep it if the decorator's task
    /// still wants it, and resumes it if so. When `adopt` returns `false` (the decorator's task
    /// was cancelled, or the wrapped session answered inside the call), the new task is cancelled,
    /// never resumed: left alone, it would hold its completion handler as long as the wrapped
    /// session keeps it (for swift-corelibs-foundation, until the session is invalidated). Its
    /// answer to the cancel is dropped; a cancel before `resume()` is safe.
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
