import Foundation
import Testing

@testable import NetworkModuleCore

/// `StateDirectoryClaim`: one `BackgroundTransfers` per state folder in a process.
@Suite("StateDirectoryClaim")
struct StateDirectoryClaimTests {
    @Test("when a folder is claimed, should refuse a second claim until the first is gone")
    func oneClaimPerFolder() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("claim-\(UUID().uuidString)")
        var first = StateDirectoryClaim.claim(folder)
        let second = StateDirectoryClaim.claim(folder.appendingPathComponent("x/.."))
        let other = StateDirectoryClaim.claim(folder.appendingPathComponent("other"))

        #expect(first != nil)
        #expect(second == nil, "the same folder, spelled otherwise")
        #expect(other != nil)
        first = nil
        #expect(StateDirectoryClaim.claim(folder) != nil, "free once its holder is gone")
        _ = (first, other)
    }
}
