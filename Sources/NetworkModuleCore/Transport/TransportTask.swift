import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Security) && !canImport(FoundationNetworking)
    import Security
#endif

/// One task of a ``URLSessionTransport``: creates its `URLSessionDataTask` when resumed, and
/// reports through the delegate's record, once.
final class TransportTask: NetworkSessionTask {
    private typealias CompletionHandler = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    private enum Phase {
        /// Not resumed; holds the completion handler.
        case created(CompletionHandler)
        /// `resume()` is creating and registering the `URLSessionDataTask`.
        case starting
        /// Registered with the delegate, which holds the completion handler now.
        case running(URLSessionDataTask)
        /// Cancelled, or resumed and then cancelled.
        case finished
    }

    private let request: URLRequest
    private let transfer: SessionTransfer
    /// Held until the task is released: the task creates its `URLSessionDataTask` in
    /// `resume()`, and a released transport invalidates its `URLSession`, in which no task
    /// may be created any more.
    private let transport: URLSessionTransport
    private var delegate: TransportDelegate { transport.delegate }
    private let phase: LockedState<Phase>

    init(
        request: URLRequest, transfer: SessionTransfer, transport: URLSessionTransport,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        self.request = request
        self.transfer = transfer
        self.transport = transport
        self.phase = LockedState(.created(completionHandler))
    }

    func resume() {
        let handler = phase.withLock { phase -> CompletionHandler? in
            guard case .created(let handler) = phase else { return nil }
            phase = .starting
            return handler
        }
        guard let handler else { return }
        var outgoing = request
        if let url = request.url {
            let canonical = url.withLowercaseScheme
            if canonical != url { outgoing.url = canonical }
        }
        if LinuxURLSessionQuirks.apply {
            // The delegate enforces the timeout as an idle timeout; Linux's own timer would
            // end the whole response at it (and trap on NaN or huge values).
            outgoing.timeoutInterval = LinuxURLSessionQuirks.outgoingTimeout(
                for: request.timeoutInterval, idleTimeoutEnforced: true)
        }
        let task = LinuxURLSessionQuirks.task(in: transport.urlSession, for: outgoing)
        // Registered before the deadline is set and before the task runs, so that neither a
        // deadline that expires at once nor an early answer finds no record.
        delegate.register(
            task, request: request, timeout: LinuxURLSessionQuirks.apply ? request.timeoutInterval : nil,
            redirectPolicy: transfer.redirectPolicy, transfer: TransportTransfer(transfer, request: request),
            follow: { [self] next in follow(next) }, completionHandler: handler)
        let isRunning = phase.withLock { phase -> Bool in
            guard case .starting = phase else { return false }
            phase = .running(task)
            return true
        }
        if isRunning {
            task.resume()
        } else {
            // Cancelled while starting: report it, and cancel the task before it ever runs,
            // which is safe and takes it out of the session.
            delegate.finish(task.taskIdentifier, data: nil, response: nil, error: URLError.cancelled(request))
            URLSessionTransport.cancelWithoutWaiting(task)
        }
    }

    /// Linux: `task` sends the request again, to the target of a 307 or 308 (the delegate's
    /// record has moved to it), so cancelling cancels `task` from now on. `false` if this task
    /// was cancelled first.
    private func follow(_ task: URLSessionDataTask) -> Bool {
        phase.withLock { phase in
            guard case .running = phase else { return false }
            phase = .running(task)
            return true
        }
    }

    func cancel() {
        enum Step {
            case none
            case report(CompletionHandler)
            case cancel(URLSessionDataTask)
        }
        let step = phase.withLock { phase -> Step in
            defer { phase = .finished }
            switch phase {
            case .created(let handler): return .report(handler)
            case .running(let task): return .cancel(task)
            case .starting, .finished: return .none  // resume() reports a cancel while starting
            }
        }
        switch step {
        case .none:
            return
        case .report(let handler):
            handler(nil, nil, URLError.cancelled(request))
        case .cancel(let task):
            // Reported at once, whatever URLSession does next; its own report is then dropped.
            delegate.finish(task.taskIdentifier, data: nil, response: nil, error: URLError.cancelled(request))
            URLSessionTransport.cancelWithoutWaiting(task)
        }
    }
}
