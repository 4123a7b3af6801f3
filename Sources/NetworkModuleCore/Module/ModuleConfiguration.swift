import Foundation

/// What every request of a module shares: fixed when the module is created.
struct ModuleConfiguration: Sendable {
    let baseURL: URL?
    /// The base URL's origin, for the actions' same-origin checks.
    let baseOrigin: Origin?
    /// Whether the request builder rejects invalid headers itself (the default builder does),
    /// so a request with no actions need not be checked again before sending.
    let builderChecksHeaders: Bool
    let session: any NetworkSession
    let actions: [any NetworkModuleAction]
    let completionExecutor: any CompletionExecutor
    let delayScheduler: any DelayScheduler
}
