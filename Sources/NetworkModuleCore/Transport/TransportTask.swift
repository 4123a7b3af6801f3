import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Security) && !canImport(FoundationNetworking)
    import Security
#endif

/// One task of a ``URLSessionTransport``: the key of its ``TransportTaskRecord`` in the
/// transport's delegate, which holds the rest.
final class TransportTask: NetworkSessionTask {
    private let key: Int
    /// Held until the task is released: the task creates its `URLSessionDataTask` in
    /// `resume()`, and a released transport invalidates its `URLSession`, in which no task
    /// may be created any more.
    private let transport: URLSessionTransport
    /// Where the platform's timings of the task go (``TaskMetrics``); `nil` when nobody reads them.
    private let recorder: AttemptRecorder?

    init(
        request: URLRequest, transfer: TransferOptions, transport: URLSessionTransport,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        self.transport = transport
        self.recorder = transfer.recorder
        self.key = transport.delegate.add(
            request: request, timeout: LinuxURLSessionQuirks.apply ? request.timeoutInterval : nil,
            redirectPolicy: transfer.redirectPolicy, transfer: TransportTaskOptions(transfer, request: request),
            handlerIsShort: transfer.handlerIsShort, completionHandler: completionHandler)
    }

    deinit {
        transport.delegate.discard(key)
    }

    func resume() {
        guard let request = transport.delegate.resume(key) else { return }
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
        TaskMetrics.attach(recorder, to: task)
        if transport.delegate.start(key, in: task) {
            task.resume()
        } else {
            // Cancelled while starting, and reported by the cancel: the task is cancelled before
            // it ever runs, which is safe and takes it out of the session.
            transport.delegate.cancelWithoutWaiting(task)
        }
    }

    func cancel() {
        transport.delegate.cancel(key)
    }
}
