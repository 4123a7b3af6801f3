import Foundation
import NetworkModuleCore

/// The session decorators of case (e), each around the instant session.
struct SessionDecoratorCases {
    let name: String
    let session: any NetworkSession

    /// - Parameter cacheable: the instant session whose answers say `Cache-Control: max-age`,
    ///   which the cache needs to keep them (it stores nothing it could not serve fresh or revalidate).
    static func make(inner: any NetworkSession, cacheable: any NetworkSession) -> [SessionDecoratorCases] {
        [
            SessionDecoratorCases(name: "throttled(maxConcurrent: 4)", session: inner.throttled(maxConcurrent: 4)),
            SessionDecoratorCases(name: "deduplicated()", session: inner.deduplicated()),
            SessionDecoratorCases(name: "cached() (hits after the first)", session: cacheable.cached()),
        ]
    }
}
