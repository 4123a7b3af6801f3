import Foundation

/// What every request of a module shares: fixed when the module is created.
struct ModuleConfiguration: Sendable {
    let baseURL: URL?
    let session: any NetworkSession
    let actions: [any NetworkModuleAction]
    let completionExecutor: any CompletionExecutor
    let delayScheduler: any DelayScheduler
}
