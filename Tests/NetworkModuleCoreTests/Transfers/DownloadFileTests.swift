import Foundation
import Testing

@testable import NetworkModuleCore

/// The partial file's name beside a download's destination.
@Suite("DownloadFile")
struct DownloadFileTests {
    private let unique = "6F9619FF-8B86-D011-B42D-00C04FC964FF"

    @Test("when the destination's name is short, should hide it and add the unique part whole")
    func shortName() {
        #expect(
            DownloadFile.partialName(for: "report.pdf", unique: unique)
                == ".report.pdf.6F9619FF-8B86-D011-B42D-00C04FC964FF.download")
    }

    @Test(
        "when the destination's name is long, should cut it at a character boundary to fit 255 bytes",
        arguments: [
            String(repeating: "a", count: 255), String(repeating: "é", count: 127), String(repeating: "👍🏽", count: 31),
        ])
    func longNameFits(name: String) {
        let partial = DownloadFile.partialName(for: name, unique: unique)

        let suffix = ".\(unique).download"
        let kept = partial.dropFirst().dropLast(suffix.count)
        #expect(partial.utf8.count <= 255)
        #expect(partial.utf8.count > 255 - 8, "no more is cut than one character (8 bytes at most here)")
        #expect(partial.hasPrefix(".") && partial.hasSuffix(suffix))
        #expect(name.hasPrefix(kept), "the destination's name, cut between two of its characters")
    }
}
