import Foundation

/// What every request of a module shares: fixed when the module is created.
struct ModuleConfiguration: Sendable {
    /// Builds the first attempt's request and, again, each retry's.
    let requestBuilder: any RequestBuilder
    let baseURL: URL?
    /// The base URL's origin, for the actions' same-origin checks.
    let baseOrigin: Origin?
    /// Whether the request builder rejects invalid headers itself (the default builder does),
    /// so a request that no action other than the built-in header actions prepared (they check
    /// what they set) need not be checked again before sending.
    let builderChecksHeaders: Bool
    let session: any NetworkSession
    let actions: [any NetworkModuleAction]
    /// How each of `actions` prepares a request, in the same order.
    let preparations: [ActionPreparation]
    let completionExecutor: any CompletionExecutor
    let delayScheduler: any DelayScheduler

    init(
        requestBuilder: any RequestBuilder, session: any NetworkSession, actions: [any NetworkModuleAction],
        completionExecutor: any CompletionExecutor, delayScheduler: any DelayScheduler
    ) {
        self.requestBuilder = requestBuilder
        let baseURL = requestBuilder.baseURL
        self.baseURL = baseURL
        self.baseOrigin = baseURL.flatMap(Origin.init)
        self.builderChecksHeaders = requestBuilder is DefaultRequestBuilder
        self.session = session
        self.actions = actions
        self.preparations = actions.map(ActionPreparation.init)
        self.completionExecutor = completionExecutor
        self.delayScheduler = delayScheduler
    }
}
