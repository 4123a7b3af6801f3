import Foundation
import Testing

/// Keeps the documentation honest: every ```swift block in README.md, docs/*.md and the DocC
/// articles (Sources/*/*.docc) must be marked `<!-- sample: NAME -->` and must equal, line for
/// line, the region `// sample: NAME` … `// end-sample` in this target's sources, which the
/// compiler checks and the tests run. A sample that drifts from the code fails here.
@Suite("Documentation samples")
struct DocumentationSamplesTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("every Swift block in the docs is a compiled sample, word for word")
    func docsMatchCompiledSamples() throws {
        let samples = try SampleCatalog.regions(in: Self.repositoryRoot.appendingPathComponent("Tests/NetworkModuleSamplesTests"))
        let blocks = try SampleCatalog.markdownBlocks(in: Self.repositoryRoot)
        #expect(!blocks.isEmpty, "no documentation found under \(Self.repositoryRoot.path)")

        for block in blocks {
            guard let name = block.sampleName else {
                Issue.record("\(block.location): a ```swift block without <!-- sample: NAME --> cannot be compiled")
                continue
            }
            guard let region = samples[name] else {
                Issue.record("\(block.location): no region `// sample: \(name)` in Tests/NetworkModuleSamplesTests")
                continue
            }
            #expect(block.code == region, "\(block.location): sample \(name) differs from its compiled region")
        }
        let used = Set(blocks.compactMap(\.sampleName))
        for name in samples.keys.sorted() where !used.contains(name) {
            Issue.record("region `// sample: \(name)` is not shown in any document")
        }
    }
}

enum SampleCatalog {
    struct Block {
        let location: String
        let sampleName: String?
        let code: [String]
    }

    /// The ```swift blocks of README.md, docs/**/*.md and the DocC catalogs' articles
    /// (Sources/*/*.docc/**/*.md), with the sample name marked before each.
    static func markdownBlocks(in root: URL) throws -> [Block] {
        var files = [root.appendingPathComponent("README.md")]
        var folders = [root.appendingPathComponent("docs")]
        let sources = root.appendingPathComponent("Sources")
        for target in try FileManager.default.contentsOfDirectory(at: sources, includingPropertiesForKeys: nil) {
            let catalogs = (try? FileManager.default.contentsOfDirectory(at: target, includingPropertiesForKeys: nil)) ?? []
            folders += catalogs.filter { $0.pathExtension == "docc" }
        }
        for folder in folders {
            guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in enumerator where url.pathExtension == "md" { files.append(url) }
        }
        var blocks: [Block] = []
        for file in files.sorted(by: { $0.path < $1.path }) {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            var index = 0
            var pendingName: String?
            while index < lines.count {
                let line = lines[index].trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("<!-- sample:") && line.hasSuffix("-->") {
                    pendingName = line.dropFirst("<!-- sample:".count).dropLast(3).trimmingCharacters(in: .whitespaces)
                } else if line == "```swift" {
                    let start = index + 1
                    var end = start
                    while end < lines.count && lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
                    let relative = file.path.replacingOccurrences(of: root.path + "/", with: "")
                    blocks.append(
                        Block(location: "\(relative):\(index + 1)", sampleName: pendingName, code: dedent(Array(lines[start..<end]))))
                    pendingName = nil
                    index = end
                } else if !line.isEmpty {
                    pendingName = nil
                }
                index += 1
            }
        }
        return blocks
    }

    /// The regions `// sample: NAME` … `// end-sample` of the Swift files in `folder`.
    static func regions(in folder: URL) throws -> [String: [String]] {
        var regions: [String: [String]] = [:]
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        for file in files where file.pathExtension == "swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            var current: (name: String, lines: [String])?
            for line in lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("// sample:") {
                    current = (trimmed.dropFirst("// sample:".count).trimmingCharacters(in: .whitespaces), [])
                } else if trimmed == "// end-sample", let finished = current {
                    regions[finished.name] = dedent(finished.lines)
                    current = nil
                } else if current != nil {
                    current?.lines.append(line)
                }
            }
        }
        return regions
    }

    /// Removes the indentation common to all non-empty lines, and trailing blank lines.
    static func dedent(_ lines: [String]) -> [String] {
        let indents = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix(while: { $0 == " " }).count }
        let common = indents.min() ?? 0
        var result = lines.map { $0.trimmingCharacters(in: .whitespaces).isEmpty ? "" : String($0.dropFirst(common)) }
        while result.last == "" { result.removeLast() }
        return result
    }
}
