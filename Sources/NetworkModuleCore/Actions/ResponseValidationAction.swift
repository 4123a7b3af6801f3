import Foundation

/// The action of ``NetworkModuleAction/validate(_:)`` and ``NetworkModuleAction/failing(statusCodes:)``.
struct ResponseValidationAction: NetworkModuleAction {
    private let check: @Sendable (NetworkResponse) throws -> Void

    /// Validates each accepted response with `check`, which throws to fail it.
    init(_ check: @escaping @Sendable (NetworkResponse) throws -> Void) {
        self.check = check
    }

    /// Runs the check.
    func validate(_ response: NetworkResponse, context: ActionContext) throws {
        try check(response)
    }
}

extension NetworkModuleAction where Self == BuiltInAction {
    /// Turns responses the request accepts into failures, module-wide, when `check` throws: a
    /// status your API uses for errors inside the `2xx` range, or a `200` whose body is an error
    /// envelope.
    ///
    /// ```swift
    /// actions: [
    ///     .failing(statusCodes: [299]),            // .unacceptableStatusCode, with the body
    ///     .validate { response in
    ///         if let envelope = try? response.decode(ErrorEnvelope.self) { throw envelope }
    ///     },
    /// ]
    /// ```
    ///
    /// The failure is what actions observe and what the caller receives; it can be retried like
    /// any other. A thrown ``NetworkError`` is delivered as it is, any other error as
    /// ``NetworkError/actionFailed(action:error:)`` (carrying your error).
    /// For one request, ``NetworkRequest/acceptableStatusCodes`` says the same more simply.
    public static func validate(_ check: @escaping @Sendable (NetworkResponse) throws -> Void) -> BuiltInAction {
        BuiltInAction(ResponseValidationAction(check))
    }

    /// Fails a response with one of `statusCodes` as if the request did not accept that status:
    /// with the same ``NetworkError`` case (``NetworkError/unacceptableStatusCode(_:)`` for a
    /// `2xx`), carrying the status, headers and body.
    public static func failing(statusCodes: Set<Int>) -> BuiltInAction {
        validate { response in
            guard statusCodes.contains(response.statusCode) else { return }
            throw NetworkError(
                response: HTTPErrorResponse(
                    statusCode: response.statusCode, headers: response.headers, body: response.data,
                    url: response.httpResponse.url))
        }
    }
}
