import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Property tests of the request builder: random Unicode paths, query items, headers and
/// bodies. Each case either builds a request whose URL decodes back to exactly what was given,
/// or fails with the specific error the input deserves. Never a crash.
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

        var body: RequestBody? {
            switch generatedBody {
            case .data(let data)?: .data(data, contentType: "application/octet-stream")
            case .json(let strings)?: .json(strings)
            case nil: nil
            }
        }
    }

    enum Expectation {
        case built
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
            queryItems: queryItems, headers: headers, generatedBody: body)
        return (request, expectation(for: headers))
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
