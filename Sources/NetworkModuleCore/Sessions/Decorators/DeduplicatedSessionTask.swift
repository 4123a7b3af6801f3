import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One caller of a ``DeduplicatedSession``: starts a shared call or joins one in flight,
/// and reports exactly once.
final class DeduplicatedSessionTask: NetworkSessionTask, @unchecked Sendable {
    // @unchecked Sendable is safe: `lifecycle` is only read and written inside
    // `session.state.withLock`, so the session's one lock guards it.

    let request: URLRequest
    /// Where this caller's attempt hears what the shared call observed.
    let recorder: AttemptRecorder?
    /// Guarded by `session.state`: whether this caller joined a call another caller started.
    private(set) var joined = false
    private let key: RequestKey
    private let session: DeduplicatedSession
    /// Guarded by `session.state`: runs the call this caller waits for, once resumed.
    private var lifecycle: SessionTaskLifecycle<DeduplicatedCall>

    init(
        session: DeduplicatedSession, key: RequestKey, request: URLRequest, recorder: AttemptRecorder?,
        completionHandler: @escaping SessionCompletionHandler
    ) {
        self.session = session
        self.key = key
        self.request = request
        self.recorder = recorder
        self.lifecycle = SessionTaskLifecycle(handler: completionHandler)
    }

    func resume() {
        let newCall = session.state.withLock { state -> DeduplicatedCall? in
            guard lifecycle.resume() else { return nil }
            var created: DeduplicatedCall?
            let call: DeduplicatedCall
            if let existing = state.calls[key] {
                existing.callers.append(self)
                joined = true
                state.joinedCount += 1
                call = existing
            } else {
                call = DeduplicatedCall(session: session, key: key, firstCaller: self)
                state.calls[key] = call
                state.callCount += 1
                created = call
            }
            _ = lifecycle.started(call)  // resumed just now, under the lock: it runs
            return created
        }
        newCall?.start(request, recording: recorder != nil)
    }

    func cancel() {
        let taken = session.state.withLock { state -> (SessionCompletionHandler, (any NetworkSessionTask)?)? in
            guard let (handler, call) = lifecycle.finish() else { return nil }
            return (handler, call?.remove(self, &state))
        }
        guard let (handler, inner) = taken else { return }
        inner?.cancel()
        handler(nil, nil, URLError.cancelled(request))
    }

    /// Takes the completion handler out, so that it is called once; call with the lock held.
    func takeCompletionHandler() -> SessionCompletionHandler? {
        lifecycle.finish()?.handler
    }
}
