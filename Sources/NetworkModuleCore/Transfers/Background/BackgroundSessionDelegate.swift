import Foundation

#if !canImport(FoundationNetworking)
    /// The delegate of a ``BackgroundSession``'s `URLSession`: turns each callback into an event of
    /// the owning ``BackgroundTransfers``, naming the task by its token (`taskDescription`).
    ///
    /// Kept thin on purpose: what the events mean is decided by the owner's ledger, which is
    /// tested on every platform; this part runs only on Apple platforms.
    final class BackgroundSessionDelegate: NSObject, URLSessionDownloadDelegate, URLSessionDataDelegate,
        @unchecked Sendable
    {
        // @unchecked Sendable is safe: the only mutable state, `owner`, is a LockedState.

        private struct WeakOwner {
            weak var owner: BackgroundTransfers?
        }

        /// Weak: `URLSession` holds its delegate until it is invalidated, and the owner holds the
        /// session; events that come after the owner is gone are dropped.
        private let owner: LockedState<WeakOwner>
        private let credentialHeaderNames: Set<String>

        init(owner: BackgroundTransfers, credentialHeaderNames: Set<String>) {
            self.owner = LockedState(WeakOwner(owner: owner))
            self.credentialHeaderNames = credentialHeaderNames
        }

        private var transfers: BackgroundTransfers? { owner.withLock { $0.owner } }

        private static func token(of task: URLSessionTask) -> String {
            task.taskDescription ?? ""
        }

        // MARK: URLSessionDataDelegate (an upload's reply)

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let transfers, !transfers.systemBodyReceived(token: Self.token(of: dataTask), data: data) else {
                return
            }
            dataTask.cancel()
        }

        // MARK: URLSessionDownloadDelegate

        func urlSession(
            _ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL
        ) {
            // The file at `location` is removed when this returns: it is placed before then.
            transfers?.systemDownloadFinished(
                token: Self.token(of: downloadTask), location: location,
                completion: Self.completion(of: downloadTask, error: nil))
        }

        // MARK: URLSessionTaskDelegate

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let userInfo = (error as NSError?)?.userInfo
            transfers?.systemCompleted(
                token: Self.token(of: task), completion: Self.completion(of: task, error: error),
                resumeData: userInfo?[NSURLSessionDownloadTaskResumeData] as? Data)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // Background sessions follow redirects without asking; should the system ask, the
            // credentials stay with their origin, as on URLSessionTransport.
            completionHandler(
                CredentialHeaders.strippedForRedirect(
                    request, from: task.originalRequest?.url, extraNames: credentialHeaderNames))
        }

        // MARK: URLSessionDelegate

        func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            transfers?.systemEventsFinished()
        }

        private static func completion(of task: URLSessionTask, error: (any Error)?)
            -> BackgroundTransferOutcome.SystemCompletion
        {
            let userInfo = (error as NSError?)?.userInfo
            return BackgroundTransferOutcome.SystemCompletion(
                response: task.response, error: error, body: nil,
                cancelReason: userInfo?[NSURLErrorBackgroundTaskCancelledReasonKey] as? Int,
                bytesSent: task.countOfBytesSent, bytesReceived: task.countOfBytesReceived)
        }
    }
#endif
