import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies read from a file or a stream as they are sent: what the builder makes of them.
@Suite("RequestBody: files and streams")
struct StreamedBodyTests {
    struct Upload: NetworkRequest {
        var path = "uploads"
        var method: HTTPMethod = .put
        var headers: HTTPHeaders = [:]
        var body: RequestBody?
    }

    static let builder = DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!)

    /// A temporary file holding `data`, removed by the caller.
    static func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString).bin")
        try data.write(to: url)
        return url
    }

    /// Everything `stream` yields, read from an unopened stream.
    static func readAll(_ stream: InputStream?) -> Data {
        guard let stream else { return Data() }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    @Test("when the body is a file, should stream its bytes with its size as Content-Length, never as httpBody")
    func fileBody() throws {
        let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let url = try Self.temporaryFile(data)
        defer { try? FileManager.default.removeItem(at: url) }

        let request = try Self.builder.build(request: Upload(body: .file(url, contentType: "video/mp4")))

        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == "100000")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "video/mp4")
        #expect(Self.readAll(request.httpBodyStream) == data)
    }

    @Test("when the file is missing, should fail to build with a reason naming the file")
    func missingFile() {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).bin")

        #expect {
            try Self.builder.build(request: Upload(body: .file(url)))
        } throws: { error in
            guard case .invalidRequest(.bodyEncodingFailed(let reason)) = error as? NetworkError else { return false }
            return reason.contains(url.path) && reason.contains("does not exist")
        }
    }

    @Test("when the file is a directory, should fail to build saying it is not a regular file")
    func directoryFile() {
        let url = FileManager.default.temporaryDirectory

        #expect(
            throws: NetworkError.invalidRequest(.bodyEncodingFailed("the body file \(url.path) is not a regular file"))
        ) {
            try Self.builder.build(request: Upload(body: .file(url)))
        }
    }

    @Test("when the body is a stream of known length, should set it with its Content-Length and its type")
    func streamBody() throws {
        let data = Data("streamed".utf8)

        let request = try Self.builder.build(
            request: Upload(body: .stream(length: 8, contentType: "text/plain") { InputStream(data: data) }))

        #expect(request.value(forHTTPHeaderField: "Content-Length") == "8")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(Self.readAll(request.httpBodyStream) == data)
    }

    @Test("when a stream's length is unknown, should set no Content-Length")
    func unknownLength() throws {
        let request = try Self.builder.build(request: Upload(body: .stream(length: nil) { InputStream(data: Data()) }))

        #expect(request.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(request.httpBodyStream != nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test("when the request sets its own Content-Length, should keep it")
    func requestContentLength() throws {
        let request = try Self.builder.build(
            request: Upload(headers: ["Content-Length": "3"], body: .stream(length: 8) { InputStream(data: Data()) }))

        #expect(request.value(forHTTPHeaderField: "Content-Length") == "3")
    }

    @Test("when built twice, should call the factory each time and hand out a fresh stream")
    func freshStreamPerBuild() throws {
        let calls = LockedState(0)
        let body = RequestBody.stream(length: 3) {
            calls.withLock { $0 += 1 }
            return InputStream(data: Data("abc".utf8))
        }

        let first = try Self.builder.build(request: Upload(body: body))
        let second = try Self.builder.build(request: Upload(body: body))

        #expect(calls.withLock { $0 } == 2)
        #expect(first.httpBodyStream !== second.httpBodyStream)
        #expect(Self.readAll(first.httpBodyStream) == Data("abc".utf8))
        #expect(Self.readAll(second.httpBodyStream) == Data("abc".utf8))
    }

    @Test("when the stream factory throws, should fail to build with its error in the reason")
    func throwingFactory() {
        struct Closed: Error, CustomStringConvertible {
            var description: String { "archive closed" }
        }

        #expect(
            throws: NetworkError.invalidRequest(
                .bodyEncodingFailed("the body stream could not be made: archive closed"))
        ) {
            try Self.builder.build(request: Upload(body: .stream(length: nil) { throw Closed() }))
        }
    }

    @Test("when URLSession asks for the body again, should make a fresh stream of a built body, and none of another")
    func freshStreamForTransport() throws {
        let request = try Self.builder.build(
            request: Upload(body: .stream(length: 3) { InputStream(data: Data("abc".utf8)) }))
        let stream = try #require(request.httpBodyStream)
        _ = Self.readAll(stream)

        let fresh = BodyStreams.freshStream(replacing: stream)

        #expect(fresh !== stream)
        #expect(Self.readAll(fresh) == Data("abc".utf8))
        #expect(BodyStreams.freshStream(replacing: InputStream(data: Data())) == nil)
    }

    @Test("when a stream body is sent, should know its length without reading it")
    func knownBodyLength() throws {
        var request = try Self.builder.build(request: Upload(body: .stream(length: 42) { InputStream(data: Data()) }))

        #expect(request.knownBodyLength == 42)
        request.httpBodyStream = InputStream(data: Data())
        request.setValue("7", forHTTPHeaderField: "Content-Length")
        #expect(request.knownBodyLength == 7, "a stream the builder did not make: its Content-Length")
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        #expect(request.knownBodyLength == nil)
    }
}
