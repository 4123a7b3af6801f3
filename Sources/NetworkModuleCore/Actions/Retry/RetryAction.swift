import Foundation

/// The action of ``NetworkModuleAction/retry(_:random:now:)``.
struct RetryAction: NetworkModuleAction {
    /// The policy for requests that do not set their own.
    let policy: RetryPolicy
    private let random: @Sendable () -> Double
    private let now: @Sendable () -> Date

    /// Creates the action; ``NetworkModuleAction/retry(_:random:now:)`` says what each parameter is.
    init(
        policy: RetryPolicy, random: @escaping @Sendable () -> Double, now: @escaping @Sendable () -> Date
    ) {
        self.policy = policy
        self.random = random
        self.now = now
    }

    /// Answers ``RetryDecision/retryAfter(_:)`` with the policy's wait for a retryable failure
    /// of a retryable method while attempts remain; ``RetryDecision/doNotRetry`` otherwise.
    func retryDecision(
        for error: NetworkError, context: ActionContext,
        completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        let decision = decision(for: error, context: context)
        let policy = policy(for: context)
        // A failure for lack of network, while the network is unreachable, waits for it instead
        // of spending an attempt; a cancel meanwhile ends the request at once (the machine
        // ignores a decision that comes after), and `didFinish` takes it off the list.
        guard decision != .doNotRetry, error.isConnectivityFailure, let connectivity = policy.connectivity,
            connectivity.wait(
                context.requestID, upTo: policy.networkWaitLimit,
                resume: { reachable in completion(reachable ? .retry : .doNotRetry) })
        else { return completion(decision) }
    }

    /// Takes a request that ends while it waits for the network off the list.
    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        policy(for: context).connectivity?.requestEnded(context.requestID)
    }

    /// The request's own policy, or the action's.
    private func policy(for context: ActionContext) -> RetryPolicy {
        context.networkRequest?.retryPolicy ?? policy
    }

    /// The decision, computed synchronously.
    func decision(for error: NetworkError, context: ActionContext) -> RetryDecision {
        let policy = policy(for: context)
        let method = HTTPMethod(rawValue: context.sentRequest?.httpMethod ?? "GET")
        guard context.attempt < policy.maxAttempts, policy.retriesNonIdempotentMethods || method.isIdempotent,
            policy.isRetryable(error)
        else { return .doNotRetry }

        if policy.honoursRetryAfter, let header = error.httpErrorResponse?.headers["Retry-After"],
            let serverDelay = RetryAfter.delay(from: header, now: now())
        {
            return serverDelay <= policy.maxRetryAfter ? .retryAfter(serverDelay) : .doNotRetry
        }
        return .retryAfter(policy.jittered(policy.backoff(afterAttempt: context.attempt), random: random()))
    }
}

extension NetworkModuleAction where Self == BuiltInAction {
    /// Sends failed requests again, following `policy`: a limited number of attempts,
    /// exponential backoff with jitter, `Retry-After` honoured, and by default only idempotent
    /// methods and transient failures.
    ///
    /// ```swift
    /// let module = DefaultNetworkModule(requestBuilder: builder, actions: [.retry(.default)])
    /// ```
    ///
    /// The module waits with its ``DelayScheduler``, so tests drive the waits with a manual clock.
    /// A request's own ``NetworkRequest/retryPolicy`` overrides the action's. Attempts count every
    /// attempt of the request, those another action retried (after a token refresh, say) included.
    ///
    /// - Parameters:
    ///   - policy: the policy for requests that do not set ``NetworkRequest/retryPolicy``.
    ///   - random: a number in `0..<1` for the jitter of each wait; tests pass a constant.
    ///   - now: the current date, against which a `Retry-After` date is read; tests pass a
    ///     fixed date.
    public static func retry(
        _ policy: RetryPolicy = .default,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> BuiltInAction {
        BuiltInAction(RetryAction(policy: policy, random: random, now: now))
    }
}
