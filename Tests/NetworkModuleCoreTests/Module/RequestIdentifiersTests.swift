import Foundation
import Testing

@testable import NetworkModuleCore

@Suite("Request identifiers")
struct RequestIdentifiersTests {
    @Test("should be unique, version 4 and of the RFC 4122 variant")
    func uniqueAndWellFormed() {
        let identifiers = (0..<10_000).map { _ in RequestIdentifiers.next() }

        #expect(Set(identifiers).count == identifiers.count)
        for identifier in identifiers.prefix(100) {
            #expect(identifier.uuid.6 >> 4 == 4, "version nibble of \(identifier)")
            #expect(identifier.uuid.8 >> 6 == 0b10, "variant bits of \(identifier)")
        }
    }

    @Test("when many threads take identifiers at once, should still never repeat one")
    func uniqueAcrossThreads() async {
        let identifiers = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<2_000).map { _ in RequestIdentifiers.next() } }
            }
            var all: [UUID] = []
            for await batch in group { all += batch }
            return all
        }

        #expect(Set(identifiers).count == 16_000)
    }
}
