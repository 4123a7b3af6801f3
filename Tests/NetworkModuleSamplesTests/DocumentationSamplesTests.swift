import Foundation
import Testing

/// Keeps the documentation honest: every ```swift block in README.md, docs/*.md and the DocC
/// articles (Sources/*/*.docc) must be marked `<!-- sample: NAME -->` and must equal, line for
/// line, the region `// sample: NAME` … `// end-sample` in this target's sources, which the
/// compiler checks and the tests run. A sample that drifts from the code fails here. The
/// examples in the libraries' `///` comments must equal their regions in
/// `DocCommentSamples.swift` in the same way (named by ``SampleCatalog/docCommentPrefix``).
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
        for name in samples.keys.sorted() where !used.contains(name) && !name.hasPrefix(SampleCatalog.docCommentPrefix) {
            Issue.record("region `// sample: \(name)` is not shown in any document")
        }
    }

    @Test("every Swift block in a /// comment of the libraries is a compiled sample, word for word")
    func docCommentsMatchCompiledSamples() throws {
        let samples = try SampleCatalog.regions(in: Self.repositoryRoot.appendingPathComponent("Tests/NetworkModuleSamplesTests"))
        let blocks = try SampleCatalog.docCommentBlocks(in: Self.repositoryRoot.appendingPathComponent("Sources"))
        #expect(blocks.count > 50, "found only \(blocks.count) examples in the libraries' doc comments")

        for block in blocks {
            guard let name = block.sampleName, let region = samples[name] else {
                Issue.record("\(block.location): no region `// sample: \(block.sampleName ?? "")` in Tests/NetworkModuleSamplesTests")
                continue
            }
            #expect(block.code == region, "\(block.location): sample \(name) differs from its compiled region")
        }
        let used = Set(blocks.compactMap(\.sampleName))
        for name in samples.keys.sorted() where name.hasPrefix(SampleCatalog.docCommentPrefix) && !used.contains(name) {
            Issue.record("region `// sample: \(name)` is not shown in any doc comment")
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

    /// How the region of a doc comment's example is named: this prefix, the source file's path
    /// under Sources, `#` and the example's number in that file (from 1), e.g.
    /// `doc: NetworkModuleCore/Actions/DelayAction.swift#1`.
    static let docCommentPrefix = "doc: "

    /// The ```swift blocks of the `///` comments of the Swift files under `sources` (the
    /// libraries' symbol documentation), each named by ``docCommentPrefix``'s rule.
    static func docCommentBlocks(in sources: URL) throws -> [Block] {
        guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" { files.append(url) }
        var blocks: [Block] = []
        for file in files.sorted(by: { $0.path < $1.path }) {
            let relative = file.path.replacingOccurrences(of: sources.path + "/", with: "")
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            /// The text of a `///` line after `///` and one space; `nil` for any other line.
            func comment(_ line: String) -> String? {
                let trimmed = line.drop(while: { $0 == " " })
                guard trimmed.hasPrefix("///") else { return nil }
                let text = trimmed.dropFirst(3)
                return String(text.first == " " ? text.dropFirst() : text)
            }
            var index = 0
            var number = 0
            while index < lines.count {
                // A fence opens a block; one without a language is Swift, as DocC reads it.
                if let fence = comment(lines[index])?.trimmingCharacters(in: .whitespaces), fence.hasPrefix("```") {
                    var code: [String] = []
                    var end = index + 1
                    while end < lines.count, let text = comment(lines[end]), text.trimmingCharacters(in: .whitespaces) != "```" {
                        code.append(text)
                        end += 1
                    }
                    if fence == "```swift" || fence == "```" {
                        number += 1
                        blocks.append(
                            Block(
                                location: "Sources/\(relative):\(index + 1)",
                                sampleName: "\(docCommentPrefix)\(relative)#\(number)", code: dedent(code)))
                    }
                    index = end
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
