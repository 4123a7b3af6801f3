import Foundation

/// One ``BackgroundTransfers`` per state folder in a process: the claim of the first instance
/// made for a folder, held for its life. A second instance for the same folder (made again on a
/// scene reconnect, say) gets none, and refuses everything instead of writing a ledger that knows
/// nothing of the first one's transfers, which a relaunch would then cancel unreported.
final class StateDirectoryClaim: Sendable {
    private struct Entry {
        weak var claim: StateDirectoryClaim?
    }

    /// The live claims, by folder path; an entry whose claim is gone is free.
    private static let claims = LockedState<[String: Entry]>([:])

    private init() {}

    /// The claim of `directory`, or `nil` when a live instance holds it already.
    static func claim(_ directory: URL) -> StateDirectoryClaim? {
        let key = path(of: directory)
        return claims.withLock { claims in
            if claims[key]?.claim != nil { return nil }
            let claim = StateDirectoryClaim()
            claims[key] = Entry(claim: claim)
            return claim
        }
    }

    /// The folder's path however it is reached (a symbolic link, `..`), the folder existing yet
    /// or not: its nearest existing ancestor is resolved, and the rest appended.
    static func path(of directory: URL) -> String {
        var existing = directory.standardizedFileURL
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.pathComponents.count > 1 {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        return rest.reduce(existing.resolvingSymlinksInPath()) { $0.appendingPathComponent($1) }.path
    }
}
