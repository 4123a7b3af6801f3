import Foundation

/// What every request of a module shares: fixed when the module is created.
package final class ModuleConfiguration: Sendable {
    /// Builds the first attempt's request and, again, each retry's.
    let requestBuilder: any RequestBuilder
    let baseURL: URL?
    /// The base URL's origin, for the actions' same-origin checks.
    let baseOrigin: Origin?
    /// The module's session, as requests are sent on it (``NetworkSession/transferring``).
    let session: any TransferringSession
    let actions: [any NetworkModuleAction]
    /// Runs the actions' preparation, with the fast path for header-only actions.
    let preparer: ActionPreparer
    /// The most attempts one request makes, retries included.
    let maximumAttempts: Int
    let completionExecutor: any CompletionExecutor
    /// What ``AcceptableStatusCodes/moduleDefault`` and a caller's `URLRequest` accept.
    let acceptableStatusCodes: AcceptableStatusCodes
    let delayScheduler: any DelayScheduler
    /// Numbers the module's requests: ``ActionContext/sequenceNumber``.
    let requestCount = ModuleRequestCount()
    /// The policy of a caller's `URLRequest` and of a request description that names none.
    let redirectPolicy: RedirectPolicy

    init(
        requestBuilder: any RequestBuilder, session: any NetworkSession, actions: [any NetworkModuleAction],
        completionExecutor: any CompletionExecutor, acceptableStatusCodes: AcceptableStatusCodes = .successful,
        delayScheduler: (any DelayScheduler)?, maximumAttempts: Int, redirectPolicy: RedirectPolicy = .follow
    ) {
        self.requestBuilder = requestBuilder
        let baseURL = requestBuilder.baseURL
        self.baseURL = baseURL
        self.baseOrigin = baseURL.flatMap(Origin.init)
        self.session = session.transferring
        self.actions = actions
        self.preparer = ActionPreparer(preparations: actions.map(ActionPreparation.init))
        self.maximumAttempts = maximumAttempts
        self.completionExecutor = completionExecutor
        self.acceptableStatusCodes = acceptableStatusCodes.resolved(moduleDefault: .successful)
        self.delayScheduler = delayScheduler ?? DispatchDelayScheduler()
        self.redirectPolicy = redirectPolicy
    }
}
