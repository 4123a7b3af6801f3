import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of a ``BackgroundSession``'s `URLSession`: turns each callback into an event of
/// the owning ``BackgroundTransfers``, naming the task by its token (`taskDescription`).
///
/// Kept thin on purpose: what the events mean is decided by the owner's ledger, and what a task's
/// end says by ``completion(response:error:bytesSent:bytesReceived:)``. Compiled on every
/// platform, so that its tests drive it on Linux with tasks that are never resumed; only
/// ``BackgroundSession``, which makes the background `URLSession`, is Apple's alone.
final class BackgroundSessionDelegate: NSObject, URLSessionDownloadDelegate, URLSessionDataDelegate,
    @unchecked Sendable
{
    // @unchecked Sendable is safe: the mutable state, `owner` and `refused`, is in LockedStates;
    // the other stored properties are constants of Sendable types.

    private struct WeakOwner {
        weak var owner: BackgroundTransfers?
    }

    /// Weak: `URLSession` holds its delegate until it is invalidated, and the owner holds the
    /// session; events that come after the owner is gone are dropped.
    private let owner: LockedState<WeakOwner>
    private let credentialHeaderNames: Set<String>
    /// The transport's policy, applied to these tasks' server-trust challenges as the transport
    /// applies it to its own (``ServerTrustDecision``).
    private let serverTrust: ServerTrustPolicy
    /// The servers the policy refused: the tasks challenged (by token), and their origins, whose
    /// other tasks `URLSession` cancels with them (``TrustRefusals``). The cancel each then ends
    /// with is reported as the refusal, not as the system's.
    private struct Refused {
        var tokens: Set<String> = []
        var origins = TrustRefusals()
    }
    private let refused = LockedState(Refused())
    /// A task's response: `task.response`, or a test's, whose tasks are never resumed.
    private let responseOf: @Sendable (URLSessionTask) -> URLResponse?

    /// The key of an interrupted download's resume data in its error's `userInfo`: the same
    /// string on every platform, which swift-corelibs-foundation exports without its `NS`.
    #if canImport(FoundationNetworking)
        static let resumeDataKey = URLSessionDownloadTaskResumeData
    #else
        static let resumeDataKey = NSURLSessionDownloadTaskResumeData
    #endif

    init(
        owner: BackgroundTransfers, credentialHeaderNames: Set<String>, serverTrust: ServerTrustPolicy = .system,
        responseOf: @escaping @Sendable (URLSessionTask) -> URLResponse? = { $0.response }
    ) {
        self.owner = LockedState(WeakOwner(owner: owner))
        self.credentialHeaderNames = credentialHeaderNames
        self.serverTrust = serverTrust
        self.responseOf = responseOf
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
            completion: completion(of: downloadTask)
        )
    }

    // MARK: URLSessionTaskDelegate

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let token = Self.token(of: task)
        let url = Self.url(of: task)
        let origin = TrustRefusals.origin(of: url)
        let response = responseOf(task)
        // A cancel the system explains (a reason in its `userInfo`) is the system's own.
        let systemCancel = Self.cancelReason(in: error) != nil
        let refusal: ServerTrustDecision.Refusal? = refused.withLock { refused in
            let challenged = refused.tokens.remove(token) != nil
            let neighbour =
                !systemCancel && refused.origins.explains(error: error, response: response, origin: origin)
            return challenged || neighbour ? .untrustedServer : nil
        }
        transfers?.systemCompleted(
            token: token,
            completion: Self.completion(
                response: response, error: error, refusal: refusal, url: url, bytesSent: task.countOfBytesSent,
                bytesReceived: task.countOfBytesReceived),
            resumeData: Self.resumeData(in: error))
    }

    /// Whether the delegate takes the tasks' challenges: only to hold them to pins. A background
    /// session's delegate that answers challenges has the system wake or relaunch the app for each
    /// one, so under the system's trust it leaves them to the system, unasked.
    static func answersChallenges(under policy: ServerTrustPolicy) -> Bool {
        policy.isPinned
    }

    #if !canImport(FoundationNetworking)
        /// Hides the challenge method from `URLSession` unless ``answersChallenges(under:)``.
        override func responds(to selector: Selector!) -> Bool {
            if selector == #selector(URLSessionTaskDelegate.urlSession(_:task:didReceive:completionHandler:)) {
                return Self.answersChallenges(under: serverTrust)
            }
            return super.responds(to: selector)
        }
    #endif

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // No session-level challenge method: URLSession sends server trust here too. The same
        // decision as URLSessionTransport's, so pins apply to background transfers as well.
        let (evaluation, credential) = ServerTrustDecision.evaluate(challenge.protectionSpace, against: serverTrust)
        let outcome = ServerTrustDecision.decide(
            method: challenge.protectionSpace.authenticationMethod, policy: serverTrust, evaluation: evaluation,
            proposedCredential: challenge.proposedCredential != nil)
        refused.withLock { refused in
            if outcome.refusal == .untrustedServer { refused.tokens.insert(Self.token(of: task)) }
            refused.origins.challengeAnswered(
                in: challenge.protectionSpace, policy: serverTrust, refusal: outcome.refusal)
        }
        completionHandler(outcome.disposition, outcome.disposition == .useCredential ? credential : nil)
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

    /// A requirement of `URLSessionDelegate` on Apple platforms; a plain method elsewhere.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        transfers?.systemEventsFinished()
    }

    // MARK: What a task's end says

    /// What a download task that finished its file tells the ledger.
    private func completion(of task: URLSessionTask) -> BackgroundTransferOutcome.SystemCompletion {
        Self.completion(
            response: responseOf(task), error: nil, url: Self.url(of: task), bytesSent: task.countOfBytesSent,
            bytesReceived: task.countOfBytesReceived)
    }

    /// The URL `task` last asked for.
    private static func url(of task: URLSessionTask) -> URL? {
        task.currentRequest?.url ?? task.originalRequest?.url
    }

    /// What a task to `url` that ended with `response` and `error` tells the ledger: the
    /// system's reason for a cancel (`NSURLErrorBackgroundTaskCancelledReasonKey`) comes from the
    /// error; a task whose challenge was refused (`refusal`) reports the refusal instead of the
    /// cancel that follows it, as ``URLSessionTransport`` does
    /// (``ServerTrustDecision/reportedError(for:url:)``).
    static func completion(
        response: URLResponse?, error: (any Error)?, refusal: ServerTrustDecision.Refusal? = nil, url: URL? = nil,
        bytesSent: Int64, bytesReceived: Int64
    ) -> BackgroundTransferOutcome.SystemCompletion {
        let error = refusal.flatMap { ServerTrustDecision.reportedError(for: $0, url: url) } ?? error
        return BackgroundTransferOutcome.SystemCompletion(
            response: response, error: error, body: nil,
            cancelReason: cancelReason(in: error),
            bytesSent: bytesSent, bytesReceived: bytesReceived)
    }

    /// The system's reason for a cancel (`NSURLErrorBackgroundTaskCancelledReasonKey`) that
    /// `error` carries, if any.
    static func cancelReason(in error: (any Error)?) -> Int? {
        (error as NSError?)?.userInfo[NSURLErrorBackgroundTaskCancelledReasonKey] as? Int
    }

    /// The resume data an interrupted download's `error` carries, if any.
    static func resumeData(in error: (any Error)?) -> Data? {
        (error as NSError?)?.userInfo[resumeDataKey] as? Data
    }
}
