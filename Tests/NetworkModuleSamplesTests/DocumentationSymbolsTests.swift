import Foundation
import Testing

/// Keeps the guides' names honest: every type that README.md, SECURITY.md or a guide in docs/
/// names in code font (`NetworkError`, `URLSessionTransport.maximumResponseSize`,
/// `.underlying(UnderlyingError)`) must be one the package declares in its public API, as the
/// committed baseline (api/*.json, scripts/api-baseline.sh) records it, and a member named after
/// one of the package's types (`Type.member`) must be a member of that type. A rename or a removal
/// fails here until every guide says the new name. (CHANGELOG.md is history: it names what was.)
///
/// Also accepted, because a guide names them on purpose:
/// - the types the public API itself uses (Foundation's and the standard library's, read from the
///   baseline's signatures and conformances), and the package's modules and targets;
/// - the types the documentation samples declare (Tests/NetworkModuleSamplesTests: a caller's own
///   `GetUser`, say) and the test suites the guides point to (types named `…Tests`);
/// - internal types, in the guides written for maintainers (docs/performance.md,
///   docs/test-suite.md), as long as Sources/ or Tests/ declares them;
/// - the names in ``DocumentationSymbols/foreignNames`` (anywhere) and
///   ``DocumentationSymbols/ancestorNames`` (docs/migration.md only), each with its reason.
///
/// What counts as a name: a code span that reads as Swift (an identifier path, optionally with
/// generic arguments or a parenthesized list), and in it each identifier that starts with a
/// capital and has a small letter (`GET` does not); a span of one capitalized word with one
/// capital (`Action`, `Age`) is left alone, as guides name folders and header fields that way.
/// Text in string literals, and file names (`Package.swift`), are not names.
@Suite("Documentation symbols")
struct DocumentationSymbolsTests {
    private static let root = DocumentationSamplesTests.repositoryRoot

    @Test("every type a guide names in code font is in the public API, or said why not")
    func guidesNamePublicSymbols() throws {
        let api = try DocumentationSymbols.PublicAPI(
            baselines: ["NetworkModuleCore", "NetworkModuleTesting"].map {
                Self.root.appendingPathComponent("api/\($0).json")
            })
        #expect(api.types.count > 50, "read only \(api.types.count) public types from api/*.json")
        let samples = try DocumentationSymbols.declaredTypes(
            under: Self.root.appendingPathComponent("Tests/NetworkModuleSamplesTests"))
        let declared = try DocumentationSymbols.declaredTypes(under: Self.root.appendingPathComponent("Sources"))
            .union(DocumentationSymbols.declaredTypes(under: Self.root.appendingPathComponent("Tests")))
        let targets = try DocumentationSymbols.targetNames(
            in: String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8))

        var checked = 0
        for document in try DocumentationSymbols.documents(in: Self.root) {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for span in DocumentationSymbols.codeSpans(in: text) {
                for name in DocumentationSymbols.names(in: span) {
                    checked += 1
                    if let type = api.types[name.type] {
                        if let member = name.member, !type.isExternal, !type.members.contains(member) {
                            Issue.record("\(document): `\(span)` names \(name.type).\(member), not in the public API")
                        }
                        continue
                    }
                    let isMaintainersGuide = DocumentationSymbols.maintainersGuides.contains(document)
                    let accepted =
                        api.usedTypes.contains(name.type) || targets.contains(name.type)
                        || samples.contains(name.type) || (name.type.hasSuffix("Tests") && declared.contains(name.type))
                        || (isMaintainersGuide && declared.contains(name.type))
                        || DocumentationSymbols.foreignNames[name.type] != nil
                        || (document == "docs/migration.md" && DocumentationSymbols.ancestorNames[name.type] != nil)
                    if !accepted {
                        Issue.record(
                            "\(document): `\(span)` names \(name.type), which is not in the public API (api/*.json)")
                    }
                }
            }
        }
        #expect(checked > 300, "checked only \(checked) names")
    }

    @Test("when a span names types, should find each, with the member after a type, and skip words and strings")
    func namesInASpan() {
        func names(_ span: String) -> [String] {
            DocumentationSymbols.names(in: span).map { [$0.type, $0.member].compactMap { $0 }.joined(separator: ".") }
        }
        #expect(names(".underlying(UnderlyingError)") == ["UnderlyingError"])
        #expect(names("DispatchQueueExecutor") == ["DispatchQueueExecutor"])
        #expect(names("URLSessionTransport.maximumResponseSize") == ["URLSessionTransport.maximumResponseSize"])
        #expect(names("Result<NetworkResponse, NetworkError>") == ["Result", "NetworkResponse", "NetworkError"])
        #expect(names(#".header("X-Mode", "test")"#) == [])
        #expect(names(##".jsonBody(#"{"name": "Ada"}"#)"##) == [], "a raw string literal")
        #expect(names("Package.swift") == [])
        #expect(names("Action") == [], "one capitalized word: a folder or a header field")
        #expect(names("Age: 61") == [], "not Swift")
        #expect(names("GET") == [])
    }
}

/// Reads the names the guides use and the names the public API declares.
enum DocumentationSymbols {
    /// Names a guide may use that the package does not declare, each with why it is named.
    static let foreignNames: [String: String] = [
        "AnyObject": "Swift: class-bound protocols, in the migration guide and the actions guide",
        "CancellationError": "Swift concurrency: what a cancelled Task throws, as errors.md compares",
        "Comment": "Swift Testing: Issue.record(Comment(rawValue:)) in the testing guide",
        "DateFormatter": "Foundation: SECURITY.md says HTTP dates are not parsed with it",
        "DebugMenu": "a caller's own type in the cookbook's offline-switch example",
        "DecodingError": "Swift: what DecodingFailure carries the context of",
        "ETag": "an HTTP header field, which reads as a capitalized word with two capitals",
        "FoundationNetworking": "swift-corelibs-foundation's module that holds URLSession on Linux",
        "JSONSerialization": "Foundation: the JSON reader whose forms (a byte-order mark, UTF-16) masking follows",
        "Insecure": "CryptoKit's Insecure.MD5, which the sessions guide says is not used",
        "Issue": "Swift Testing: Issue.record, in the testing guide",
        "MainActor": "Swift concurrency: MainActor.assumeIsolated, in the executors guide",
        "NSError": "Foundation: how an error's domain and code are read",
        "NSURLErrorDomain": "Foundation: the domain of URLError",
        "NWPathMonitor": "Network.framework: what NetworkConnectivity watches on Apple platforms",
        "OperationQueue": "Foundation: URLSession's delegate queue, whose machinery the transport skips on Linux",
        "SecTrust": "Security.framework: the server trust SECURITY.md says only Apple platforms evaluate",
        "RunLoop": "Foundation: RunLoop.main.run(), in the executors guide",
        "SubjectPublicKeyInfo": "X.509's name for a certificate's public key, which public-key pins hash",
        "Thread": "Foundation: Thread.isMainThread, in the executors guide",
        "URLCache": "Foundation: the cache the framework's CachedSession is compared with",
        "URLSessionCertificateAuthorityInfoFile": "swift-corelibs-foundation's CA bundle setting on Linux",
        "URLSessionDataTask": "Foundation: what the ancestor returned, and the framework does not",
        "URLSessionTask": "Foundation: what the ancestor returned, and the framework does not",
        "VmHWM": "Linux /proc/self/status: the peak memory SECURITY.md measures",
        "XCTFail": "XCTest: failing a test from a fake's callback, in the testing guide",
        "AnyPublisher": "Combine: what the publishers are erased to",
        "URLSessionTaskMetrics": "Foundation: the platform's timings RequestPhases are read from",
        "SpanData": "OpenTelemetry Swift: a finished span, in the tracing guide's bridge",
        "SpanExporter": "OpenTelemetry Swift: what exports SpanData, in the tracing guide's bridge",
        "SpanContext": "OpenTelemetry Swift: a span's identifiers, in the tracing guide's bridge",
        "TraceId": "OpenTelemetry Swift: a trace identifier, in the tracing guide's bridge",
        "SpanId": "OpenTelemetry Swift: a span identifier, in the tracing guide's bridge",
        "InstrumentationSystem": "swift-distributed-tracing: the bootstrapped tracer, in the tracing guide",
        "ServiceContext": "swift-distributed-tracing: the context a span starts under, in the tracing guide",
        "SpanStatus": "swift-distributed-tracing: a span's status, in the tracing guide",
        "DefaultTracerClock": "swift-distributed-tracing: its timestamps, in the tracing guide",
        "Injector": "swift-distributed-tracing: writes a context into a carrier, in the tracing guide",
        "Extractor": "swift-distributed-tracing: reads a context from a carrier, in the tracing guide",
        "Publishers": "Combine: the ancestor's publisher types lived in its namespace",
    ]

    /// The names of the ancestor module and of Alamofire, which only docs/migration.md names, on
    /// purpose: the left column of its tables, what a caller's code says today.
    static let ancestorNames: [String: String] = [
        "AddAuthenticationTokenNetworkModuleAction": "ancestor: its token action",
        "AsynchronousExecutorType": "ancestor: its executor protocol",
        "AsynchronousOperationsExecutor": "ancestor: its executor",
        "AuthenticationTokenProvider": "ancestor: its token provider protocol",
        "BackgroundQueueOperationsExecutor": "ancestor: its background executor",
        "MainQueueOperationsExecutor": "ancestor: its main-queue executor",
        "ConcurrentNgNetworkModule": "ancestor: its async module",
        "NgNetworkModuleCore": "ancestor: its module",
        "ReactiveNgNetworkModule": "ancestor: its Combine module",
        "NetworkErrorConvertible": "ancestor: its error conversion protocol",
        "AFError": "Alamofire: its error, for callers coming from it",
        "AuthenticationInterceptor": "Alamofire: its token interceptor",
        "DownloadRequest": "Alamofire: its download request",
        "EventMonitor": "Alamofire: its logging hook",
        "Redirector": "Alamofire: its redirect handler",
        "Session": "Alamofire: its session",
    ]

    /// The guides written for maintainers, which name internal types on purpose.
    static let maintainersGuides: Set<String> = ["docs/performance.md", "docs/test-suite.md"]

    /// One name in a span: a type, and the member named after it, if any.
    struct Name: Equatable {
        let type: String
        let member: String?
    }

    /// The public types of the baselines, with their members, and the other types they use.
    struct PublicAPI {
        struct PublicType {
            /// Whether the type is another module's, which the package extends.
            var isExternal = false
            var members: Set<String> = []
        }

        var types: [String: PublicType] = [:]
        /// The types named by the public declarations' signatures and conformances.
        var usedTypes: Set<String> = []

        init(baselines: [URL]) throws {
            for baseline in baselines {
                let object = try JSONSerialization.jsonObject(with: Data(contentsOf: baseline))
                guard let root = (object as? [String: Any])?["ABIRoot"] as? [String: Any] else {
                    Issue.record("\(baseline.lastPathComponent): no ABIRoot")
                    continue
                }
                visit(root, in: nil)
            }
        }

        private mutating func visit(_ node: [String: Any], in parent: String?) {
            if let kind = node["kind"] as? String, kind.hasPrefix("Type"), let printed = node["printedName"] as? String {
                usedTypes.formUnion(Self.qualifiedTypes(in: printed))
            }
            for conformance in node["conformances"] as? [[String: Any]] ?? [] {
                if let name = conformance["name"] as? String { usedTypes.insert(name) }
            }
            for child in node["children"] as? [[String: Any]] ?? [] {
                let declarationKind = child["declKind"] as? String
                let name = child["name"] as? String
                if let name, let declarationKind, declarationKind != "Import", let parent {
                    types[parent, default: PublicType()].members.insert(name)
                }
                if let name, child["kind"] as? String == "TypeDecl" {
                    types[name, default: PublicType()].isExternal = child["isExternal"] as? Bool ?? false
                    visit(child, in: name)
                } else {
                    visit(child, in: parent)
                }
            }
        }

        /// `Name` for each `Module.Name` in a printed type (`Foundation.URLRequest`,
        /// `Swift.Result<Foundation.Data, NetworkModuleCore.NetworkError>`).
        private static func qualifiedTypes(in printed: String) -> Set<String> {
            var names: Set<String> = []
            for word in printed.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }) {
                let parts = word.split(separator: ".")
                for part in parts.dropFirst() where part.first?.isUppercase == true { names.insert(String(part)) }
            }
            return names
        }
    }

    /// The documents whose names are checked, relative to the repository's root.
    static func documents(in root: URL) throws -> [String] {
        let guides = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }
            .map { "docs/\($0)" }
        return (["README.md", "SECURITY.md"] + guides).sorted()
    }

    /// The code spans of `text`'s prose (fenced blocks are compiled samples, checked by
    /// DocumentationSamplesTests).
    static func codeSpans(in text: String) -> [String] {
        var inCode = false
        var spans: [String] = []
        for line in text.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inCode.toggle()
                continue
            }
            guard !inCode else { continue }
            let parts = line.components(separatedBy: "`")
            // Odd pieces are inside backticks; a piece left open at the end of the line is not a span.
            for index in stride(from: 1, to: parts.count - 1, by: 2) where !parts[index].isEmpty {
                spans.append(parts[index])
            }
        }
        return spans
    }

    /// The names `span` uses, if it reads as Swift: see ``DocumentationSymbolsTests``.
    static func names(in span: String) -> [Name] {
        let identifier = #"[A-Za-z_][A-Za-z0-9_]*"#
        let swift = #"^\.?"# + identifier + #"(\."# + identifier + #")*(<.*>)?(\(.*\))?[?!]?(\."# + identifier + #")*$"#
        guard span.range(of: swift, options: .regularExpression) != nil,
            !span.hasSuffix(".swift"), !span.hasSuffix(".md")
        else { return [] }
        // String literals hold header names and values, not Swift names.
        let code = span.replacingOccurrences(of: ##"#".*?"#"##, with: "\"\"", options: .regularExpression)
            .replacingOccurrences(of: #""[^"]*""#, with: "\"\"", options: .regularExpression)
        var names: [Name] = []
        var rest = Substring(code)
        let pattern = #"(?<![A-Za-z0-9_.])[A-Z][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*"#
        while let range = rest.range(of: pattern, options: .regularExpression) {
            let path = rest[range].split(separator: ".").map(String.init)
            rest = rest[range.upperBound...]
            guard let type = path.first, type.contains(where: \.isLowercase) else { continue }
            if span == type && type.filter(\.isUppercase).count == 1 { continue }
            names.append(Name(type: type, member: path.dropFirst().first))
        }
        return names
    }

    /// The types declared by the Swift files under `folder`.
    static func declaredTypes(under folder: URL) throws -> Set<String> {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return []
        }
        var names: Set<String> = []
        let declaration = #"\b(struct|class|enum|protocol|actor|typealias)\s+[A-Z][A-Za-z0-9_]*"#
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            var rest = Substring(try String(contentsOf: url, encoding: .utf8))
            while let range = rest.range(of: declaration, options: .regularExpression) {
                if let name = rest[range].split(whereSeparator: \.isWhitespace).last { names.insert(String(name)) }
                rest = rest[range.upperBound...]
            }
        }
        return names
    }

    /// The names of Package.swift's products and targets: modules a guide names.
    static func targetNames(in manifest: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(manifest)
        while let range = rest.range(of: #"name: "[A-Za-z0-9_-]+""#, options: .regularExpression) {
            names.insert(String(rest[range].dropFirst(#"name: ""#.count).dropLast()))
            rest = rest[range.upperBound...]
        }
        return names
    }
}
