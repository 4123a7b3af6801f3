import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("RequestBody")
struct RequestBodyTests {
    /// A request with a body and optional headers.
    struct Request: NetworkRequest {
        var path = "items"
        var method: HTTPMethod = .post
        var headers: HTTPHeaders = [:]
        var body: RequestBody?
    }

    struct Profile: Encodable, Sendable {
        var userName: String
        var createdAt: Date
    }

    struct Failing: Encodable, Sendable {
        struct Boom: Error, CustomStringConvertible {
            var description: String { "boom: cannot encode Failing" }
        }

        func encode(to encoder: any Encoder) throws { throw Boom() }
    }

    struct NotANumber: Encodable, Sendable {
        var value = Double.nan
    }

    /// `2001-01-01T00:00:00Z`.
    static let referenceDate = Date(timeIntervalSinceReferenceDate: 0)

    static func encoder(
        keys: JSONEncoder.KeyEncodingStrategy = .useDefaultKeys,
        dates: JSONEncoder.DateEncodingStrategy = .deferredToDate
    ) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = keys
        encoder.dateEncodingStrategy = dates
        return encoder
    }

    func makeBuilder(defaultHeaders: HTTPHeaders = [:], encoder: JSONEncoder = encoder()) throws
        -> DefaultRequestBuilder
    {
        DefaultRequestBuilder(
            baseURL: try #require(URL(string: "https://api.example.com")), defaultHeaders: defaultHeaders,
            jsonEncoder: encoder)
    }

    func bodyText(_ urlRequest: URLRequest) throws -> String {
        String(decoding: try #require(urlRequest.httpBody), as: UTF8.self)
    }

    /// Every field named `name` (ignoring case) in `urlRequest`, as values.
    func values(of name: String, in urlRequest: URLRequest) -> [String] {
        (urlRequest.allHTTPHeaderFields ?? [:]).filter { $0.key.lowercased() == name.lowercased() }.map(\.value)
    }

    func buildError(_ request: Request, builder: DefaultRequestBuilder) -> NetworkError? {
        do {
            _ = try builder.build(request: request)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - JSON

    @Test("when the body is JSON without an encoder, should encode it with the builder's encoder")
    func jsonWithBuilderEncoder() throws {
        let builder = try makeBuilder(encoder: Self.encoder(keys: .convertToSnakeCase, dates: .secondsSince1970))
        let body = RequestBody.json(Profile(userName: "Ada", createdAt: Self.referenceDate))
        let urlRequest = try builder.build(request: Request(body: body))
        #expect(try bodyText(urlRequest) == #"{"created_at":978307200,"user_name":"Ada"}"#)
        #expect(values(of: "Content-Type", in: urlRequest) == ["application/json"])
    }

    @Test("when the body is JSON with its own encoder, should use it instead of the builder's")
    func jsonWithRequestEncoder() throws {
        let builder = try makeBuilder(encoder: Self.encoder(keys: .convertToSnakeCase, dates: .secondsSince1970))
        let body = RequestBody.json(
            Profile(userName: "Ada", createdAt: Self.referenceDate), encoder: Self.encoder(dates: .iso8601))
        let urlRequest = try builder.build(request: Request(body: body))
        #expect(try bodyText(urlRequest) == #"{"createdAt":"2001-01-01T00:00:00Z","userName":"Ada"}"#)
    }

    @Test("when the body is a top-level JSON array or string, should encode it")
    func jsonFragments() throws {
        let builder = try makeBuilder()
        #expect(try bodyText(builder.build(request: Request(body: .json([3, 1, 2])))) == "[3,1,2]")
        #expect(try bodyText(builder.build(request: Request(body: .json("a\"b")))) == #""a\"b""#)
    }

    @Test("when the request sets Content-Type in any casing, should send only the request's value")
    func requestContentTypeWins() throws {
        let urlRequest = try makeBuilder().build(
            request: Request(headers: ["content-type": "application/vnd.api+json"], body: .json(["a": 1])))
        #expect(values(of: "Content-Type", in: urlRequest) == ["application/vnd.api+json"])
        #expect(try bodyText(urlRequest) == #"{"a":1}"#)
    }

    @Test("when the default headers set Content-Type and the request has a body, should send the body's Content-Type")
    func bodyContentTypeOverridesDefault() throws {
        let builder = try makeBuilder(defaultHeaders: ["Content-Type": "application/json"])
        let urlRequest = try builder.build(request: Request(body: .formURLEncoded(["a": "1"])))
        #expect(values(of: "Content-Type", in: urlRequest) == ["application/x-www-form-urlencoded"])
    }

    @Test("when the default headers set Content-Type and the request has no body, should send the default")
    func defaultContentTypeWithoutBody() throws {
        let builder = try makeBuilder(defaultHeaders: ["content-type": "application/json"])
        let urlRequest = try builder.build(request: Request(method: .get, body: nil))
        #expect(values(of: "Content-Type", in: urlRequest) == ["application/json"])
    }

    @Test("when encoding the JSON value throws, should fail with bodyEncodingFailed carrying the error's description")
    func throwingEncodable() throws {
        let error = buildError(Request(body: .json(Failing())), builder: try makeBuilder())
        #expect(error == .invalidRequest(.bodyEncodingFailed("boom: cannot encode Failing")))
    }

    @Test("when the JSON value has a NaN, should fail with bodyEncodingFailed instead of sending an empty body")
    func nanInJSON() throws {
        let error = buildError(Request(body: .json(NotANumber())), builder: try makeBuilder())
        guard case .invalidRequest(.bodyEncodingFailed(let message)) = error else {
            Issue.record("expected bodyEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(!message.isEmpty)
    }

    @Test("when the request's own encoder cannot encode the value but the builder's could, should fail")
    func requestEncoderFailureIsNotMasked() throws {
        let strict = Self.encoder()
        strict.nonConformingFloatEncodingStrategy = .throw
        let lenient = Self.encoder()
        lenient.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let builder = try makeBuilder(encoder: lenient)
        #expect(try bodyText(builder.build(request: Request(body: .json(NotANumber())))) == #"{"value":"nan"}"#)
        let error = buildError(Request(body: .json(NotANumber(), encoder: strict)), builder: builder)
        guard case .invalidRequest(.bodyEncodingFailed) = error else {
            Issue.record("expected bodyEncodingFailed, got \(String(describing: error))")
            return
        }
    }

    // MARK: - Raw data

    @Test("when the body is raw data, should send the bytes as they are with the given Content-Type")
    func rawData() throws {
        let bytes = Data([0x00, 0x0D, 0x0A, 0x7F, 0x80, 0xFF])
        let urlRequest = try makeBuilder().build(request: Request(body: .data(bytes, contentType: "image/png")))
        #expect(urlRequest.httpBody == bytes)
        #expect(values(of: "Content-Type", in: urlRequest) == ["image/png"])
    }

    @Test("when the raw body's content type has a line break, should fail with invalidHeaderValue")
    func rawDataContentTypeInjection() throws {
        let body = RequestBody.data(Data([1]), contentType: "text/plain\r\nX-Admin: 1")
        #expect(
            buildError(Request(body: body), builder: try makeBuilder())
                == .invalidRequest(.invalidHeaderValue(name: "Content-Type")))
    }

    // MARK: - Form URL-encoded

    @Test("when the body is form-urlencoded, should keep the field order and set its Content-Type")
    func formOrder() throws {
        let urlRequest = try makeBuilder().build(
            request: Request(body: .formURLEncoded(["grant_type": "password", "username": "ada", "a": "1"])))
        #expect(try bodyText(urlRequest) == "grant_type=password&username=ada&a=1")
        #expect(values(of: "Content-Type", in: urlRequest) == ["application/x-www-form-urlencoded"])
    }

    @Test(
        "when form names and values have reserved or non-ASCII characters, should encode them per the WHATWG form rules",
        arguments: [
            (" ", "+"),
            ("+", "%2B"),
            ("&", "%26"),
            ("=", "%3D"),
            ("%", "%25"),
            ("~", "%7E"),
            ("/?#", "%2F%3F%23"),
            ("é", "%C3%A9"),
            ("日本", "%E6%97%A5%E6%9C%AC"),
            ("*-._", "*-._"),
            ("a b+c", "a+b%2Bc"),
        ])
    func formEncoding(raw: String, encoded: String) throws {
        let body = RequestBody.formURLEncoded([(name: "k" + raw, value: raw)])
        #expect(try bodyText(makeBuilder().build(request: Request(body: body))) == "k\(encoded)=\(encoded)")
    }

    @Test("when a form has repeated names and empty values, should send every field as given")
    func formRepeatedNames() throws {
        let body = RequestBody.formURLEncoded([
            (name: "tag", value: "a"), (name: "tag", value: ""), (name: "", value: "x"),
        ])
        #expect(try bodyText(makeBuilder().build(request: Request(body: body))) == "tag=a&tag=&=x")
    }

    @Test("when a form-urlencoded body has a password with symbols, should decode back to the same value")
    func formRoundTrip() throws {
        let password = "p@ss w+rd&=%é"
        let body = RequestBody.formURLEncoded(["password": password])
        let text = try bodyText(makeBuilder().build(request: Request(body: body)))
        #expect(text == "password=p%40ss+w%2Brd%26%3D%25%C3%A9")
        let value = try #require(text.split(separator: "=", maxSplits: 1).last)
        #expect(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding == password)
    }

    @Test("when a form has no fields, should send an empty body with the form Content-Type")
    func emptyForm() throws {
        let urlRequest = try makeBuilder().build(
            request: Request(body: .formURLEncoded([(name: String, value: String)]())))
        #expect((urlRequest.httpBody ?? Data()).isEmpty)
        #expect(values(of: "Content-Type", in: urlRequest) == ["application/x-www-form-urlencoded"])
    }
}
