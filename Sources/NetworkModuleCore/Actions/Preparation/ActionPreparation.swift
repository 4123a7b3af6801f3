/// How the pipeline prepares a request with one action, worked out once per module.
enum ActionPreparation: Sendable {
    /// The action never changes the request: nothing to run.
    case skipped
    /// The action sets header fields, through the shared table when it can.
    case headerFields(any HeaderFieldPreparing)
    /// Anything else: the action's `prepare`, which may finish later.
    case general(any NetworkModuleAction)

    init(_ action: any NetworkModuleAction) {
        if let headerAction = action as? any HeaderFieldPreparing {
            self = .headerFields(headerAction)
        } else if action is any PreparationFreeAction {
            self = .skipped
        } else {
            self = .general(action)
        }
    }

    /// Whether there is nothing to run.
    var isSkipped: Bool {
        if case .skipped = self { true } else { false }
    }
}
