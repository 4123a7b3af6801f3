import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Property tests of the request builder: random Unicode paths, query items, headers, bodies,
/// timeouts (any `Double`: NaN, infinities, negative, zero, huge) and acceptable status codes
/// (any `Int` values and ranges, empty or huge). Each case either builds a request whose URL
/// decodes back to exactly what was given, or fails with the specific error the input
/// deserves. Never a crash.
///
/// 100,000 cases by default (`NETWORK_MODULE_PROPERTY_CASES` changes it); the seed is printed
/// in every failure and `NETWORK_MODULE_PROPERTY_SEED` replays it.
@Suite("Request builder properties")
struct RequestBuilderPropertyTests {
    enum GeneratedBody: Sendable {
        case data(Data)
        case json([String])
    }

    struct GeneratedRequest: NetworkRequest {
        var path: String
        var method: HTTPMethod
        var queryItems: [URLQueryItem]
        var headers: HTTPHeaders
        var generatedBody: GeneratedBody?
        var timeout: TimeInterval?
        var statusCodes: GeneratedStatusCodes

        var body: RequestBody? {
            switch generatedBody {
            case .data(let data)?: .data(data, contentType: "application/octet-stream")
            case .json(let strings)?: .json(strings)
            case nil: nil
            }
        }

        var acceptableStatusCodes: AcceptableStatusCodes { statusCodes.built }
    }

    /// Acceptable status codes as the generator wrote them: single codes and ranges of any
    /// `Int` values, and the set made of them.
    struct GeneratedStatusCodes: Sendable {
        var codes: [Int]
        var ranges: [Range<Int>]

        /// The set, through the public initializers (variadic: up to four values, by count).
        var built: AcceptableStatusCodes {
            if ranges.isEmpty {
                switch codes.count {
                case 0: return []
                case 1: return [codes[0]]
                case 2: return [codes[0], codes[1]]
                case 3: return [codes[0], codes[1], codes[2]]
                default: return [codes[0], codes[1], codes[2], codes[3]]
                }
            }
            switch ranges.count {
            case 1: return AcceptableStatusCodes(ranges[0])
            case 2: return AcceptableStatusCodes(ranges[0], ranges[1])
            case 3: return AcceptableStatusCodes(ranges[0], ranges[1], ranges[2])
            default: return AcceptableStatusCodes(ranges[0], ranges[1], ranges[2], ranges[3])
            }
        }

        /// What the set must answer: a plain model of the same codes.
        func modelContains(_ code: Int) -> Bool {
            ranges.isEmpty ? codes.contains(code) : ranges.contains { $0.contains(code) }
        }

        /// Codes worth asking about: the edges of every code and range, and their neighbours.
        var probes: [Int] {
            let edges = codes + ranges.flatMap { [$0.lowerBound, $0.upperBound] } + [Int.min, Int.max, 0, 200]
            return edges.flatMap { [$0 == Int.min ? $0 : $0 - 1, $0, $0 == Int.max ? $0 : $0 + 1] }
        }
    }

    enum Expectation {
        case built
        case invalidTimeout(TimeInterval)
        case invalidHeaderName(String)
        case invalidHeaderValue(String)
    }

    static let baseURL = URL(string: "https://api.example.com/v2")!

    @Test("when given random paths, queries, headers and bodies, should build exactly or fail with the right error")
    func randomRequests() async throws {
        let seed = SeededGenerator.runSeed()
        var random = SeededGenerator(seed: seed)
        let builder = DefaultRequestBuilder(baseURL: Self.baseURL)
        let count = SeededGenerator.caseCount(default: 100_000)
        var built = 0
        var rejected = 0

        for index in 0..<count {
            // A long loop on one of the two cooperative threads would stall the other tests
            // (and make the integration tests' timeouts look late): let them in now and then.
            if index % 256 == 0 { await Task.yield() }
            let (request, expectation) = Self.generate(using: &random)
            let context = "case \(index) of seed \(seed) (replay: NETWORK_MODULE_PROPERTY_SEED=\(seed))"
            Self.verify(request.statusCodes, context: context)
            let result: Result<URLRequest, NetworkError>
            do throws(NetworkError) {
                result = .success(try builder.build(request: request))
            } catch {
                result = .failure(error)
            }
            switch (expectation, result) {
            case (.built, .success(let urlRequest)):
                try Self.verify(urlRequest, matches: request, context: context)
                built += 1
            case (.invalidHeaderName(let name), .failure(.invalidRequest(.invalidHeaderName(let actual))))
            where name == actual,
                (.invalidHeaderValue(let name), .failure(.invalidRequest(.invalidHeaderValue(let actual))))
            where name == actual:
                rejected += 1
            case (.invalidTimeout(let timeout), .failure(.invalidRequest(.invalidTimeout(let actual))))
            where timeout.bitPattern == actual.bitPattern:
                rejected += 1
            default:
                Issue.record("\(context): got \(result), expected \(expectation) for \(request)")
                return
            }
        }
        #expect(built + rejected == count)
        #expect(built > count / 4, "the generator should mostly produce valid requests (seed \(seed))")
        #expect(rejected > count / 20, "the generator should often produce invalid headers (seed \(seed))")
    }

    static func generate(using random: inout SeededGenerator) -> (GeneratedRequest, Expectation) {
        let segments = (0..<Int.random(in: 0...4, using: &random)).map { _ in
            random.string(from: Alphabet.pathSegment, maxLength: 12, minLength: 1)
        }
        let path = "/" + segments.joined(separator: "/")
        let queryItems = (0..<Int.random(in: 0...5, using: &random)).map { _ in
            URLQueryItem(
                name: random.string(from: Alphabet.anything, maxLength: 10, minLength: 1),
                value: Int.random(in: 0..<8, using: &random) == 0
                    ? nil : random.string(from: Alphabet.anything, maxLength: 16))
        }
        var headers = HTTPHeaders()
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            let validName = Int.random(in: 0..<6, using: &random) > 0
            let name =
                validName
                ? random.string(from: Alphabet.letters + Array("-_"), maxLength: 12, minLength: 1)
                : random.string(from: Alphabet.headerName, maxLength: 12)
            let validValue = Int.random(in: 0..<6, using: &random) > 0
            var value =
                validValue
                ? random.string(from: Alphabet.letters + Array(" -_/;=,") + Alphabet.nonASCII, maxLength: 20)
                : random.string(from: Alphabet.headerValue, maxLength: 20)
            // Leading and trailing white space is not part of a field value (RFC 9110, 5.5).
            value = value.trimmingCharacters(in: .whitespaces)
            headers[name] = value
        }
        let body: GeneratedBody?
        switch Int.random(in: 0..<3, using: &random) {
        case 0: body = nil
        case 1:
            let count = Int.random(in: 0...64, using: &random)
            body = .data(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }))
        default: body = .json([random.string(from: Alphabet.anything, maxLength: 20)])
        }
        let request = GeneratedRequest(
            path: path, method: [.get, .post, .put, "PURGE"].randomElement(using: &random) ?? .get,
            queryItems: queryItems, headers: headers, generatedBody: body,
            timeout: generateTimeout(using: &random), statusCodes: generateStatusCodes(using: &random))
        // The builder checks the timeout before the headers.
        if let timeout = request.timeout, !(timeout.isFinite && timeout > 0) {
            return (request, .invalidTimeout(timeout))
        }
        return (request, expectation(for: headers))
    }

    /// No timeout (the builder's default), or any `Double`: mostly the edges, sometimes any bit pattern.
    static func generateTimeout(using random: inout SeededGenerator) -> TimeInterval? {
        let edges: [TimeInterval] = [
            .nan, -.nan, .signalingNaN, .infinity, -.infinity, 0, -0.0, -1, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, .leastNormalMagnitude, 0.001, 30, 1e300, .greatestFiniteMagnitude,
        ]
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return nil
        case 1: return Double(bitPattern: random.next())
        case 2: return Double.random(in: -1e6...1e6, using: &random)
        default: return edges.randomElement(using: &random)
        }
    }

    /// Single codes or ranges of any `Int` values: empty, negative, huge, `Int.min` and `Int.max`.
    static func generateStatusCodes(using random: inout SeededGenerator) -> GeneratedStatusCodes {
        func code() -> Int {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: [Int.min, Int.min + 1, -1, 0, 1, Int.max - 1, Int.max].randomElement(using: &random) ?? 0
            case 1: Int.random(in: Int.min...Int.max, using: &random)
            default: Int.random(in: 100...599, using: &random)
            }
        }
        let count = Int.random(in: 0...4, using: &random)
        if count == 0 || Bool.random(using: &random) {
            return GeneratedStatusCodes(codes: (0..<count).map { _ in code() }, ranges: [])
        }
        let ranges = (0..<count).map { _ in
            let (first, second) = (code(), code())
            return min(first, second)..<max(first, second)
        }
        return GeneratedStatusCodes(codes: [], ranges: ranges)
    }

    /// The set built from generated codes answers exactly as the plain model does, with no trap.
    static func verify(_ statusCodes: GeneratedStatusCodes, context: String) {
        let built = statusCodes.built
        for probe in statusCodes.probes where built.contains(probe) != statusCodes.modelContains(probe) {
            Issue.record("\(context): \(statusCodes) answers \(built.contains(probe)) for \(probe)")
            return
        }
    }

    /// What the builder must do with these headers: the first bad one, in order, decides.
    static func expectation(for headers: HTTPHeaders) -> Expectation {
        for field in headers {
            let nameIsToken =
                !field.name.isEmpty
                && field.name.unicodeScalars.allSatisfy { scalar in
                    scalar.isASCII
                        && (CharacterSet.alphanumerics.contains(scalar)
                            || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
                }
            if !nameIsToken { return .invalidHeaderName(field.name) }
            let valueIsClean = field.value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
            if !valueIsClean { return .invalidHeaderValue(field.name) }
        }
        return .built
    }

    static func verify(_ urlRequest: URLRequest, matches request: GeneratedRequest, context: String) throws {
        let url = try #require(urlRequest.url, "\(context): no URL")
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false), "\(context): \(url)")
        #expect(components.host == "api.example.com", "\(context)")
        #expect(components.path == "/v2" + request.path, "\(context): path of \(url.absoluteString)")
        #expect((components.queryItems ?? []) == request.queryItems, "\(context): query of \(url.absoluteString)")
        #expect(urlRequest.httpMethod == request.method.rawValue, "\(context)")
        #expect(urlRequest.timeoutInterval == request.timeout ?? 60, "\(context): timeout")
        for field in request.headers {
            #expect(urlRequest.value(forHTTPHeaderField: field.name) == field.value, "\(context): header \(field.name)")
        }
        switch request.generatedBody {
        case .data(let data)?:
            #expect(urlRequest.httpBody == data, "\(context): body")
        case .json(let strings)?:
            let decoded = try JSONDecoder().decode([String].self, from: urlRequest.httpBody ?? Data())
            #expect(decoded == strings, "\(context): JSON body")
        case nil:
            #expect(urlRequest.httpBody == nil, "\(context): no body")
        }
    }
}
