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
        let key = directory.standardizedFileURL.path
        return claims.withLock { claims in
            if claims[key]?.claim != nil { return nil }
            let claim = StateDirectoryClaim()
            claims[key] = Entry(claim: claim)
            return claim
        }
    }
}
