extension [any NetworkModuleAction] {
    /// `result` as the actions judge it: a success goes through each action's `validate` in
    /// order, and the first that throws turns it into that action's error; a failure stays as
    /// it is. One rule for the pipeline's attempts and for background transfers.
    func validated(
        _ result: Result<NetworkResponse, NetworkError>, context: ActionContext
    ) -> Result<NetworkResponse, NetworkError> {
        guard case .success(let response) = result else { return result }
        for action in self {
            do {
                try action.validate(response, context: context)
            } catch {
                return .failure(NetworkError(actionError: error, action: action))
            }
        }
        return result
    }
}
