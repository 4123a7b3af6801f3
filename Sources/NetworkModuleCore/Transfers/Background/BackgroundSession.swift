import Foundation

#if !canImport(FoundationNetworking)
    /// The background `URLSession` of a ``BackgroundTransfers`` (Apple platforms only): makes its
    /// tasks, names each with its transfer's token (`taskDescription`), and hands the delegate's
    /// events to the owner through ``BackgroundSessionDelegate``.
    ///
    /// The session is made by ``attach(to:)``, once the owner can take events: a background
    /// session delivers what happened while the app was away as soon as it exists.
    final class BackgroundSession: BackgroundTaskSystem {
        let identifier: String
        private let credentialHeaderNames: Set<String>
        private let serverTrust: ServerTrustPolicy
        private let session = LockedState<URLSession?>(nil)

        /// - Parameters:
        ///   - identifier: the background configuration's identifier.
        ///   - credentialHeaderNames: more header names removed from a redirect to another origin,
        ///     lowercased, should the system ask the delegate.
        ///   - serverTrust: the module's transport's policy, applied to these tasks too.
        init(identifier: String, credentialHeaderNames: Set<String>, serverTrust: ServerTrustPolicy) {
            self.identifier = identifier
            self.credentialHeaderNames = credentialHeaderNames
            self.serverTrust = serverTrust
        }

        deinit {
            // The system's tasks go on; the session object stops being this process's.
            session.withLock { $0 }?.finishTasksAndInvalidate()
        }

        func attach(to owner: BackgroundTransfers) {
            let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
            let delegate = BackgroundSessionDelegate(
                owner: owner, credentialHeaderNames: credentialHeaderNames, serverTrust: serverTrust)
            let urlSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
            session.withLock { $0 = urlSession }
        }

        func send(_ request: URLRequest, as task: BackgroundTaskKind, token: String) {
            guard let urlSession = session.withLock({ $0 }) else { return }
            let made: URLSessionTask =
                switch task {
                case .upload(let file): urlSession.uploadTask(with: request, fromFile: file)
                case .download: urlSession.downloadTask(with: request)
                case .resumedDownload(let data): urlSession.downloadTask(withResumeData: data)
                }
            made.taskDescription = token
            made.resume()
        }

        func cancel(token: String) {
            session.withLock { $0 }?.getAllTasks { tasks in
                for task in tasks where (task.taskDescription ?? "") == token { task.cancel() }
            }
        }

        func listTokens(_ completion: @escaping @Sendable (Set<String>) -> Void) {
            // `getAllTasks` lists every task of the session until its end has been delivered to
            // the delegate ("not including any tasks that have been invalidated after completing,
            // failing, or being cancelled"), and the delegate writes an end down before it
            // returns; so a transfer of an earlier launch that is neither listed nor ended is one
            // the system no longer has (a task never resumed before a crash, or one whose events
            // were dropped), which the ledger reports as lost.
            // No session, no list: a list that was never made must not make transfers look lost.
            session.withLock { $0 }?.getAllTasks { tasks in completion(Set(tasks.map { $0.taskDescription ?? "" })) }
        }
    }
#endif
