import Foundation
import Testing

/// Keeps the release's version in step: `VERSION` holds the current release, and `CHANGELOG.md`
/// opens with `## [Unreleased]` followed by a dated section for that release, newer releases
/// above older ones. (That getting-started installs the same version is checked by
/// scripts/check-install.sh, which resolves the package as the guide says.)
@Suite("Release")
struct ReleaseTests {
    private static let root = DocumentationSamplesTests.repositoryRoot

    /// A `## [...]` heading of a Keep a Changelog file: the version (or `Unreleased`) and the date.
    struct Heading: Equatable {
        var version: String
        var date: String?
    }

    /// The `## [...]` headings of `changelog`, in order.
    static func headings(in changelog: String) -> [Heading] {
        changelog.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            guard line.hasPrefix("## ["), let close = line.firstIndex(of: "]") else { return nil }
            let version = String(line[line.index(line.startIndex, offsetBy: 4)..<close])
            let rest = line[line.index(after: close)...]
            let date = rest.hasPrefix(" - ") ? String(rest.dropFirst(3)) : nil
            return Heading(version: version, date: date)
        }
    }

    /// What is wrong with `changelog` for the release `version`, or nothing.
    static func problems(changelog: String, version: String) -> [String] {
        let headings = headings(in: changelog)
        var problems: [String] = []
        if headings.first != Heading(version: "Unreleased", date: nil) {
            problems.append("the first section is not `## [Unreleased]` but \(String(describing: headings.first))")
        }
        let releases = headings.filter { $0.version != "Unreleased" }
        if releases.first?.version != version {
            problems.append(
                "the newest release is \(releases.first?.version ?? "missing"), VERSION holds \(version)")
        }
        for release in releases {
            if Self.semver(release.version) == nil {
                problems.append("`\(release.version)` is not MAJOR.MINOR.PATCH")
            } else if !(release.date.map(Self.isDate) ?? false) {
                problems.append("\(release.version) has no date as YYYY-MM-DD: \(release.date ?? "none")")
            }
        }
        let versions = releases.compactMap { Self.semver($0.version) }
        if zip(versions, versions.dropFirst()).contains(where: { !$1.lexicographicallyPrecedes($0) }) {
            problems.append("the releases are not newest first: \(releases.map(\.version))")
        }
        return problems
    }

    /// Whether `text` is a date as `YYYY-MM-DD`.
    static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [4, 2, 2] && parts.allSatisfy { $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// `MAJOR.MINOR.PATCH` as three numbers, or `nil`.
    static func semver(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, parts.allSatisfy({ ($0 ?? -1) >= 0 }) else { return nil }
        return parts.compactMap { $0 }
    }

    @Test("VERSION is the newest release of CHANGELOG.md, dated, below an Unreleased section")
    func versionMatchesChangelog() throws {
        let version = try String(contentsOf: Self.root.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)

        let problems = Self.problems(changelog: changelog, version: version)

        #expect(Self.semver(version) != nil, "VERSION holds \(version)")
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("when VERSION and the change log disagree, should say how")
    func disagreementsAreFound() {
        let good = "# Changelog\n\n## [Unreleased]\n\n## [1.1.0] - 2027-01-02\n\n## [1.0.0] - 2026-11-26\n"

        #expect(Self.problems(changelog: good, version: "1.1.0").isEmpty)
        #expect(Self.problems(changelog: good, version: "1.2.0") == ["the newest release is 1.1.0, VERSION holds 1.2.0"])
        #expect(Self.problems(changelog: "## [1.0.0] - 2026-11-26\n", version: "1.0.0").count == 1)
        #expect(
            Self.problems(changelog: "## [Unreleased]\n## [1.0.0]\n", version: "1.0.0")
                == ["1.0.0 has no date as YYYY-MM-DD: none"])
        #expect(Self.isDate("2026-11-26") && !Self.isDate("2026-1-26") && !Self.isDate("26-11-2026"))
        #expect(
            Self.problems(changelog: "## [Unreleased]\n## [1.0.0] - 2026-11-26\n## [1.1.0] - 2027-01-02\n", version: "1.0.0")
                == ["the releases are not newest first: [\"1.0.0\", \"1.1.0\"]"])
    }
}
