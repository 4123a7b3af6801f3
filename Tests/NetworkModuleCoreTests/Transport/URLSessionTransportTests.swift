import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLSessionTransport")
struct URLSessionTransportTests {
    private static func response(contentLength: String?) throws -> HTTPURLResponse {
        let url = try #require(URL(string: "http://127.0.0.1/a"))
        let fields = contentLength.map { ["Content-Length": $0] } ?? [:]
        return try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    @Test(
        "the room made for a body should be its declared length, within the size limit and 8 MiB, and none when unknown",
        arguments: [
            (String?.none, Int?.none, 0), ("0", nil, 0), ("1048576", nil, 1_048_576),
            ("1048576", 1000, 1000), ("999999999999", nil, 8 << 20), ("999999999999", -1, 0), ("12", 100, 12),
        ] as [(String?, Int?, Int)])
    func initialBodyCapacity(contentLength: String?, limit: Int?, expected: Int) throws {
        let response = try Self.response(contentLength: contentLength)
        #expect(URLSessionTransport.initialBodyCapacity(for: response, limit: limit) == expected)
    }
}
