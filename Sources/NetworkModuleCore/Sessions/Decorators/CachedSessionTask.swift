import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `GET` of a ``CachedSession``: answers from the cache, revalidates, or fetches, and
/// reports exactly once.
final class CachedSessionTask: NetworkSessionTask, @unchecked Sendable {
    // @unchecked Sendable is safe: `phase`, `revalidating`, `sentAt` and `completionHandler` are
    // only read and written inside `session.state.withLock`, so the session's one lock guards them.

    enum Phase {
        case created
        /// Waiting for the wrapped session; its task is `nil` while being created.
        case sending((any NetworkSessionTask)?)
        case finished
    }

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
    /// Guarded by `session.state`.
    private var phase = Phase.created
    /// Guarded by `session.state`: the stored response a conditional request was sent for.
    private var revalidating: CachedResponse?
    /// Guarded by `session.state`: when the request was sent, for the response's age.
    private var sentAt = Date.distantPast
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
        let now = session.now()
        let step = session.state.withLock { state -> Step in
            guard case .created = phase, let handler = completionHandler else { return .none }
            if let stored = state.store.value(forKey: key),
                stored.variance.isEmpty || stored.matchesVariance(of: request)
            {
                if stored.isUsable(at: now, for: directives) {
                    state.hits += 1
                    phase = .finished
                    completionHandler = nil
                    return .hit(handler, stored.data, stored.response)
                }
                if !directives.reload && !directives.onlyIfCached && stored.hasValidators {
                    state.revalidations += 1
                    phase = .sending(nil)
                    sentAt = now
                    revalidating = stored
                    return .send(stored.conditionalRequest(for: request))
                }
            }
            state.misses += 1
            if directives.onlyIfCached {
                phase = .finished
                completionHandler = nil
                return .unsatisfiable(handler)
            }
            phase = .sending(nil)
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
    /// conditional request is reported as the stored `200`, with its header fields updated.
    /// A late answer is dropped.
    private func finish(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
        let now = session.now()
        let taken = session.state.withLock { state -> (SessionCompletionHandler, Data?, URLResponse?)? in
            guard case .sending = phase, let handler = completionHandler else { return nil }
            phase = .finished
            completionHandler = nil
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
