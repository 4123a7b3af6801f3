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

    /// The claim of `directory`, or `nil` when a live instance holds it already. The folder is
    /// known by its path with symbolic links resolved, so that one reached through a link (as
    /// `/var` and `/private/var` are on Apple's systems) is the same folder.
    static func claim(_ directory: URL) -> StateDirectoryClaim? {
        let key = resolved(directory.standardizedFileURL).path
        return claims.withLock { claims in
            if claims[key]?.claim != nil { return nil }
            let claim = StateDirectoryClaim()
            claims[key] = Entry(claim: claim)
            return claim
        }
    }

    /// `url` with the symbolic links of its nearest existing folder resolved (a folder not made
    /// yet keeps the rest of its path as it is).
    private static func resolved(_ url: URL) -> URL {
        var existing = url
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.pathComponents.count > 1 {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        return rest.reduce(existing.resolvingSymlinksInPath()) { $0.appendingPathComponent($1) }
    }
}
