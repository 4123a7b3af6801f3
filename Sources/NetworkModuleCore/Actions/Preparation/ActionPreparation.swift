/// How the pipeline prepares a request with one action, worked out once per module.
enum ActionPreparation: Sendable {
    /// The action sets header fields, through the shared table when it can.
    case headerFields(any HeaderFieldPreparing)
    /// Anything else: the action's `prepare`, which may finish later.
    case general(any NetworkModuleAction)

    init(_ action: any NetworkModuleAction) {
        if let headerAction = action as? any HeaderFieldPreparing {
            self = .headerFields(headerAction)
        } else {
            self = .general(action)
        }
    }
}
