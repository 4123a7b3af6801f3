import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `GET` of a ``CachedSession``: answers from the cache, revalidates, or fetches, and
/// reports exactly once.
final class CachedSessionTask: NetworkSessionTask, @unchecked Sendable {
    // @unchecked Sendable is safe: `phase`, `revalidating` and `completionHandler` are only
    // read and written inside `session.state.withLock`, so the session's one lock guards them.

    enum Phase {
        case created
        /// Waiting for the wrapped session; its task is `nil` while being created.
        case sending((any NetworkSessionTask)?)
        case finished
    }

    private enum Step {
        case none
        case hit(SessionCompletionHandler, Data, HTTPURLResponse)
        case send(URLRequest)
    }

    let request: URLRequest
    private let key: RequestKey
    private let directives: CacheControl
    private let session: CachedSession
    /// Guarded by `session.state`.
    private var phase = Phase.created
    /// Guarded by `session.state`: the stored response a conditional request was sent for.
    private var revalidating: CachedResponse?
    /// Guarded by `session.state`; taken out to report, once.
    private var completionHandler: SessionCompletionHandler?

    init(
        session: CachedSession, key: RequestKey, request: URLRequest, directives: CacheControl,
        completionHandler: @escaping SessionCompletionHandler
    ) {
        self.session = session
        self.key = key
        self.request = request
        self.directives = directives
        self.completionHandler = completionHandler
    }

    func resume() {
        let now = session.configuration.now()
        let step = session.state.withLock { state -> Step in
            guard case .created = phase, let handler = completionHandler else { return .none }
            if let stored = state.store.value(forKey: key) {
                if !directives.noCache && stored.isFresh(at: now, maximumAge: directives.maxAge) {
                    state.hits += 1
                    phase = .finished
                    completionHandler = nil
                    return .hit(handler, stored.data, stored.response)
                }
                if stored.hasValidators {
                    state.revalidations += 1
                    phase = .sending(nil)
                    revalidating = stored
                    return .send(stored.conditionalRequest(for: request))
                }
                state.store.removeValue(forKey: key)
            }
            state.misses += 1
            phase = .sending(nil)
            return .send(request)
        }
        switch step {
        case .none:
            return
        case .hit(let handler, let data, let response):
            handler(data, response, nil)
        case .send(let outgoing):
            session.state.send(outgoing, on: session.wrapped) { _, inner in
                guard case .sending(.none) = phase else { return false }  // cancelled meanwhile
                phase = .sending(inner)
                return true
            } completionHandler: { [self] data, response, error in
                finish(data, response, error)
            }
        }
    }

    func cancel() {
        let (handler, inner) = session.state.withLock { _ -> (SessionCompletionHandler?, (any NetworkSessionTask)?) in
            let handler = completionHandler
            completionHandler = nil
            defer { phase = .finished }
            if case .sending(let inner) = phase { return (handler, inner) }
            return (handler, nil)
        }
        inner?.cancel()
        handler?(nil, nil, URLError.cancelled(request))
    }

    /// Updates the cache from the wrapped session's answer and reports it; a `304` to a
    /// conditional request is reported as the stored `200`. A late answer is dropped.
    private func finish(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
        let now = session.configuration.now()
        let defaultLifetime = session.configuration.timeToLive
        let taken = session.state.withLock { state -> (SessionCompletionHandler, Data?, URLResponse?)? in
            guard case .sending = phase, let handler = completionHandler else { return nil }
            phase = .finished
            completionHandler = nil
            guard error == nil, let http = response as? HTTPURLResponse else { return (handler, data, response) }
            if http.statusCode == 304, let stored = revalidating {
                revalidating = nil
                state.store(stored.revalidated(by: http, at: now, defaultLifetime: defaultLifetime), forKey: key)
                return (handler, stored.data, stored.response)
            }
            if let fresh = CachedResponse(data: data, response: http, storedAt: now, defaultLifetime: defaultLifetime) {
                state.store(fresh, forKey: key)
            } else if http.statusCode != 304 && http.statusCode < 500 {
                state.store.removeValue(forKey: key)
            }
            return (handler, data, response)
        }
        guard let (handler, data, response) = taken else { return }
        handler(data, response, error)
    }
}
