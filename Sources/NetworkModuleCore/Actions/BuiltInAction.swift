import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An action the framework ships, made by a static member of ``NetworkModuleAction``:
/// ``NetworkModuleAction/retry(_:random:now:)``, ``NetworkModuleAction/logging(redaction:headers:bodies:maxBodyLength:curl:sink:)``,
/// ``NetworkModuleAction/metrics(redaction:_:)``, ``NetworkModuleAction/headers(_:)``,
/// ``NetworkModuleAction/header(_:value:)``, ``NetworkModuleAction/requestID(headerName:)``,
/// ``NetworkModuleAction/validate(_:)``, ``NetworkModuleAction/failing(statusCodes:)``,
/// ``NetworkModuleAction/delay(_:scheduler:)`` and ``NetworkModuleAction/signing(secrets:sign:)``.
///
/// You write the static member where an action is expected and never name this type:
/// `actions: [.requestID(), .retry(.default), .logging()]`. Each hook does what the action it
/// was made as does. The module runs that action itself, so wrapping costs a request nothing.
public struct BuiltInAction: NetworkModuleAction {
    /// The action this value was made as.
    let action: any NetworkModuleAction

    init(_ action: any NetworkModuleAction) {
        self.action = action
    }

    /// Prepares the request as the built-in action does.
    public func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        action.prepare(urlRequest, context: context, completion: completion)
    }

    /// Validates the response as the built-in action does.
    public func validate(_ response: NetworkResponse, context: ActionContext) throws {
        try action.validate(response, context: context)
    }

    /// Observes the attempt as the built-in action does.
    public func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        action.didReceive(result, context: context)
    }

    /// Decides on a retry as the built-in action does.
    public func retryDecision(
        for error: NetworkError, context: ActionContext,
        completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        action.retryDecision(for: error, context: context, completion: completion)
    }

    /// Observes the result as the built-in action does.
    public func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        action.didFinish(result, context: context)
    }
}

extension NetworkModuleAction {
    /// The action the pipeline runs for this one: a built-in action's own, so that the
    /// module never goes through ``BuiltInAction``'s forwarding, and the header fast path
    /// sees the header and authentication actions.
    var unwrapped: any NetworkModuleAction {
        (self as? BuiltInAction)?.action ?? self
    }
}
