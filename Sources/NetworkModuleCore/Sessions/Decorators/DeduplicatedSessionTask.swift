import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One caller of a ``DeduplicatedSession``: starts a shared call or joins one in flight,
/// and reports exactly once.
final class DeduplicatedSessionTask: NetworkSessionTask, @unchecked Sendable {
    // @unchecked Sendable is safe: `call`, `isResumed` and `completionHandler` are only read
    // and written inside `session.state.withLock`, so the session's one lock guards them.

    let request: URLRequest
    private let key: RequestKey
    private let session: DeduplicatedSession
    /// Guarded by `session.state`: the call this caller waits for, once resumed.
    private var call: DeduplicatedCall?
    /// Guarded by `session.state`.
    private var isResumed = false
    /// Guarded by `session.state`; taken out to report, once.
    private var completionHandler: SessionCompletionHandler?

    init(
        session: DeduplicatedSession, key: RequestKey, request: URLRequest,
        completionHandler: @escaping SessionCompletionHandler
    ) {
        self.session = session
        self.key = key
        self.request = request
        self.completionHandler = completionHandler
    }

    func resume() {
        let newCall = session.state.withLock { state -> DeduplicatedCall? in
            guard !isResumed, completionHandler != nil else { return nil }
            isResumed = true
            if let existing = state.calls[key] {
                existing.callers.append(self)
                call = existing
                state.joinedCount += 1
                return nil
            }
            let created = DeduplicatedCall(session: session, key: key, firstCaller: self)
            state.calls[key] = created
            state.callCount += 1
            call = created
            return created
        }
        newCall?.start(request)
    }

    func cancel() {
        let (handler, inner) = session.state.withLock {
            state -> (SessionCompletionHandler?, (any NetworkSessionTask)?) in
            guard let handler = takeCompletionHandler() else { return (nil, nil) }
            let inner = call?.remove(self, &state)
            call = nil
            return (handler, inner)
        }
        inner?.cancel()
        handler?(nil, nil, URLError.cancelled(request))
    }

    /// Takes the completion handler out, so that it is called once; call with the lock held.
    func takeCompletionHandler() -> SessionCompletionHandler? {
        defer { completionHandler = nil }
        return completionHandler
    }
}
