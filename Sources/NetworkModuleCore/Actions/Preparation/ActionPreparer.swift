import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs the actions' preparation of one attempt, from a given action on, as one call-out of
/// ``RequestOperation``: what the state machine's ``RequestStateMachine/Next/prepare(attempt:from:facts:)``
/// asks for.
///
/// Actions that only set header fields and can do so at once edit one shared
/// ``HeaderFieldTable``, written into the request once, before the next other action or the
/// end: a write to a request whose storage is shared copies all of it (measured: without it, the
/// pipeline benchmark's case (c) costs 11.3 µs instead of 4.9). Every other action's `prepare`
/// is called, the framework's and the user's alike: the first is called, and
/// the preparation stops there: its completion, whenever it comes, goes to the state machine,
/// which starts the next preparation call-out from the action after it.
struct ActionPreparer {
    let preparations: [ActionPreparation]

    /// Prepares `request` with actions `from...`, in order.
    ///
    /// - Parameters:
    ///   - context: makes the attempt's context, once, if an action from `index` on prepares.
    ///   - onPrepared: receives the completion of the action whose own `prepare` was called.
    func prepare(
        _ request: consuming URLRequest, from index: Int, context makeContext: () -> ActionContext,
        onPrepared: @escaping @Sendable (Int, Result<URLRequest, NetworkError>) -> Void
    ) -> RequestStateMachine.PreparationOutcome {
        guard preparations.indices.contains(index) else { return .prepared(request) }
        // Made once, and only here: an attempt's context and URL are the same for every action
        // of the preparation, and a context is costly to copy (an existential and several
        // references).
        let context = makeContext()
        let url = request.url
        var headers: HeaderFieldTable?
        var index = index
        while index < preparations.count {
            let action: any NetworkModuleAction
            switch preparations[index] {
            case .headerFields(let headerAction):
                var table = headers.take() ?? HeaderFieldTable(takingFieldsOf: &request)
                do throws(NetworkError) {
                    let isPrepared = try headerAction.prepareHeaderFields(&table, url: url, context: context)
                    headers = table
                    if isPrepared {
                        index += 1
                        continue
                    }
                } catch {
                    return .failed(error)
                }
                action = headerAction
            case .general(let generalAction):
                action = generalAction
            }
            headers.take()?.write(to: &request)
            let actionIndex = index
            action.prepare(request, context: context) { result in
                onPrepared(actionIndex, result.mapError { NetworkError(actionError: $0, action: action) })
            }
            return .waiting(forAction: actionIndex)
        }
        headers.take()?.write(to: &request)
        return .prepared(request)
    }
}
