import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One task of a ``ThrottledSession``: waits for a place, then runs a task of the wrapped
/// session, and reports exactly once.
final class ThrottledSessionTask: NetworkSessionTask, @unchecked Sendable {
    // @unchecked Sendable is safe: `lifecycle`, `place`, `isSending` and `handoff` are only read
    // and written inside `session.state.withLock`, so the session's one lock guards them.

    /// Where the task stands in the session's limit.
    enum Place {
        /// Not resumed, or finished: holds no place.
        case none
        /// In the session's queue.
        case waiting
        /// Holds a place: its task of the wrapped session is being created, or runs.
        case held
    }

    let request: URLRequest
    /// What the wrapped session is asked to do with the request.
    private let transfer: TransferOptions
    private let session: ThrottledSession
    /// Runs the wrapped session's task once it holds a place.
    private var lifecycle: SessionTaskLifecycle<any NetworkSessionTask>
    var place = Place.none
    /// `true` while ``start()`` hands this task to the wrapped session, which may answer first.
    private var isSending = false
    /// The waiter this task gave its place to while being sent, for ``start()`` to start after.
    private var handoff: ThrottledSessionTask?

    init(
        session: ThrottledSession, request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping SessionCompletionHandler
    ) {
        self.session = session
        self.request = request
        self.transfer = transfer
        self.lifecycle = SessionTaskLifecycle(handler: completionHandler)
    }

    func resume() {
        let maxConcurrent = session.maxConcurrent
        let startsNow = session.state.withLock { state -> Bool in
            guard lifecycle.resume() else { return false }
            if state.inFlight < maxConcurrent {
                state.inFlight += 1
                place = .held
                return true
            }
            place = .waiting
            state.waiting.append(self)
            return false
        }
        if startsNow { start() }
    }

    func cancel() {
        let taken = session.state.withLock {
            state -> (SessionCompletionHandler, (any NetworkSessionTask)?, ThrottledSessionTask?)? in
            guard let (handler, inner) = lifecycle.finish() else { return nil }
            defer { place = .none }
            switch place {
            case .none: return (handler, nil, nil)
            case .waiting:
                _ = state.remove(self)
                return (handler, nil, nil)
            case .held: return (handler, inner, releasePlace(&state))
            }
        }
        guard let (handler, inner, next) = taken else { return }
        inner?.cancel()
        next?.start()
        handler(nil, nil, URLError.cancelled(request))
    }

    /// Sends the request on the wrapped session, once the task holds a place. A wrapped session
    /// may answer inside `resume()` (a cache hit, a fake), handing the place to the next waiter;
    /// starting it there would nest one start per waiter and overflow the stack with thousands.
    /// So a place given up while its task is being sent comes back here, and this loop starts
    /// the waiters one after the other at the same depth.
    func start() {
        var next: ThrottledSessionTask? = self
        while let task = next {
            next = task.send()
        }
    }

    /// Sends this task on the wrapped session; returns the waiter it gave its place to while
    /// being sent, if any, for ``start()`` to start.
    private func send() -> ThrottledSessionTask? {
        session.state.withLock { _ in isSending = true }
        session.state.send(request, on: session.wrapped, transfer: transfer) {
            _, inner in
            lifecycle.started(inner)  // false if cancelled: the place is given up
        } completionHandler: { [self] data, response, error in
            finish(data, response, error)
        }
        return session.state.withLock { _ in
            isSending = false
            defer { handoff = nil }
            return handoff
        }
    }

    /// Called with the lock held when this task gives up its place: frees it for the oldest
    /// waiter, which the caller must start once the lock is released, unless this task is
    /// still being sent, in which case ``start()`` starts it when the send returns.
    private func releasePlace(_ state: inout ThrottledSession.State) -> ThrottledSessionTask? {
        let next = session.releasePlace(&state)
        guard isSending else { return next }
        handoff = next
        return nil
    }

    /// Reports the wrapped session's answer and hands the place to the next waiter; a late
    /// answer, after a cancel, is dropped.
    private func finish(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
        let taken = session.state.withLock { state -> (SessionCompletionHandler, ThrottledSessionTask?)? in
            guard case .held = place, let (handler, _) = lifecycle.finish() else { return nil }
            place = .none
            return (handler, releasePlace(&state))
        }
        guard let (handler, next) = taken else { return }
        next?.start()
        handler(data, response, error)
    }
}
