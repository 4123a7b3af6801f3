import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Security) && !canImport(FoundationNetworking)
    import Security
#endif

/// The delegate of a transport's `URLSession`: collects each task's body (or hands it to the
/// task's ``TransportTaskOptions``, which writes it to a file) and reports its outcome once.
final class TransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable is safe: the only mutable state, `tasks` and `trustRefusals`, is in
    // LockedStates.

    private let maximumResponseSize: Int?
    private let credentialHeaderNames: Set<String>
    private let serverTrust: ServerTrustPolicy
    /// The transport's tasks (``TransportTaskTable``).
    private let tasks = LockedState(TransportTaskTable())
    /// The origins whose server the pins refused: the other tasks of a refused connection,
    /// which `URLSession` cancels, fail for the same reason.
    private let trustRefusals = LockedState(TrustRefusals())

    /// Whether HTTPS must be refused: certificates are pinned where pinning cannot be enforced.
    let refusesHTTPS: Bool
    /// Where this session's tasks are cancelled (``cancelWithoutWaiting(_:)``): one serial queue,
    /// so that a burst of cancels holds one of Dispatch's shared threads, not all of them.
    private let cancellations = DispatchQueue(label: "NetworkModule.URLSessionTransport.cancellations")

    init(maximumResponseSize: Int?, credentialHeaderNames: Set<String>, serverTrust: ServerTrustPolicy) {
        self.maximumResponseSize = maximumResponseSize
        self.credentialHeaderNames = credentialHeaderNames
        self.serverTrust = serverTrust
        self.refusesHTTPS = serverTrust.isPinned && LinuxURLSessionQuirks.pinningUnsupported
    }

    static func isHTTPS(_ url: URL?) -> Bool {
        guard let scheme = url?.scheme?.lowercased() else { return false }
        return scheme == "https" || scheme == "wss"
    }

    /// Adds the record of a task sending `request`, with an idle timeout of `timeout` once it
    /// runs (Linux; `nil` for none): returns its key.
    func add(
        request: URLRequest, timeout: TimeInterval?, redirectPolicy: RedirectPolicy, transfer: TransportTaskOptions?,
        handlerIsShort: Bool, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> Int {
        let record = TransportTaskRecord(
            request: request, completionHandler: completionHandler, handlerIsShort: handlerIsShort,
            redirectPolicy: redirectPolicy, timeout: timeout, transfer: transfer)
        return tasks.withLock { $0.add(record) }
    }

    /// The task `key` was resumed: the request to send, the first time only.
    func resume(_ key: Int) -> URLRequest? {
        tasks.withLock { $0.resume(key) }
    }

    /// The task `key` is sent in `task`, then gets its idle deadline. In that order: a deadline
    /// that expires at once, or an early answer, must find the record. Returns whether `task`
    /// may run: `false` once the task `key` finished (cancelled), and `task` must be stopped.
    func start(_ key: Int, in task: URLSessionDataTask) -> Bool {
        guard let idle = tasks.withLock({ $0.start(key, in: task) }) else { return false }
        scheduleDeadline(of: task, idle)
        return true
    }

    /// The caller cancelled the task `key`: reports `.cancelled` once, from the caller's thread,
    /// then cancels its `URLSessionDataTask` (``cancelWithoutWaiting(_:)``).
    func cancel(_ key: Int) {
        guard let record = tasks.withLock({ $0.remove(key: key) }) else { return }
        record.end()
        record.completionHandler(nil, nil, URLError.cancelled(record.redirects.caller))
        if case .running(let task) = record.phase { cancelWithoutWaiting(task) }
    }

    /// Cancels `task` off the caller's thread, so that no caller waits for it: on Linux
    /// `cancel()` waits for the session's work queue, which may wait for room on the delegate
    /// queue (`BoundedDelegateQueue`). The outcome is reported before; later chunks are dropped.
    ///
    /// The cancels run one after another on this session's own queue: each waits for the same
    /// serial work queue anyway, and a burst of them (hundreds of timeouts when a server stops
    /// answering) sent to `DispatchQueue.global()` would block every thread of its pool, as wide
    /// as the cores, and stall all other work of the process that runs there.
    func cancelWithoutWaiting(_ task: URLSessionTask) {
        cancellations.async { task.cancel() }
    }

    /// Drops the task `key` if it was never resumed: its caller's task was released.
    func discard(_ key: Int) {
        tasks.withLock { $0.discard(key) }
    }

    /// Gives the record `task` runs its idle deadline, if it has a timeout.
    private func scheduleDeadline(of task: URLSessionDataTask, _ idle: TransportTaskRecord.Idle) {
        guard let timeout = idle.timeout else { return }
        let url = idle.url
        let identifier = task.taskIdentifier
        let deadline = ResponseDeadlines.shared.schedule(
            after: timeout,
            lastActivity: { [weak self] in
                let now = DispatchTime.now().uptimeNanoseconds
                return self?.tasks.withLock { $0.modify(task: identifier) { $0.activity(now: now) } } ?? nil
            },
            onExpiry: { [weak self] in
                self?.fail(identifier, with: URLError.timedOut(url))
                self?.cancelWithoutWaiting(task)
            })
        let isPending = tasks.withLock { $0.modify(task: identifier) { $0.deadline = deadline } } != nil
        if !isPending { deadline.cancel() }
    }

    /// Fails task `identifier` with `error`, once; later calls for it do nothing.
    private func fail(_ identifier: Int, with error: any Error) {
        finish(identifier) { _ in (nil, nil, error) }
    }

    /// Takes the record of task `identifier` out of the table, once, and reports what `report`
    /// makes of it after the transfer's file is closed (the module may remove it or resume it
    /// from there): on ``CompletionHandlerQueue``, off the delegate queue, unless the handler is
    /// short (``TransferOptions/handlerIsShort``).
    private func finish(
        _ identifier: Int,
        report: (TransportTaskRecord) -> (data: Data?, response: URLResponse?, error: (any Error)?)
    ) {
        guard let record = tasks.withLock({ $0.remove(task: identifier) }) else { return }
        record.end()
        let (data, response, error) = report(record)
        if record.handlerIsShort {
            record.completionHandler(data, response, error)
        } else {
            CompletionHandlerQueue.shared.call(record.completionHandler, data: data, response: response, error: error)
        }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // A body declared larger than the limit fails before any of it is read. (Linux ignores
        // the disposition: the task is cancelled as well.)
        let identifier = dataTask.taskIdentifier
        if let limit = maximumResponseSize, let response = response as? HTTPURLResponse,
            let declared = ResponseFraming.declaredBodyLength(
                of: response, method: dataTask.currentRequest?.httpMethod),
            declared > limit
        {
            fail(identifier, with: NetworkError.responseTooLarge(limit: limit))
            completionHandler(.cancel)
            cancelWithoutWaiting(dataTask)
            return
        }
        // The head is activity for the idle timeout, as bytes of the body are. The room for its
        // body is read from it here, outside the tasks' lock (a Foundation getter).
        let now = DispatchTime.now().uptimeNanoseconds
        let head = (response as? HTTPURLResponse).flatMap { response in
            let capacity = URLSessionTransport.initialBodyCapacity(for: response, limit: maximumResponseSize)
            return tasks.withLock { tasks in
                tasks.modify(task: identifier) { $0.headArrived(response, capacity: capacity, at: now) }
            }
        }
        if case .restartRefused(let streamed)? = head {
            // The body started over after part of it was handed on: failing is retryable, and
            // never hands the same bytes on twice.
            let error = URLError(
                .networkConnectionLost,
                message: "The server started the response again after \(streamed) bytes of it were streamed.",
                failingURL: response.url)
            fail(identifier, with: error)
            completionHandler(.cancel)
            cancelWithoutWaiting(dataTask)
            return
        }
        if let response = response as? HTTPURLResponse, case .proceed(let transfer?)? = head {
            // The file is opened (or the open refused, once the task has finished) outside the
            // tasks' lock; chunks come after this method returns.
            do throws(URLError) {
                if try transfer.responseArrived(response, method: dataTask.currentRequest?.httpMethod) {
                    tasks.withLock { _ = $0.modify(task: identifier) { $0.fileOpened() } }
                }
            } catch {
                fail(identifier, with: error)
                completionHandler(.cancel)
                cancelWithoutWaiting(dataTask)
                return
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Called for every chunk of every body (about 16 KB each on Linux): one look-up, one
        // lock, the body appended in place, and the time stored for the idle timeout.
        let identifier = dataTask.taskIdentifier
        let now = DispatchTime.now().uptimeNanoseconds
        let outcome = tasks.withLock { tasks in
            tasks.modify(task: identifier) { $0.chunkArrived(data, limit: maximumResponseSize, at: now) } ?? .dropped
        }
        switch outcome {
        case .collected, .dropped:
            return
        case .transferred(let transfer, let received):
            // Written outside the tasks' lock: a slow disk holds up this task only.
            do throws(URLError) {
                try transfer.bodyReceived(data, totalReceived: received)
            } catch {
                fail(identifier, with: error)
                cancelWithoutWaiting(dataTask)
            }
        case .streamed(let sink, let response, let pause):
            // The sink is the module's: called outside the lock.
            if !sink.receive(data, of: response, onRoom: { pause?.resume() }) { pause?.pause() }
        case .overLimit(let limit):
            fail(identifier, with: NetworkError.responseTooLarge(limit: limit))
            cancelWithoutWaiting(dataTask)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        // Bytes sent count as activity too, as for Apple's idle timeout: a slow upload is not cut off.
        let now = DispatchTime.now().uptimeNanoseconds
        let transfer = tasks.withLock { tasks in
            tasks.modify(task: task.taskIdentifier) { $0.bodySent(at: now) }
        }
        transfer??.bodySent(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    /// `URLSession` needs the body again (a 307 or 308 redirect, an authentication challenge):
    /// a fresh stream when the request builder made it (``TransportTaskRecord/bodySource``, not
    /// `task.originalRequest`, `URLSession`'s copy); `nil` otherwise, which fails the task with
    /// `URLError.requestBodyStreamExhausted` rather than send an empty or partial body.
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        let source = tasks.withLock { $0.modify(task: task.taskIdentifier) { $0.bodySource } } ?? nil
        // The stream is made outside the lock: it may open a file.
        completionHandler(source.flatMap { try? $0.newStream() })
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let refusals = trustRefusals.withLock { $0 }
        finish(task.taskIdentifier) { record in
            record.report(error: error, response: task.response, sent: task.currentRequest, refusals: refusals)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Every fact of the hop comes from the request's chain (RedirectChain), carried by the
        // record from task to task: `task` may be one the transport sent the request again in.
        let identifier = task.taskIdentifier
        let now = DispatchTime.now().uptimeNanoseconds
        let hop = tasks.withLock { tasks in
            tasks.modify(task: identifier) { $0.redirected(at: now) }
        }
        // A task with no record was finished already (cancelled, timed out): follow nothing.
        guard let hop else {
            completionHandler(nil)
            return
        }
        let (policy, redirects) = hop
        if redirects.isPastLimit {
            // One limit for the whole chain, however each hop was followed: Linux's URLSession
            // counts again from zero in each task the transport sends the request in.
            stop(task, completionHandler, error: RedirectChain.tooManyRedirects(url: response.url))
            return
        }
        // The policy sees the next request without credentials if it leaves the caller's
        // origin, and whatever it returns loses them again: no policy can send them to another
        // origin.
        let proposal = redirects.proposal(after: response.statusCode, proposed: request)
        let proposed = CredentialHeaders.strippedForRedirect(
            proposal.request, from: redirects.callerURL, extraNames: credentialHeaderNames)
        // The policy is the caller's code: it runs outside the lock.
        guard let chosen = policy.nextRequest(after: response, next: proposed, hopNumber: redirects.hops) else {
            // Refused: URLSession completes the task with the redirect response and its body.
            completionHandler(nil)
            return
        }
        let redirected = CredentialHeaders.strippedForRedirect(
            chosen, from: redirects.callerURL, extraNames: credentialHeaderNames)
        // Header fields the policy set pass the one check before the wire; those it left as
        // proposed were checked before the first hop.
        do throws(NetworkError) {
            if chosen.allHTTPHeaderFields != proposed.allHTTPHeaderFields { try HeaderValidation.validate(redirected) }
        } catch {
            stop(task, completionHandler, error: error)
            return
        }
        if refusesHTTPS, Self.isHTTPS(redirected.url) {
            // Fail closed: a redirect must not reach an HTTPS server unpinned either.
            stop(task, completionHandler, error: LinuxURLSessionQuirks.pinningUnsupportedError(url: redirected.url))
            return
        }
        switch redirects.sending(redirected, as: proposal) {
        case .followed(let next):
            let isPending = tasks.withLock { tasks in
                tasks.modify(task: identifier) { $0.followed(next, as: proposal) } != nil
            }
            completionHandler(isPending ? next : nil)
        case .sentAgain(let next):
            // Linux's URLSession would send it without its body (a 307 or 308 must repeat it,
            // RFC 9110 §15.4.8, §15.4.9; a policy may give one): the transport sends it itself, as
            // Apple's URLSession does, and this task stops at the redirect.
            resend(next, as: proposal, replacing: task, in: session)
            completionHandler(nil)
            cancelWithoutWaiting(task)
        case .failed(let error):
            stop(task, completionHandler, error: error)
        }
    }

    /// Ends `task` at a redirect with `error`: the redirect is not followed.
    private func stop(
        _ task: URLSessionTask, _ completionHandler: @Sendable (URLRequest?) -> Void, error: any Error
    ) {
        fail(task.taskIdentifier, with: error)
        completionHandler(nil)
        cancelWithoutWaiting(task)
    }

    /// Linux: sends `next` (the request to send after a redirect, body and all, after the
    /// credential rules and the redirect policy) in a task that takes over the record of `task`:
    /// its handler, redirect chain, transfer and timeout; a cancel from then on cancels the new
    /// one. Nothing is sent if `task` has finished already.
    private func resend(
        _ next: URLRequest, as proposal: RedirectChain.Proposal, replacing task: URLSessionTask,
        in session: URLSession
    ) {
        let replacement = LinuxURLSessionQuirks.task(in: session, for: next)
        let moved = tasks.withLock {
            $0.move(from: task.taskIdentifier, to: replacement, sending: next, as: proposal)
        }
        guard let moved else {
            cancelWithoutWaiting(replacement)  // `task` finished meanwhile
            return
        }
        moved.replaced?.cancel()
        scheduleDeadline(of: replacement, moved.idle)
        replacement.resume()
    }

    /// Evaluates the server's trust (Apple platforms; `SecTrust` exists nowhere else), and
    /// answers as ``ServerTrustDecision`` decides: the refusal is kept for the task, and a
    /// refused or trusted origin for the other tasks of its connection.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // No session-level challenge method: URLSession sends server trust here too.
        let space = challenge.protectionSpace
        let method = space.authenticationMethod
        // No SecTrust on Linux: a pinned server-trust challenge (only tests raise one there) is
        // not evaluable, so refused.
        let (evaluation, credential) = ServerTrustDecision.evaluate(space, against: serverTrust)
        let outcome = ServerTrustDecision.decide(
            method: method, policy: serverTrust, evaluation: evaluation,
            proposedCredential: challenge.proposedCredential != nil)
        if let refusal = outcome.refusal {
            tasks.withLock { _ = $0.modify(task: task.taskIdentifier) { $0.refuse(refusal) } }
        }
        trustRefusals.withLock { $0.challengeAnswered(in: space, policy: serverTrust, refusal: outcome.refusal) }
        // The trust's credential answers only a trusted server (never on Linux: no trust there).
        let answer = outcome.disposition == .useCredential ? credential : nil
        #if canImport(FoundationNetworking)
            // The handler is called from a background queue: on Linux it cancels, suspends or
            // resumes the task, each waiting for the session's work queue (workQueue.sync),
            // which may be waiting for room on this delegate queue (BoundedDelegateQueue).
            let disposition = outcome.disposition
            DispatchQueue.global().async { completionHandler(disposition, answer) }
        #else
            completionHandler(outcome.disposition, answer)
        #endif
    }
}
