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
/// The token goes only to requests that need it (``NetworkRequest/requiresAuthentication``) and
/// whose URL has the base URL's origin; a rejected token is refreshed once for all the requests
/// that fail together, and each request is retried this way once; ``resetToken()`` forgets the
/// token on sign-out or sign-in; and the token's header counts as a credential for the whole
/// process (removed on a redirect to another origin, masked by every ``Redaction``). The Actions
/// guide (`docs/actions.md`, "Authentication") tells each rule in full.
///
/// Put it before actions that log or measure, so they see the header (masked) and the waits.
public final class AuthenticationAction: NetworkModuleAction {
    /// A token, and which one it is: the generation grows with each token the action gets, so
    /// a request that carried an older generation is known to be stale.
    struct Credential: Equatable {
        let token: String
        let generation: Int
    }

    typealias Waiter = @Sendable (Result<Credential, any Error>) -> Void

    enum Phase {
        case idle
        /// Asking the provider, as request `id` (a second answer is ignored); `isInvalidated`:
        /// ``AuthenticationAction/resetToken()`` ran since, so the answer is dropped and asked again.
        case obtaining(id: Int, waiters: [Waiter], isInvalidated: Bool = false)
    }

    /// What the action remembers of one request, from its first preparation to `didFinish`.
    /// Only the preparation hooks create a record; every later step updates one only if it is
    /// still there, so a step that runs after `didFinish` cannot bring a record back.
    struct RequestRecord: Equatable {
        /// The generation of the token the latest attempt carried; `nil` if it carried none.
        var generation: Int?
        /// Whether the request was already retried after a rejected token.
        var wasRetried = false
    }

    /// What a preparation does after looking at the state.
    enum Next {
        case apply(Credential)
        case wait
        case fetch(id: Int)
        /// Fail the preparation: the refresh this request's retry waited for failed.
        case fail(any Error)
    }

    /// What a retry decision does after looking at the state.
    enum RetryStep: Equatable {
        case doNotRetry
        case retry
        case refreshThenRetry(id: Int)
    }

    /// What to do with an answer of the provider.
    enum Delivery {
        /// Not the answer awaited (answered twice), or invalidated by a reset with nobody
        /// waiting: nothing to do.
        case drop
        /// Call every waiter back with the token, or the provider's error.
        case deliver([Waiter], Result<Credential, any Error>)
        /// Invalidated by a reset: ask the provider for the current token again, as request `id`,
        /// for the waiters, who keep waiting.
        case askAgain(id: Int)
    }

    /// The action's state and its transitions. Each transition runs with the lock held, changes
    /// the state and returns what to do next; the action does it after leaving the lock. The
    /// transitions call no provider and no completion, so they are tested without threads.
    struct State {
        var credential: Credential?
        var lastGeneration = 0
        var lastObtainID = 0
        var phase = Phase.idle
        var requests: [UUID: RequestRecord] = [:]
        /// The error of the refresh a request's retry waited for, when it failed: the retry's
        /// preparation fails with it.
        var refreshFailures: [UUID: any Error] = [:]

        /// A preparation that must wait for the provider, or apply the token there is: the token
        /// if there is one and no request to the provider runs, else join or start one.
        mutating func prepare(requestID: UUID, waiter: @escaping Waiter) -> Next {
            if let failure = refreshFailures.removeValue(forKey: requestID) { return .fail(failure) }
            if requests[requestID] == nil { requests[requestID] = RequestRecord() }
            switch phase {
            case .obtaining(let id, var waiters, let isInvalidated):
                waiters.append(waiter)
                phase = .obtaining(id: id, waiters: waiters, isInvalidated: isInvalidated)
                return .wait
            case .idle:
                if let credential { return .apply(credential) }
                lastObtainID += 1
                phase = .obtaining(id: lastObtainID, waiters: [waiter])
                return .fetch(id: lastObtainID)
            }
        }

        /// The synchronous preparation: the token, if there is one and no request to the
        /// provider runs; `nil` sends the request to ``prepare(requestID:waiter:)``.
        mutating func prepareAtOnce(requestID: UUID) -> Credential? {
            guard case .idle = phase, let credential, refreshFailures[requestID] == nil else { return nil }
            requests[requestID, default: RequestRecord()].generation = credential.generation
            return credential
        }

        /// Records that `requestID` carries `credential`; a request already finished is not
        /// recorded again.
        mutating func didApply(_ credential: Credential, requestID: UUID) {
            requests[requestID]?.generation = credential.generation
        }

        /// A request whose token was rejected: retry it once, after a refresh if the token it
        /// carried is still current and no request to the provider runs; `retryAfterRefresh` waits
        /// for that refresh, so the retry is prepared with the new token or fails with its error.
        mutating func retry(requestID: UUID, retryAfterRefresh: @escaping Waiter) -> RetryStep {
            guard var record = requests[requestID], let sentGeneration = record.generation, !record.wasRetried
            else { return .doNotRetry }
            record.wasRetried = true
            requests[requestID] = record
            // Stale token, or a request to the provider already running: the retry's preparation
            // picks up (or waits for) the new token.
            guard case .idle = phase, credential?.generation == sentGeneration else { return .retry }
            lastObtainID += 1
            phase = .obtaining(id: lastObtainID, waiters: [retryAfterRefresh])
            return .refreshThenRetry(id: lastObtainID)
        }

        /// The provider's answer to request `id`: deliver it to the waiters; drop it when it is
        /// not the one awaited; or, when a reset invalidated it, drop it and ask again for the
        /// waiters.
        mutating func finishObtaining(id: Int, _ result: Result<String, any Error>) -> Delivery {
            guard case .obtaining(let current, let waiters, let isInvalidated) = phase, current == id else {
                return .drop
            }
            if isInvalidated {
                guard !waiters.isEmpty else {
                    phase = .idle
                    return .drop
                }
                lastObtainID += 1
                phase = .obtaining(id: lastObtainID, waiters: waiters)
                return .askAgain(id: lastObtainID)
            }
            phase = .idle
            switch result {
            case .success(let token):
                lastGeneration += 1
                let credential = Credential(token: token, generation: lastGeneration)
                self.credential = credential
                return .deliver(waiters, .success(credential))
            case .failure(let error):
                credential = nil
                return .deliver(waiters, .failure(error))
            }
        }

        /// Sign-out or sign-in: forgets the token and invalidates the request to the provider in
        /// flight, if any, so that its answer is dropped (and the current token asked for again
        /// for its waiters, once it has answered: never two requests to the provider at once).
        mutating func reset() {
            credential = nil
            if case .obtaining(let id, let waiters, _) = phase {
                phase = .obtaining(id: id, waiters: waiters, isInvalidated: true)
            }
        }

        /// The refresh a retry of `requestID` waited for failed: the retry's preparation fails
        /// with `error`. Only a request still running (it has a record) keeps it, so nothing is
        /// left behind for a request that already finished.
        mutating func refreshFailed(requestID: UUID, error: any Error) {
            if requests[requestID] != nil { refreshFailures[requestID] = error }
        }

        /// Forgets the request.
        mutating func finish(requestID: UUID) {
            requests.removeValue(forKey: requestID)
            // Nearly always empty: skip hashing the ID for nothing.
            if !refreshFailures.isEmpty { refreshFailures.removeValue(forKey: requestID) }
        }
    }

    /// Where tokens come from.
    let provider: any AccessTokenProvider
    /// How a token is written into a request.
    let scheme: AuthorizationScheme
    /// The HTTP statuses that mean "this token is rejected": `[401]` by default. Empty: never
    /// refresh (for fixed credentials, whose rejection the caller should see).
    let refreshStatusCodes: Set<Int>

    // The provider and every completion are called outside the lock.
    private let state = LockedState(State())

    /// Creates an authentication action; its factories (``NetworkModuleAction/authentication(_:scheme:refreshStatusCodes:)``
    /// and the others) say what each parameter is.
    init(provider: any AccessTokenProvider, scheme: AuthorizationScheme, refreshStatusCodes: Set<Int>) {
        self.provider = provider
        self.scheme = scheme
        self.refreshStatusCodes = refreshStatusCodes
        // Whatever its name, the header is a credential from now on: stripped on a redirect
        // to another origin by URLSessionTransport, masked by every Redaction.
        CredentialHeaders.register(scheme.headerName)
    }

    /// Forgets the token: the next request asks the provider for the current one. Call it when
    /// the user signs out or in. A request to the provider in flight is invalidated: its answer
    /// is dropped, and its waiters wait for a new ``AccessTokenProvider/currentToken(completion:)``.
    public func resetToken() {
        state.withLock { $0.reset() }
    }

    /// How many requests the action holds a record of (between their first preparation and
    /// `didFinish`), for tests that check nothing is left behind.
    var recordedRequestCount: Int { state.withLock { $0.requests.count } }

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
        let next = state.withLock { $0.prepare(requestID: requestID, waiter: waiter) }
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
        let retryAfterRefresh: Waiter = { result in
            if case .failure(let error) = result {
                self.state.withLock { $0.refreshFailed(requestID: requestID, error: error) }
            }
            completion(.retry)
        }
        let step = state.withLock { $0.retry(requestID: requestID, retryAfterRefresh: retryAfterRefresh) }
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
        state.withLock { $0.finish(requestID: context.requestID) }
    }

    // MARK: - State machine

    /// Whether a request for `url` should carry the token.
    private func needsToken(_ url: URL?, context: ActionContext) -> Bool {
        guard context.isSameOrigin(as: url) else { return false }
        return context.networkRequest?.requiresAuthentication ?? true
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
        switch state.withLock({ $0.finishObtaining(id: id, result) }) {
        case .drop:
            break
        case .deliver(let waiters, let credential):
            for waiter in waiters { waiter(credential) }
        case .askAgain(let id):
            obtain(id: id, refresh: false)
        }
    }

    /// `urlRequest` with `credential`'s token; remembers which token the request carries.
    private func authorize(
        _ urlRequest: URLRequest, with credential: Credential, requestID: UUID
    ) -> Result<URLRequest, any Error> {
        state.withLock { $0.didApply(credential, requestID: requestID) }
        return HeaderFieldTable.editing(urlRequest) { headers in write(credential, into: &headers) }
    }

    /// Sets the scheme's header to `credential`'s token. A token holding CR, LF or another
    /// control character fails the request with ``NetworkError/invalidRequest(_:)`` when the
    /// module checks its header fields, just before sending it.
    private func write(_ credential: Credential, into headers: inout HeaderFieldTable) {
        headers.set(scheme.value(for: credential.token), for: scheme.headerName)
    }
}

extension AuthenticationAction: HeaderFieldPreparing {
    /// Writes the token at once when the action has one and no refresh is running; otherwise
    /// leaves the request to ``prepare(_:context:completion:)``, which waits for the provider.
    func prepareHeaderFields(
        _ headers: inout HeaderFieldTable, url: URL?, context: ActionContext
    ) throws(NetworkError) -> Bool {
        guard needsToken(url, context: context) else { return true }
        let credential = state.withLock { $0.prepareAtOnce(requestID: context.requestID) }
        guard let credential else { return false }
        write(credential, into: &headers)
        return true
    }
}

extension NetworkModuleAction where Self == AuthenticationAction {
    /// Attaches `provider`'s token to requests that need it, refreshing it on `401`:
    /// `actions: [.authentication(tokens)]`, or `.authentication(tokens, scheme: .header("X-API-Key"))`.
    /// Keep the action (`let auth: AuthenticationAction = .authentication(tokens)`) to call
    /// ``AuthenticationAction/resetToken()`` on sign-out.
    ///
    /// - Parameters:
    ///   - provider: gives the current token and refreshes it.
    ///   - scheme: how the token is written into a request; bearer by default.
    ///   - refreshStatusCodes: the statuses that mean "this token is rejected" and trigger a
    ///     refresh; `[401]` by default. Empty: never refresh (for fixed credentials, whose
    ///     rejection the caller should see).
    public static func authentication(
        _ provider: any AccessTokenProvider, scheme: AuthorizationScheme = .bearer, refreshStatusCodes: Set<Int> = [401]
    ) -> AuthenticationAction {
        AuthenticationAction(provider: provider, scheme: scheme, refreshStatusCodes: refreshStatusCodes)
    }

    /// A token that never changes, written with `scheme` into requests that need it: a `String`
    /// as the token provider. A `401` is delivered as it is (there is nothing to refresh).
    ///
    /// ```swift
    /// let bearer: AuthenticationAction = .authentication("secret-token")  // Authorization: Bearer secret-token
    /// let raw: AuthenticationAction = .authentication("secret-token", scheme: .header("Access-Token"))  // Access-Token: secret-token
    /// ```
    public static func authentication(_ token: String, scheme: AuthorizationScheme = .bearer) -> AuthenticationAction {
        AuthenticationAction(provider: FixedToken(token: token), scheme: scheme, refreshStatusCodes: [])
    }

    /// HTTP Basic authentication with fixed credentials: `Authorization: Basic …` on requests
    /// that need it. A `401` is delivered as it is (there is nothing to refresh).
    public static func basicAuthentication(username: String, password: String) -> AuthenticationAction {
        AuthenticationAction(
            provider: FixedToken(token: "\(username):\(password)"), scheme: .basic, refreshStatusCodes: [])
    }

    /// Attaches the token of an `async throws` closure to requests that need it, refreshing it on
    /// `401` with `refresh` (by default `current` again): for a token store written with
    /// async/await, with no provider type of your own.
    ///
    /// ```swift
    /// let actions: [any NetworkModuleAction] = [
    ///     .authentication(
    ///         current: { try await store.accessToken() },
    ///         refresh: { try await authServer.refresh() })
    /// ]
    /// ```
    ///
    /// Each time the action needs a token it runs one closure in a new `Task`, never two at
    /// once; a thrown error fails the requests waiting for the token with that error, as a
    /// provider's failure does.
    ///
    /// - Parameters:
    ///   - current: the token to use now, for example from the keychain (as
    ///     ``AccessTokenProvider/currentToken(completion:)``).
    ///   - refresh: a new token, after the server rejected the current one (as
    ///     ``AccessTokenProvider/refreshToken(completion:)``); by default `current` again, for a
    ///     store that refreshes on its own.
    ///   - scheme: how the token is written into a request; bearer by default.
    ///   - refreshStatusCodes: the statuses that trigger a refresh; `[401]` by default.
    public static func authentication(
        current: @escaping @Sendable () async throws -> String,
        refresh: (@Sendable () async throws -> String)? = nil,
        scheme: AuthorizationScheme = .bearer, refreshStatusCodes: Set<Int> = [401]
    ) -> AuthenticationAction {
        AuthenticationAction(
            provider: AsyncTokenProvider(current: current, refresh: refresh), scheme: scheme,
            refreshStatusCodes: refreshStatusCodes)
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
