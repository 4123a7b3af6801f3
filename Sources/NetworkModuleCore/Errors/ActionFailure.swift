import Foundation

/// An error with which an action failed a request.
///
/// An action that fails with a ``NetworkError`` passes that error on as it is; any other
/// error is wrapped here, with the action's type name so the failing action can be found.
public struct ActionFailure: Equatable, Sendable, CustomStringConvertible {
    /// The type name of the action that failed, for example `"TokenAction"`.
    public let actionName: String
    /// The description of the error the action threw.
    public let message: String
    /// The error the action threw. Not part of equality.
    public let underlyingError: (any Error)?

    /// Creates an action failure.
    public init(actionName: String, message: String, underlyingError: (any Error)? = nil) {
        self.actionName = actionName
        self.message = message
        self.underlyingError = underlyingError
    }

    /// Two failures are equal when the action name and message are.
    public static func == (lhs: ActionFailure, rhs: ActionFailure) -> Bool {
        lhs.actionName == rhs.actionName && lhs.message == rhs.message
    }

    /// `"<action>: <message>"`.
    public var description: String { "\(actionName): \(message)" }
}

extension NetworkError {
    /// The error an action reports: a ``NetworkError`` as it is, anything else wrapped in
    /// ``actionFailed(_:)`` with the action's name.
    init(actionError error: any Error, action: any NetworkModuleAction) {
        if let networkError = error as? NetworkError {
            self = networkError
        } else {
            let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
            self = .actionFailed(
                ActionFailure(
                    actionName: String(describing: type(of: action)), message: message, underlyingError: error))
        }
    }
}
