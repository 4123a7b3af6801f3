import Foundation
import NetworkModuleCore

/// The session decorators of case (e), each around the instant session.
struct SessionDecoratorCases {
    let name: String
    let session: any NetworkSession

    static func make(inner: any NetworkSession) -> [SessionDecoratorCases] {
        [
            SessionDecoratorCases(name: "throttled(maxConcurrent: 4)", session: inner.throttled(maxConcurrent: 4)),
            SessionDecoratorCases(name: "deduplicated()", session: inner.deduplicated()),
            SessionDecoratorCases(name: "cached() (hits after the first)", session: inner.cached()),
        ]
    }
}
