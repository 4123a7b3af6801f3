import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Security) && !canImport(FoundationNetworking)
    import Security
#endif

/// One task of a ``URLSessionTransport``: creates its `URLSessionDataTask` when resumed, and
/// reports once, through the delegate's record or the cancel that comes first.
final class TransportTask: NetworkSessionTask {
    private let request: URLRequest
    private let transfer: SessionTransfer
    /// Held until the task is released: the task creates its `URLSessionDataTask` in
    /// `resume()`, and a released transport invalidates its `URLSession`, in which no task
    /// may be created any more.
    private let transport: URLSessionTransport
    private var delegate: TransportDelegate { transport.delegate }
    /// Runs the `URLSessionDataTask` once resumed (on Linux, the one that sent the request again
    /// after a 307 or 308, once it does).
    private let lifecycle: LockedState<SessionTaskLifecycle<URLSessionDataTask>>

    init(
        request: URLRequest, transfer: SessionTransfer, transport: URLSessionTransport,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        self.request = request
        self.transfer = transfer
        self.transport = transport
        self.lifecycle = LockedState(SessionTaskLifecycle(handler: completionHandler))
    }

    func resume() {
        guard lifecycle.withLock({ $0.resume() }) else { return }
        let lifecycle = lifecycle
        var outgoing = request
        if let canonical = request.url?.withLowercaseScheme { outgoing.url = canonical }
        if LinuxURLSessionQuirks.apply {
            // The delegate enforces the timeout as an idle timeout; Linux's own timer would
            // end the whole response at it (and trap on NaN or huge values).
            outgoing.timeoutInterval = LinuxURLSessionQuirks.outgoingTimeout(
                for: request.timeoutInterval, idleTimeoutEnforced: true)
        } else {
            // URLSession enforces the timeout itself: with the one meaning of every value.
            let timeout = RequestTimeout.sessionValue(for: request.timeoutInterval)
            if timeout != request.timeoutInterval { outgoing.timeoutInterval = timeout }
        }
        let task = LinuxURLSessionQuirks.task(in: transport.urlSession, for: outgoing)
        // Registered before the deadline is set and before the task runs, so that neither a
        // deadline that expires at once nor an early answer finds no record.
        delegate.register(
            task, request: request, timeout: LinuxURLSessionQuirks.apply ? request.timeoutInterval : nil,
            redirectPolicy: transfer.redirectPolicy, transfer: TransportTransfer(transfer, request: request),
            follow: { next in lifecycle.withLock { $0.started(next) } },
            completionHandler: { data, response, error in
                lifecycle.withLock { $0.finish() }?.handler(data, response, error)
            })
        if lifecycle.withLock({ $0.started(task) }) {
            task.resume()
        } else {
            // Cancelled while starting, and reported by the cancel: drop the record, and cancel
            // the task before it ever runs, which is safe and takes it out of the session.
            stop(task)
        }
    }

    func cancel() {
        guard let (handler, task) = lifecycle.withLock({ $0.finish() }) else { return }
        handler(nil, nil, URLError.cancelled(request))
        if let task { stop(task) }
    }

    /// Takes `task`'s record out of the delegate (its handler, finished already, does nothing)
    /// and cancels it from a background queue: chunks that arrive meanwhile find no record.
    private func stop(_ task: URLSessionDataTask) {
        delegate.finish(task.taskIdentifier, data: nil, response: nil, error: URLError.cancelled(request))
        URLSessionTransport.cancelWithoutWaiting(task)
    }
}
