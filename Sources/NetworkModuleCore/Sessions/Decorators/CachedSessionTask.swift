import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `GET` of a ``CachedSession``: answers from the cache, revalidates, or fetches, and
/// reports exactly once.
final class CachedSessionTask: NetworkSessionTask, @unchecked Sendable {
    // @unchecked Sendable is safe: `lifecycle`, `revalidating` and `sentAt` are only read and
    // written inside `session.state.withLock`, so the session's one lock guards them.

    private enum Step {
        case none
        case hit(SessionCompletionHandler, Data, HTTPURLResponse)
        /// `only-if-cached` and nothing usable stored: `504`, without a call (RFC 9111, section 5.2.1.7).
        case unsatisfiable(SessionCompletionHandler)
        case send(URLRequest)
    }

    let request: URLRequest
    private let key: RequestKey
    private let directives: CacheControl
    private let session: CachedSession
    /// Guarded by `session.state`: runs the wrapped session's task once sent (none for an answer
    /// from the cache).
    private var lifecycle: SessionTaskLifecycle<any NetworkSessionTask>
    /// Guarded by `session.state`: the stored response a conditional request was sent for.
    private var revalidating: CachedResponse?
    /// Guarded by `session.state`: when the request was sent, for the response's age.
    private var sentAt = Date.distantPast

    init(
        session: CachedSession, key: RequestKey, request: URLRequest, directives: CacheControl,
        completionHandler: @escaping SessionCompletionHandler
    ) {
        self.session = session
        self.key = key
        self.request = request
        self.directives = directives
        self.lifecycle = SessionTaskLifecycle(handler: completionHandler)
    }

    func resume() {
        let now = session.now()
        let step = session.state.withLock { state -> Step in
            guard lifecycle.resume() else { return .none }
            if let stored = state.store.value(forKey: key),
                stored.variance.isEmpty || stored.matchesVariance(of: request)
            {
                if stored.isUsable(at: now, for: directives), let (handler, _) = lifecycle.finish() {
                    state.hits += 1
                    return .hit(handler, stored.data, stored.response)
                }
                if !directives.reload && !directives.onlyIfCached && stored.hasValidators {
                    state.revalidations += 1
                    sentAt = now
                    revalidating = stored
                    return .send(stored.conditionalRequest(for: request))
                }
            }
            state.misses += 1
            if directives.onlyIfCached, let (handler, _) = lifecycle.finish() {
                return .unsatisfiable(handler)
            }
            sentAt = now
            return .send(request)
        }
        switch step {
        case .none:
            return
        case .hit(let handler, let data, let response):
            handler(data, response, nil)
        case .unsatisfiable(let handler):
            if let url = request.url,
                let response = HTTPURLResponse(url: url, statusCode: 504, httpVersion: "HTTP/1.1", headerFields: nil)
            {
                handler(Data(), response, nil)
            } else {
                handler(nil, nil, URLError(.resourceUnavailable))
            }
        case .send(let outgoing):
            session.state.send(outgoing, on: session.wrapped) { _, inner in
                self.lifecycle.started(inner)  // false if cancelled meanwhile
            } completionHandler: { [self] data, response, error in
                finish(data, response, error)
            }
        }
    }

    func cancel() {
        guard let (handler, inner) = session.state.withLock({ _ in self.lifecycle.finish() }) else { return }
        inner?.cancel()
        handler(nil, nil, URLError.cancelled(request))
    }

    private func finish(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
        let now = session.now()
        let taken = session.state.withLock { state -> (SessionCompletionHandler, Data?, URLResponse?)? in
            guard let (handler, _) = lifecycle.finish() else { return nil }
            guard error == nil, let http = response as? HTTPURLResponse else { return (handler, data, response) }
            if http.statusCode == 304, let stored = revalidating {
                revalidating = nil
                guard let refreshed = stored.revalidated(by: http, request: request, sentAt: sentAt, receivedAt: now)
                else {
                    state.store.removeValue(forKey: key)
                    return (handler, stored.data, stored.response)
                }
                state.store(refreshed, forKey: key)
                return (handler, refreshed.data, refreshed.response)
            }
            if let fresh = CachedResponse(data: data, response: http, request: request, sentAt: sentAt, receivedAt: now)
            {
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
