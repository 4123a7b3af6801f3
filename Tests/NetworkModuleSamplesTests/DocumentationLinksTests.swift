import Foundation
import Testing

/// Keeps the documentation's links honest: every relative link in README.md, CONTRIBUTING.md,
/// SECURITY.md, CHANGELOG.md and docs/*.md must lead to a file of the repository and, when it
/// names a section (`guide.md#section`, `#section`), to a heading of that file, named as GitHub
/// names its anchors. A guide that renames or folds a section fails here until every link to it
/// is mended.
@Suite("Documentation links")
struct DocumentationLinksTests {
    private static let root = DocumentationSamplesTests.repositoryRoot

    /// The Markdown files whose links are checked, relative to the repository's root.
    private static func documents() throws -> [String] {
        let guides = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }
            .map { "docs/\($0)" }
        let topLevel = ["README.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md"].filter {
            FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path)
        }
        return (topLevel + guides).sorted()
    }

    @Test("every relative link in the Markdown documents leads to a file and, if it names one, a heading")
    func linksResolve() throws {
        let documents = try Self.documents()
        #expect(documents.count > 10, "found only \(documents)")
        var checked = 0
        for document in documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for link in MarkdownLinks.targets(in: text) {
                guard !link.contains("://"), !link.hasPrefix("mailto:") else { continue }
                checked += 1
                let (path, anchor) = MarkdownLinks.split(link)
                let resolved = MarkdownLinks.resolved(path, in: document)
                let url = Self.root.appendingPathComponent(resolved)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    Issue.record("\(document): the link \(link) leads to \(resolved), which does not exist")
                    continue
                }
                guard let anchor, resolved.hasSuffix(".md") else { continue }
                let headings = MarkdownLinks.anchors(in: try String(contentsOf: url, encoding: .utf8))
                if !headings.contains(anchor) {
                    Issue.record("\(document): the link \(link) names no heading of \(resolved)")
                }
            }
        }
        #expect(checked > 100, "checked only \(checked) links")
    }

    @Test("when a heading has code, punctuation or a repeated title, should name its anchor as GitHub does")
    func anchorsAsGitHubNamesThem() {
        let anchors = MarkdownLinks.anchors(
            in: """
                # Title
                ## `URLSessionTransport` or `URLSession`
                ## 1. Add the package
                ### Errors in tests
                ## Errors in tests
                ```bash
                # not a heading
                ```
                """)

        #expect(
            anchors == [
                "title", "urlsessiontransport-or-urlsession", "1-add-the-package", "errors-in-tests", "errors-in-tests-1",
            ])
    }
}

/// Reads links and headings out of Markdown, as far as the repository's documents need.
enum MarkdownLinks {
    /// The target of every inline link `[text](target)` outside code blocks and code spans.
    static func targets(in text: String) -> [String] {
        var targets: [String] = []
        for line in proseLines(of: text) {
            var rest = Substring(line.replacingOccurrences(of: #"`[^`]*`"#, with: "", options: .regularExpression))
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                let target = after[..<close].split(separator: " ").first.map(String.init) ?? ""
                if !target.isEmpty { targets.append(target) }
                rest = after[after.index(after: close)...]
            }
        }
        return targets
    }

    /// `path#anchor` as its path and its anchor (`nil` without one).
    static func split(_ link: String) -> (path: String, anchor: String?) {
        guard let hash = link.firstIndex(of: "#") else { return (link, nil) }
        return (String(link[..<hash]), String(link[link.index(after: hash)...]))
    }

    /// The repository-relative path of `path`, a link in `document` (itself relative to the
    /// root); `document` itself for a link to one of its own sections.
    static func resolved(_ path: String, in document: String) -> String {
        guard !path.isEmpty else { return document }
        var parts = document.split(separator: "/").dropLast().map(String.init)
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }

    /// The anchors GitHub gives the headings of `text`, in order: lowercased, without
    /// punctuation (`-` and `_` stay), spaces as `-`, and `-1`, `-2`… after repeated ones.
    static func anchors(in text: String) -> [String] {
        var seen: [String: Int] = [:]
        var anchors: [String] = []
        for line in proseLines(of: text) where line.hasPrefix("#") {
            let title = line.drop(while: { $0 == "#" })
            guard title.first == " " else { continue }
            let slug = String(
                title.trimmingCharacters(in: .whitespaces).lowercased().unicodeScalars.compactMap { scalar in
                    if scalar == " " { return "-" }
                    if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) {
                        return Character(scalar)
                    }
                    return nil
                })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.append(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The lines of `text` outside fenced code blocks.
    private static func proseLines(of text: String) -> [String] {
        var inCode = false
        var lines: [String] = []
        for line in text.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inCode.toggle()
                continue
            }
            if !inCode { lines.append(line) }
        }
        return lines
    }
}
