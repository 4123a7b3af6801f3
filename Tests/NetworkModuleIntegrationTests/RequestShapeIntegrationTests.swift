import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What goes on the wire: methods, query encoding, bodies and headers, as httpbin echoes them.
@Suite("Integration: request shape on the wire", .integration)
struct RequestShapeIntegrationTests {
    @Test(
        "when sending each standard method, should reach the server with that method",
        arguments: [HTTPMethod.get, .post, .put, .patch, .delete])
    func standardMethods(method: HTTPMethod) async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/anything/method-check", method: method), responseType: HTTPBinEcho.self)

        #expect(echo.method == method.rawValue)
        #expect(echo.url?.hasSuffix("/anything/method-check") == true)
    }

    @Test("when sending HEAD, should get the status and headers with an empty body")
    func headRequest() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let response = try await module.perform(request: Endpoint(path: "/get", method: .head))

        #expect(response.statusCode == 200)
        #expect(response.data.isEmpty)
        #expect(response.headers["content-type"] == "application/json")
    }

    @Test("when sending a custom method, should put exactly that token on the request line")
    func customMethod() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/echo", method: "PURGE"), responseType: WireEcho.self)

        #expect(echo.method == "PURGE")
    }

    @Test("when query values hold reserved and non-ASCII characters, should arrive exactly as given, in order")
    func queryEncodingRoundTrip() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let items = [
            URLQueryItem(name: "plus", value: "1+1=2"),
            URLQueryItem(name: "amp&eq=", value: "a&b=c"),
            URLQueryItem(name: "hash", value: "#tag"),
            URLQueryItem(name: "slash", value: "a/b?c"),
            URLQueryItem(name: "space", value: "hello world"),
            URLQueryItem(name: "percent", value: "100%"),
            URLQueryItem(name: "emoji", value: "🚀✨"),
            URLQueryItem(name: "text", value: "日本語 и русский"),
        ]

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/get", queryItems: items), responseType: HTTPBinEcho.self)

        let expected = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        #expect(echo.args == expected)
    }

    @Test("when query items are given, should keep the caller's order on the wire")
    func queryOrderOnTheWire() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let items = ["zebra", "apple", "mango", "kiwi"].map { URLQueryItem(name: $0, value: "1") }

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/echo", queryItems: items), responseType: WireEcho.self)

        #expect(echo.target == "/echo?zebra=1&apple=1&mango=1&kiwi=1")
    }

    @Test("when the path already has a query, should append the query items after it")
    func pathWithQuery() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/get?sort=asc", queryItems: [URLQueryItem(name: "page", value: "2")]),
            responseType: HTTPBinEcho.self)

        #expect(echo.args == ["sort": "asc", "page": "2"])
    }

    @Test("when posting JSON, should send the encoded body with Content-Type application/json")
    func jsonBody() async throws {
        struct Note: Codable, Equatable, Sendable {
            let title: String
            let tags: [String]
        }
        struct JSONEcho: Decodable, Sendable {
            let json: Note
            let headers: [String: String]
        }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let note = Note(title: "Milk & honey", tags: ["🍯", "home"])

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/post", method: .post, body: .json(note)), responseType: JSONEcho.self)

        #expect(echo.json == note)
        #expect(echo.headers["Content-Type"] == "application/json")
    }

    @Test("when posting raw data with a content type, should send those bytes and that type")
    func rawDataBody() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/post", method: .post, body: .data(Data("plain text body".utf8), contentType: "text/plain")),
            responseType: HTTPBinEcho.self)

        #expect(echo.data == "plain text body")
        #expect(echo.headers["Content-Type"] == "text/plain")
    }

    @Test("when posting a form, should send fields the server reads back exactly")
    func formBody() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/post", method: .post,
                body: .formURLEncoded(["name": "Ada Lovelace", "equation": "a+b=c&d", "city": "Zürich"])),
            responseType: HTTPBinEcho.self)

        #expect(echo.form == ["name": "Ada Lovelace", "equation": "a+b=c&d", "city": "Zürich"])
        #expect(echo.headers["Content-Type"] == "application/x-www-form-urlencoded")
    }

    @Test("when posting multipart with fields and a binary file, should deliver both intact")
    func multipartBody() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let fileBytes = Data((0...255).map { UInt8($0) } + (0...255).map { UInt8($0) })
        var form = MultipartFormData()
        form.addField(name: "title", value: "Holiday \"2026\"")
        form.addFile(name: "photo", filename: "beach.bin", contentType: "application/octet-stream", data: fileBytes)

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/post", method: .post, body: .multipart(form)), responseType: HTTPBinEcho.self)

        #expect(echo.form == ["title": "Holiday \"2026\""])
        // httpbin returns non-UTF-8 files as a base64 data URL.
        let file = try #require(echo.files?["photo"])
        let base64 = try #require(file.components(separatedBy: "base64,").last)
        #expect(Data(base64Encoded: base64) == fileBytes)
    }

    @Test("when uploading 5 MB, should deliver every byte")
    func largeUpload() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let body = TransferTestSupport.pattern(length: 5 * 1024 * 1024)

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/echo", method: .post, body: .data(body, contentType: "application/octet-stream")),
            responseType: WireEcho.self)

        #expect(echo.bodyLength == body.count)
        #expect(echo.bodyCRC32 == CRC32.checksum(body))
    }

    @Test("when default and request headers overlap, should send the request's value once")
    func headerOverride() async throws {
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.faultServer(),
            defaultHeaders: ["X-Client": "default", "x-override": "default", "Accept": "application/json"])

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/echo", headers: ["X-Override": "request", "X-Extra": "extra"]),
            responseType: WireEcho.self)

        #expect(echo.headerValues("x-client") == ["default"])
        #expect(echo.headerValues("x-override") == ["request"])
        #expect(echo.headerValues("x-extra") == ["extra"])
        #expect(echo.headerValues("accept") == ["application/json"])
    }

    @Test("when the server spells headers oddly, should find them ignoring case")
    func oddResponseHeaderCasing() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())

        let response = try await module.perform(request: Endpoint(path: "/odd-header-casing"))

        #expect(response.headers["X-Lower-Upper"] == "mixed")
        #expect(response.headers["x-lower-upper"] == "mixed")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["X-DUPLICATE"] == "a, b")
    }
}

/// What the fault server's `/echo` reports about the request it received.
struct WireEcho: Decodable, Sendable {
    let method: String
    let target: String
    let headers: [[String]]
    let bodyLength: Int
    let bodyCRC32: UInt32

    enum CodingKeys: String, CodingKey {
        case method, target, headers
        case bodyLength = "body_length"
        case bodyCRC32 = "body_crc32"
    }

    /// The values of every header named `name`, ignoring case, in the order received.
    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}

/// CRC-32 (IEEE 802.3, as Python's `zlib.crc32`), to compare large bodies with the server's view.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// Over raw buffers rather than `Data`'s and `Array`'s own iteration, which a debug build
    /// does not inline: megabytes would hold a cooperative thread for a good part of a second.
    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            data.withUnsafeBytes { bytes in
                for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
