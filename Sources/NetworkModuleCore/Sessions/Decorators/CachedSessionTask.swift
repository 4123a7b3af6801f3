import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `GET` of a ``CachedSession``: answers from the cache, revalidates, or fetches, and
/// reports exactly once.
final class CachedSessionTask: NetworkSessionTask, @unchecked Sendable {
    // @unchecked Sendable is safe: `lifecycle`, `revalidating`, `stale`, `sentAt` and `generation` are only
    // read and written inside `session.state.withLock`, so the session's one lock guards them.

    private enum Step {
        case none
        /// Answered from the stored response, without waiting for the network; `background`
        /// revalidates it meanwhile (`stale-while-revalidate`), in the cache's generation.
        case hit(SessionCompletionHandler, Data, HTTPURLResponse, background: (CachedResponse, UInt64)?)
        /// `only-if-cached` and nothing usable stored: `504`, without a call (RFC 9111, section 5.2.1.7).
        case unsatisfiable(SessionCompletionHandler)
        case send(URLRequest)
    }

    let request: URLRequest
    /// Where the attempt hears what the call to the wrapped session observed, if it makes one.
    private let recorder: AttemptRecorder?
    private let key: RequestKey
    private let directives: CacheControl
    private let session: CachedSession
    /// Runs the wrapped session's task once sent (none for an answer from the cache).
    private var lifecycle: SessionTaskLifecycle<any NetworkSessionTask>
    /// The stored response a conditional request was sent for.
    private var revalidating: CachedResponse?
    /// The stored response, too old to answer unasked, that may answer if the server cannot.
    private var stale: CachedResponse?
    /// When the request was sent, for the response's age.
    private var sentAt = Date.distantPast
    /// The cache's generation when sent: its answer is stored only if no ``CachedSession/removeAll()`` came since.
    private var generation: UInt64 = 0

    init(
        session: CachedSession, key: RequestKey, request: URLRequest, directives: CacheControl,
        recorder: AttemptRecorder?, completionHandler: @escaping SessionCompletionHandler
    ) {
        self.session = session
        self.recorder = recorder
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
                    return .hit(handler, stored.data, stored.served(at: now, as: .hit), background: nil)
                }
                if stored.isUsableWhileRevalidating(at: now, for: directives), let (handler, _) = lifecycle.finish() {
                    state.hits += 1
                    // `only-if-cached` never calls the server: the stale answer the response
                    // allows, and no background request (RFC 9111, section 5.2.1.7).
                    guard !directives.onlyIfCached else {
                        return .hit(handler, stored.data, stored.served(at: now, as: .hit), background: nil)
                    }
                    // One background request per stored response: the first request to find it
                    // stale sends it, the others only get the stale answer.
                    let sends = state.revalidatingInBackground.insert(key).inserted
                    if sends { state.revalidations += 1 }
                    return .hit(
                        handler, stored.data, stored.served(at: now, as: .staleWhileRevalidate),
                        background: sends ? (stored, state.generation) : nil)
                }
                stale = stored
                if !directives.reload && !directives.onlyIfCached && stored.hasValidators {
                    state.revalidations += 1
                    sentAt = now
                    generation = state.generation
                    revalidating = stored
                    return .send(stored.conditionalRequest(for: request))
                }
            }
            state.misses += 1
            if directives.onlyIfCached, let (handler, _) = lifecycle.finish() {
                return .unsatisfiable(handler)
            }
            sentAt = now
            generation = state.generation
            return .send(request)
        }
        switch step {
        case .none:
            return
        case .hit(let handler, let data, let response, let background):
            if let (stale, generation) = background {
                session.revalidateInBackground(stale, forKey: key, request: request, at: now, in: generation)
            }
            handler(data, response, nil)
        case .unsatisfiable(let handler):
            CachedSession.unsatisfiable(request).report(to: handler)
        case .send(let outgoing):
            session.state.send(outgoing, on: session.wrapped, transfer: TransferOptions(recorder: recorder)) {
                _, inner in
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
        let taken = session.state.withLock { state -> (SessionCompletionHandler, Data?, URLResponse?, (any Error)?)? in
            guard let (handler, _) = lifecycle.finish() else { return nil }
            let http = error == nil ? response as? HTTPURLResponse : nil
            if let use = Self.staleIfErrorUse(http: http, error: error), let stale,
                stale.isUsableOnError(at: now, for: directives)
            {
                return (handler, stale.data, stale.served(at: now, as: use), nil)
            }
            guard let http else { return (handler, data, response, error) }
            if let stored = state.record(
                data, http, forKey: key, request: request, revalidating: revalidating, sentAt: sentAt, receivedAt: now,
                sentIn: generation)
            {
                return (handler, stored.data, stored.served(at: now, as: .revalidated), nil)
            }
            return (handler, data, response, error)
        }
        guard let (handler, data, response, error) = taken else { return }
        handler(data, response, error)
    }

    /// How a stale response would answer, if the server failed the request as RFC 5861 counts
    /// failures for `stale-if-error`: a `500`, `502`, `503` or `504`, or a transport error other
    /// than a cancellation; `nil` for an answer, or a cancellation.
    private static func staleIfErrorUse(http: HTTPURLResponse?, error: (any Error)?) -> CachedResponse.Use? {
        if let http {
            return [500, 502, 503, 504].contains(http.statusCode) ? .staleIfError(status: http.statusCode) : nil
        }
        guard let error, (error as? URLError)?.code != .cancelled else { return nil }
        return .staleIfError(status: nil)
    }
}
