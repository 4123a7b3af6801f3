import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The system's side of background transfers, as ``BackgroundTransfers`` uses it: a background
/// `URLSession` on Apple platforms (``BackgroundSession``), a fake in tests, none on Linux. Its
/// events come back through ``BackgroundTransfers``' `system…` methods, from any thread.
protocol BackgroundTaskSystem: Sendable {
    /// Starts delivering the session's events to `owner`, which does not outlive it.
    func attach(to owner: BackgroundTransfers)

    /// Hands `request` to the system as a task named `token`.
    func send(_ request: URLRequest, as task: BackgroundTaskKind, token: String)

    /// Cancels the task named `token`, if the system still has it.
    func cancel(token: String)

    /// Calls `completion` with the tokens of the tasks the system has; a task with no name
    /// counts as the empty token.
    func listTokens(_ completion: @escaping @Sendable (Set<String>) -> Void)
}

/// What kind of task to make.
enum BackgroundTaskKind: Equatable, Sendable {
    /// An upload of the file's bytes.
    case upload(fromFile: URL)
    /// A download, from the start.
    case download
    /// A download that continues from the resume data an interrupted one left.
    case resumedDownload(Data)
}
