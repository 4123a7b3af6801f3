import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One call of the wrapped session, shared by the identical requests of a
/// ``DeduplicatedSession`` that are in flight at the same time.
final class DeduplicatedCall: @unchecked Sendable {
    // @unchecked Sendable is safe: `callers` and `phase` are only read and written inside
    // `session.state.withLock`, so the session's one lock guards them.

    enum Phase {
        /// The wrapped session's task is being created.
        case starting
        /// The wrapped session's task runs.
        case running(any NetworkSessionTask)
        /// Answered, or cancelled by its last caller.
        case finished
    }

    let key: RequestKey
    /// Guarded by `session.state`: the callers waiting for the answer, in the order they came.
    var callers: [DeduplicatedSessionTask]
    /// Guarded by `session.state`.
    var phase = Phase.starting
    private let session: DeduplicatedSession

    init(session: DeduplicatedSession, key: RequestKey, firstCaller: DeduplicatedSessionTask) {
        self.session = session
        self.key = key
        self.callers = [firstCaller]
    }

    /// Sends the first caller's request on the wrapped session, with a recorder of the call's
    /// own when that caller's attempt has one: every caller's recorder gets what it observed.
    func start(_ request: URLRequest, recording: Bool) {
        let recorder = recording ? AttemptRecorder() : nil
        session.state.send(request, on: session.wrapped, transfer: TransferOptions(recorder: recorder)) { _, inner in
            guard case .starting = phase else { return false }  // every caller cancelled meanwhile
            phase = .running(inner)
            return true
        } completionHandler: { [self] data, response, error in
            finish(data, response, error, observed: recorder?.observations ?? AttemptObservations())
        }
    }

    /// Removes `caller` (lock held); returns the wrapped task to cancel if it was the last.
    func remove(_ caller: DeduplicatedSessionTask, _ state: inout DeduplicatedSession.State)
        -> (any NetworkSessionTask)?
    {
        guard let index = callers.firstIndex(where: { $0 === caller }) else { return nil }
        callers.remove(at: index)
        guard callers.isEmpty else { return nil }
        state.end(self)
        defer { phase = .finished }
        if case .running(let inner) = phase { return inner }
        return nil
    }

    /// Hands the wrapped session's answer to every caller still waiting, once.
    private func finish(
        _ data: Data?, _ response: URLResponse?, _ error: (any Error)?, observed: AttemptObservations
    ) {
        let handlers = session.state.withLock { state -> [SessionCompletionHandler] in
            switch phase {
            case .finished:
                return []
            case .starting, .running:
                phase = .finished
                state.end(self)
                let handlers = callers.compactMap { caller in
                    caller.takeCompletionHandler().map { handler in
                        caller.recorder?.record(observed, joined: caller.joined)
                        return handler
                    }
                }
                callers = []
                return handlers
            }
        }
        for handler in handlers { handler(data, response, error) }
    }
}
