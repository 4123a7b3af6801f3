import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Work that runs around every request of a module: authentication, headers, logging,
/// retry, metrics, or anything of your own.
///
/// Every hook has a default that does nothing, so an action implements only what it needs.
/// The simplest action rewrites the request before it is sent, exactly as in the callback
/// module this framework grew from:
///
/// ```swift
/// struct APIKeyAction: NetworkModuleAction {
///     let key: String
///     func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
///         urlRequest.setValue(key, forHTTPHeaderField: "X-API-Key")
///     }
/// }
/// ```
///
/// ## The lifecycle of one request
/// ``prepare(_:context:completion:)`` runs before every attempt, ``validate(_:context:)`` and
/// ``didReceive(_:context:)`` after it, ``retryDecision(for:context:completion:)`` after a
/// failure, and ``didFinish(_:context:)`` once, last of all, each for every action in array
/// order. The Actions guide (`docs/actions.md`, "The lifecycle of one request") tells it in full.
public protocol NetworkModuleAction: Sendable {
    /// The simple, synchronous form of preparation: rewrite `urlRequest` before it is sent.
    ///
    /// Throw to fail the request; a thrown ``NetworkError`` is delivered as it is, any other
    /// error as ``NetworkError/actionFailed(action:error:)``. Called by the default
    /// ``prepare(_:context:completion:)`` before every attempt.
    ///
    /// - Parameters:
    ///   - request: the request description, or `nil` for `perform(urlRequest:)`.
    ///   - urlRequest: the request to be sent, to modify in place.
    func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) throws

    /// The simple form of observation: called once per request that succeeded, with its
    /// response, by the default ``didFinish(_:context:)``.
    func performAfterExecutingNetworkRequest(request: (any NetworkRequest)?, networkResponse: NetworkResponse)

    /// Prepares `urlRequest` before each attempt, and calls `completion` exactly once with
    /// the request to send or an error that fails the request. `completion` may be called
    /// later, from any thread (for example after a token refresh).
    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void)

    /// Checks a response whose status the request accepts, before any action observes it, and
    /// fails the attempt by throwing: for a `200` whose body is an error envelope, say.
    ///
    /// A thrown ``NetworkError`` becomes the attempt's failure as it is, any other error
    /// ``NetworkError/actionFailed(action:error:)``; the failure is then observed and may be retried like
    /// any other. Runs for each action in order until one throws.
    func validate(_ response: NetworkResponse, context: ActionContext) throws

    /// Observes the outcome of each attempt that was sent: success or failure.
    func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext)

    /// Decides whether a failed attempt is sent again; calls `completion` exactly once, from
    /// any thread. Asked in array order until an action answers other than
    /// ``RetryDecision/doNotRetry``. Never asked for ``NetworkError/cancelled``.
    func retryDecision(
        for error: NetworkError, context: ActionContext,
        completion: @escaping @Sendable (RetryDecision) -> Void)

    /// Observes the final result of the request, once, just before it is delivered. A cancel
    /// that comes after it (before the completion executor runs the completion) makes the
    /// completion `.cancelled`, and is not told here: this stays the last call, made once.
    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext)
}

extension NetworkModuleAction {
    /// Leaves the request as it is.
    public func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest)
        throws
    {}

    /// Does nothing.
    public func performAfterExecutingNetworkRequest(request: (any NetworkRequest)?, networkResponse: NetworkResponse) {}

    /// Calls ``performBeforeExecutingNetworkRequest(request:urlRequest:)`` and completes at once.
    public func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        var request = urlRequest
        do {
            try performBeforeExecutingNetworkRequest(request: context.networkRequest, urlRequest: &request)
            completion(.success(request))
        } catch {
            completion(.failure(error))
        }
    }

    /// Accepts every response.
    public func validate(_ response: NetworkResponse, context: ActionContext) throws {}

    /// Does nothing.
    public func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {}

    /// Does not retry.
    public func retryDecision(
        for error: NetworkError, context: ActionContext,
        completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        completion(.doNotRetry)
    }

    /// Calls ``performAfterExecutingNetworkRequest(request:networkResponse:)`` on success.
    public func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        if case .success(let response) = result {
            performAfterExecutingNetworkRequest(request: context.networkRequest, networkResponse: response)
        }
    }
}
