import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Files, streams and large multipart forms on the wire: the fault server's `/echo` answers the
/// length and CRC-32 of the body it received, httpbin parses a multipart form.
@Suite("Integration: uploads from files and streams", .integration)
struct UploadIntegrationTests {
    /// `count` bytes of a pattern that repeats only every 251 bytes, in a temporary file.
    static func patternFile(bytes count: Int) throws -> (url: URL, data: Data) {
        let data = TransferTestSupport.pattern(length: count)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).bin")
        try data.write(to: url)
        return (url, data)
    }

    @Test("when uploading a multi-megabyte file, should deliver it byte-identical with its Content-Length")
    func fileUpload() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let (url, data) = try Self.patternFile(bytes: 6 << 20)
        defer { try? FileManager.default.removeItem(at: url) }

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/echo", method: .put, body: .file(url)), responseType: WireEcho.self)

        #expect(echo.bodyLength == data.count)
        #expect(echo.bodyCRC32 == CRC32.checksum(data))
        #expect(echo.headers.filter { $0.first == "Content-Length" } == [["Content-Length", String(data.count)]])
        #expect(!echo.headers.contains { $0.first == "Transfer-Encoding" }, "one framing only")
    }

    @Test(
        "when uploading from an InputStream, should deliver it byte-identical, with or without a known length",
        arguments: [true, false])
    func streamUpload(lengthKnown: Bool) async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let data = TransferTestSupport.pattern(length: 3 << 20)

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/echo", method: .post,
                body: .stream(length: lengthKnown ? Int64(data.count) : nil) { InputStream(data: data) }),
            responseType: WireEcho.self)

        #expect(echo.bodyLength == data.count)
        #expect(echo.bodyCRC32 == CRC32.checksum(data))
        let framings = echo.headers.filter { ["Content-Length", "Transfer-Encoding"].contains($0.first) }
        #expect(framings.count == 1, "one framing only, not both: \(framings)")
    }

    @Test("when a multipart form is larger than its memory threshold, should stream it and arrive intact")
    func largeMultipart() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let line = "The quick brown fox jumps over the lazy dog 0123456789.\n"
        let text = String(repeating: line, count: (3 << 20) / line.utf8.count)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("form-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var form = MultipartFormData(encodingMemoryThreshold: 1_000_000)
        form.addField(name: "title", value: "Holiday")
        form.addFile(name: "notes", filename: "notes.txt", contentType: "text/plain", fileURL: url)

        let echo = try await module.performAndDecode(
            request: Endpoint(path: "/post", method: .post, body: .multipart(form)), responseType: HTTPBinEcho.self)

        #expect(echo.form?["title"] == "Holiday")
        #expect(echo.files?["notes"] == text)
        #expect(echo.headers["Content-Length"].flatMap { Int($0) } ?? 0 > text.utf8.count)
    }

    @Test(
        "when a file or stream upload is redirected with 307, should send the whole body again",
        arguments: [true, false])
    func redirectedStream(fromFile: Bool) async throws {
        // Apple's URLSession asks for a fresh stream (needNewBodyStream); on Linux the transport
        // sends the request again itself. Before it did, this failed with
        // .requestBodyStreamExhausted on Linux.
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let (url, data) = try Self.patternFile(bytes: 300_000)
        defer { try? FileManager.default.removeItem(at: url) }
        let body: RequestBody =
            fromFile ? .file(url) : .stream(length: Int64(data.count)) { InputStream(data: data) }

        let echo = try await module.performAndDecode(
            request: Endpoint(
                path: "/redirect-to", method: .post,
                queryItems: [URLQueryItem(name: "url", value: "/echo"), URLQueryItem(name: "status", value: "307")],
                body: body),
            responseType: WireEcho.self)

        #expect(echo.bodyLength == data.count)
        #expect(echo.bodyCRC32 == CRC32.checksum(data))
    }

    @Test("when a streamed multipart form is sent, should put exactly the bytes of its in-memory encoding on the wire")
    func streamedMultipartBytes() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let (url, data) = try Self.patternFile(bytes: 2 << 20)
        defer { try? FileManager.default.removeItem(at: url) }
        var streamed = MultipartFormData(boundary: "fixed-boundary-for-the-test", encodingMemoryThreshold: 1000)
        streamed.addField(name: "title", value: "Holiday")
        streamed.addFile(name: "blob", filename: "blob.bin", fileURL: url)
        var inMemory = MultipartFormData(boundary: "fixed-boundary-for-the-test")
        inMemory.addField(name: "title", value: "Holiday")
        inMemory.addFile(name: "blob", filename: "blob.bin", data: data)

        let echoes = try await [streamed, inMemory].asyncMap { form in
            try await module.performAndDecode(
                request: Endpoint(path: "/echo", method: .post, body: .multipart(form)), responseType: WireEcho.self)
        }

        #expect(echoes[0].bodyLength == echoes[1].bodyLength)
        #expect(echoes[0].bodyCRC32 == echoes[1].bodyCRC32)
        #expect(
            echoes[0].headers.first { $0.first == "Content-Length" } == [
                "Content-Length", String(echoes[1].bodyLength),
            ])
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
