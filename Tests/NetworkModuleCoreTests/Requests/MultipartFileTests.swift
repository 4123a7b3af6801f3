import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Multipart forms with files added by URL: in memory below the threshold, streamed from a
/// temporary file above it.
@Suite("MultipartFormData: files from disk")
struct MultipartFileTests {
    static let boundary = "test-boundary"

    /// The form with `data` as a file added by URL, and the same form with `data` in memory.
    static func forms(_ data: Data, file: URL, threshold: Int64) -> (
        fromDisk: MultipartFormData, inMemory: MultipartFormData
    ) {
        var fromDisk = MultipartFormData(boundary: boundary, encodingMemoryThreshold: threshold)
        fromDisk.addField(name: "title", value: "Holiday")
        fromDisk.addFile(name: "photo", contentType: "image/png", fileURL: file)
        var inMemory = MultipartFormData(boundary: boundary)
        inMemory.addField(name: "title", value: "Holiday")
        inMemory.addFile(name: "photo", filename: file.lastPathComponent, contentType: "image/png", data: data)
        return (fromDisk, inMemory)
    }

    static func encodedData(_ form: MultipartFormData) throws -> Data {
        guard case .data(let data) = try form.encoded().body else {
            Issue.record("expected an in-memory body")
            return Data()
        }
        return data
    }

    @Test("when the form is no larger than the threshold, should encode it in memory, the file read from disk")
    func belowThreshold() throws {
        let data = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let file = try StreamedBodyTests.temporaryFile(data)
        defer { try? FileManager.default.removeItem(at: file) }
        let (fromDisk, inMemory) = Self.forms(data, file: file, threshold: 100_000)

        let encoded = try Self.encodedData(fromDisk)

        #expect(encoded == (try Self.encodedData(inMemory)))
    }

    @Test("when the form is larger than the threshold, should stream the same bytes from a temporary file")
    func aboveThreshold() throws {
        let data = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let file = try StreamedBodyTests.temporaryFile(data)
        defer { try? FileManager.default.removeItem(at: file) }
        let (fromDisk, inMemory) = Self.forms(data, file: file, threshold: 1000)

        let (body, boundary) = try fromDisk.encoded()

        guard case .stream(let source) = body else {
            Issue.record("expected a streamed body")
            return
        }
        let expected = try Self.encodedData(inMemory)
        let temporary = try #require(source.temporaryFile)
        #expect(boundary == Self.boundary)
        #expect(source.length == Int64(expected.count))
        #expect(StreamedBodyTests.readAll(try source.newStream()) == expected)
        #expect(FileManager.default.fileExists(atPath: temporary.url.path))
        temporary.remove()
        #expect(!FileManager.default.fileExists(atPath: temporary.url.path))
    }

    @Test("when a chosen boundary occurs in a streamed file, even across two chunks, should fail to build")
    func fixedBoundaryInStreamedFile() throws {
        var data = Data(repeating: UInt8(ascii: "x"), count: MultipartFormData.copyChunkSize * 2)
        let straddling = MultipartFormData.copyChunkSize - 4
        data.replaceSubrange(straddling..<(straddling + Self.boundary.utf8.count), with: Data(Self.boundary.utf8))
        let file = try StreamedBodyTests.temporaryFile(data)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartFormData(boundary: Self.boundary, encodingMemoryThreshold: 1000)
        form.addFile(name: "blob", fileURL: file)

        #expect(throws: MultipartFormData.boundaryOccurs(Self.boundary)) {
            try form.encoded()
        }
    }

    @Test("when a file added by URL is missing, should fail to build naming the file")
    func missingFile() {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).png")
        var form = MultipartFormData()
        form.addFile(name: "photo", fileURL: url)

        #expect(
            throws: NetworkError.invalidRequest(
                .bodyEncodingFailed("the body file \(url.path) does not exist or cannot be read"))
        ) {
            try form.encoded()
        }
    }

    @Test("when a streamed form is built, should send it as a body stream with its Content-Length and boundary")
    func builtRequest() throws {
        let data = Data(repeating: 7, count: 50_000)
        let file = try StreamedBodyTests.temporaryFile(data)
        defer { try? FileManager.default.removeItem(at: file) }
        let (fromDisk, _) = Self.forms(data, file: file, threshold: 1000)

        let request = try StreamedBodyTests.builder.build(
            request: StreamedBodyTests.Upload(method: .post, body: .multipart(fromDisk)))

        let stream = try #require(request.httpBodyStream)
        let length = StreamedBodyTests.readAll(stream).count
        #expect(request.value(forHTTPHeaderField: "Content-Length") == String(length))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=\(Self.boundary)")
        BodyStreams.release(stream)
    }
}
