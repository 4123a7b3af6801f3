import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Attaches a token to the requests that need one, and refreshes it when the server rejects
/// it: one refresh at a time, however many requests fail together.
///
/// ```swift
/// let module = DefaultNetworkModule(
///     requestBuilder: DefaultRequestBuilder(baseURL: apiURL),
///     actions: [.authentication(tokens), .retry(.default), .logging()])
/// ```
///
/// ## Which requests get the token
/// A request described by a ``NetworkRequest`` gets it when its
/// ``NetworkRequest/requiresAuthentication`` is `true` **and** its URL has the base URL's
/// origin (scheme, host and port). A request sent with `perform(urlRequest:)` has no
/// description to ask: it gets the token when its URL has the base URL's origin. Nothing is
/// ever attached to another host, or when the module has no base URL.
///
/// ## Refresh
/// When a request that carried the token fails with a refresh status (`401` by default):
/// - if the token it carried is still the current one and no refresh is running, the action
///   asks the provider for a new token (``AccessTokenProvider/refreshToken(completion:)``);
/// - if a refresh is already running, the request waits for it: no second refresh;
/// - if the token it carried has been replaced since it was sent (it was stale), it is sent
///   again with the current token, without a refresh.
///
/// Each request is retried this way **once**: a request rejected again with a fresh token gets
/// its `401`, so a server that rejects every token cannot cause a refresh loop. When the
/// refresh fails, every request waiting for it fails with the provider's error (as it is if it
/// is a ``NetworkError``, as ``NetworkError/actionFailed(_:)`` otherwise), and the next
/// request asks ``AccessTokenProvider/currentToken(completion:)`` again.
///
/// Put it before actions that log or measure, so they see the header (masked) and the waits.
public final class AuthenticationAction: NetworkModuleAction {
    /// A token, and which one it is: the generation grows with each token the action gets, so
    /// a request that carried an older generation is known to be stale.
    private struct Credential {
        let token: String
        let generation: Int
    }

    private typealias Waiter = @Sendable (Result<Credential, any Error>) -> Void

    private enum Phase {
        case idle
        /// Asking the provider (current or refreshed token); `id` tells this request for a
        /// token from earlier ones, so a provider that answers twice is ignored.
        case obtaining(id: Int, waiters: [Waiter])
    }

    /// What the action remembers of one request, from its first preparation to `didFinish`.
    private struct RequestRecord {
        /// The generation of the token the latest attempt carried; `nil` if it carried none.
        var generation: Int?
        /// Whether the request was already retried after a rejected token.
        var wasRetried = false
        /// The error of the refresh this request's retry waited for, if it failed: its next
        /// preparation fails with it.
        var refreshFailure: (any Error)?
    }

    private struct State {
        var credential: Credential?
        var lastGeneration = 0
        var lastObtainID = 0
        var phase = Phase.idle
        var requests: [UUID: RequestRecord] = [:]
    }

    /// What a preparation does after looking at the state.
    private enum Next {
        case apply(Credential)
        case wait
        case fetch(id: Int)
        /// Fail the preparation: the refresh the request waited for failed.
        case fail(any Error)
    }

    /// What a retry decision does after looking at the state.
    private enum RetryStep {
        case doNotRetry
        case retry
        case refreshThenRetry(id: Int)
    }

    /// Where tokens come from.
    public let provider: any AccessTokenProvider
    /// How a token is written into a request.
    public let scheme: AuthorizationScheme
    /// The HTTP statuses that mean "this token is rejected": `[401]` by default. Empty: never
    /// refresh (for fixed credentials, whose rejection the caller should see).
    public let refreshStatusCodes: Set<Int>

    // One struct of mutable state behind one lock; the provider and every completion are
    // called after leaving it.
    private let state = LockedState(State())

    /// Creates an authentication action.
    ///
    /// - Parameters:
    ///   - provider: gives the current token and refreshes it.
    ///   - scheme: how the token is written into a request; bearer by default.
    ///   - refreshStatusCodes: the statuses that trigger a refresh; `[401]` by default.
    public init(
        provider: any AccessTokenProvider, scheme: AuthorizationScheme = .bearer, refreshStatusCodes: Set<Int> = [401]
    ) {
        self.provider = provider
        self.scheme = scheme
        self.refreshStatusCodes = refreshStatusCodes
    }

    /// Forgets the token: the next request asks the provider for the current one. Call it
    /// when the user signs out or in.
    public func resetToken() {
        state.withLock { $0.credential = nil }
    }

    /// How many requests the action keeps a record for: none once every request has finished.
    var requestRecordCount: Int {
        state.withLock { $0.requests.count }
    }

    // MARK: - Hooks

    /// Adds the token to a request that needs it, first waiting for the provider if the action
    /// has no token yet or a refresh is running.
    public func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        guard needsToken(urlRequest.url, context: context) else {
            completion(.success(urlRequest))
            return
        }
        let requestID = context.requestID
        let waiter: Waiter = { result in
            completion(
                result.flatMap { credential in self.authorize(urlRequest, with: credential, requestID: requestID) })
        }
        let next = state.withLock { state -> Next in
            if let failure = state.requests[requestID]?.refreshFailure.take() { return .fail(failure) }
            if state.requests[requestID] == nil { state.requests[requestID] = RequestRecord() }
            return Self.nextStep(in: &state, waiter: waiter)
        }
        switch next {
        case .apply(let credential): waiter(.success(credential))
        case .wait: break
        case .fetch(let id): obtain(id: id, refresh: false)
        case .fail(let error): completion(.failure(error))
        }
    }

    /// Retries a request whose token was rejected, once, after a refresh if its token was the
    /// current one; does not retry anything else.
    public func retryDecision(
        for error: NetworkError, context: ActionContext,
        completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        guard let statusCode = error.statusCode, refreshStatusCodes.contains(statusCode) else {
            completion(.doNotRetry)
            return
        }
        let requestID = context.requestID
        // The retry waits for the refresh, so it is prepared with the new token, or fails with
        // the refresh's error, whenever the module gets round to preparing it.
        let retryAfterRefresh: Waiter = { result in
            if case .failure(let error) = result {
                self.state.withLock { $0.requests[requestID]?.refreshFailure = error }
            }
            completion(.retry)
        }
        let step = state.withLock { state -> RetryStep in
            guard var record = state.requests[context.requestID], let sentGeneration = record.generation,
                !record.wasRetried
            else { return .doNotRetry }
            record.wasRetried = true
            state.requests[context.requestID] = record
            // Stale token, or a refresh already running: the retry's preparation picks up (or
            // waits for) the new token.
            guard case .idle = state.phase, state.credential?.generation == sentGeneration else { return .retry }
            state.lastObtainID += 1
            state.phase = .obtaining(id: state.lastObtainID, waiters: [retryAfterRefresh])
            return .refreshThenRetry(id: state.lastObtainID)
        }
        switch step {
        case .doNotRetry:
            completion(.doNotRetry)
        case .retry:
            completion(.retry)
        case .refreshThenRetry(let id):
            obtain(id: id, refresh: true)
        }
    }

    /// Forgets the request.
    public func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        state.withLock { _ = $0.requests.removeValue(forKey: context.requestID) }
    }

    // MARK: - State machine

    /// Whether a request for `url` should carry the token.
    private func needsToken(_ url: URL?, context: ActionContext) -> Bool {
        guard context.isSameOrigin(as: url) else { return false }
        return context.networkRequest?.requiresAuthentication ?? true
    }

    /// With the lock held: the token if there is one, else join or start obtaining one.
    private static func nextStep(in state: inout State, waiter: @escaping Waiter) -> Next {
        switch state.phase {
        case .obtaining(let id, var waiters):
            waiters.append(waiter)
            state.phase = .obtaining(id: id, waiters: waiters)
            return .wait
        case .idle:
            if let credential = state.credential { return .apply(credential) }
            state.lastObtainID += 1
            state.phase = .obtaining(id: state.lastObtainID, waiters: [waiter])
            return .fetch(id: state.lastObtainID)
        }
    }

    /// Asks the provider, without the lock, and hands the answer to every waiter.
    private func obtain(id: Int, refresh: Bool) {
        let answer: @Sendable (Result<String, any Error>) -> Void = { result in self.finishObtaining(id: id, result) }
        if refresh {
            provider.refreshToken(completion: answer)
        } else {
            provider.currentToken(completion: answer)
        }
    }

    private func finishObtaining(id: Int, _ result: Result<String, any Error>) {
        let delivery = state.withLock { state -> ([Waiter], Result<Credential, any Error>)? in
            guard case .obtaining(let current, let waiters) = state.phase, current == id else { return nil }
            state.phase = .idle
            switch result {
            case .success(let token):
                state.lastGeneration += 1
                let credential = Credential(token: token, generation: state.lastGeneration)
                state.credential = credential
                return (waiters, .success(credential))
            case .failure(let error):
                state.credential = nil
                return (waiters, .failure(error))
            }
        }
        guard let (waiters, credential) = delivery else { return }
        for waiter in waiters { waiter(credential) }
    }

    /// `urlRequest` with `credential`'s token; remembers which token the request carries.
    private func authorize(
        _ urlRequest: URLRequest, with credential: Credential, requestID: UUID
    ) -> Result<URLRequest, any Error> {
        state.withLock { $0.requests[requestID]?.generation = credential.generation }
        return HeaderFieldTable.editing(urlRequest) { headers throws(NetworkError) in
            try write(credential, into: &headers)
        }
    }

    /// Sets the scheme's header to `credential`'s token. A token holding CR, LF or another
    /// control character fails the request with ``NetworkError/invalidRequest(_:)``.
    private func write(_ credential: Credential, into headers: inout HeaderFieldTable) throws(NetworkError) {
        try headers.set(scheme.value(for: credential.token), for: scheme.headerName)
    }
}

extension AuthenticationAction: HeaderFieldPreparing {
    /// Writes the token at once when the action has one and no refresh is running; otherwise
    /// leaves the request to ``prepare(_:context:completion:)``, which waits for the provider.
    func prepareHeaderFields(
        _ headers: inout HeaderFieldTable, url: URL?, context: ActionContext
    ) throws(NetworkError) -> Bool {
        guard needsToken(url, context: context) else { return true }
        let credential = state.withLock { state -> Credential? in
            guard case .idle = state.phase, let credential = state.credential else { return nil }
            state.requests[context.requestID, default: RequestRecord()].generation = credential.generation
            return credential
        }
        guard let credential else { return false }
        try write(credential, into: &headers)
        return true
    }
}

extension NetworkModuleAction where Self == AuthenticationAction {
    /// Attaches `provider`'s token to requests that need it, refreshing it on `401`:
    /// `actions: [.authentication(tokens)]`, or `.authentication(tokens, scheme: .header("X-API-Key"))`.
    public static func authentication(
        _ provider: any AccessTokenProvider, scheme: AuthorizationScheme = .bearer
    ) -> AuthenticationAction {
        AuthenticationAction(provider: provider, scheme: scheme)
    }

    /// HTTP Basic authentication with fixed credentials: `Authorization: Basic …` on requests
    /// that need it. A `401` is delivered as it is (there is nothing to refresh).
    public static func basicAuthentication(username: String, password: String) -> AuthenticationAction {
        AuthenticationAction(
            provider: FixedToken(token: "\(username):\(password)"), scheme: .basic, refreshStatusCodes: [])
    }
}

/// A token that never changes, for fixed credentials.
private struct FixedToken: AccessTokenProvider {
    let token: String

    func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        completion(.success(token))
    }

    func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        completion(.success(token))
    }
}
