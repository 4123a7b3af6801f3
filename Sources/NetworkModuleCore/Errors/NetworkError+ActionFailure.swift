import Foundation

extension NetworkError {
    /// The error an action reports: a ``NetworkError`` as it is, anything else wrapped in
    /// ``actionFailed(action:error:)`` with the action's type name.
    init(actionError error: any Error, action: any NetworkModuleAction) {
        if let networkError = error as? NetworkError {
            self = networkError
        } else {
            self = .actionFailed(action: String(describing: type(of: action)), error: error)
        }
    }
}
