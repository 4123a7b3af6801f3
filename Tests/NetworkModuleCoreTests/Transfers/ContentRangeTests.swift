import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Content-Range")
struct ContentRangeTests {
    @Test("when the range is complete, should read its start, end and length")
    func complete() {
        let range = ContentRange("bytes 100-199/200")
        #expect(range?.start == 100)
        #expect(range?.end == 199)
        #expect(range?.completeLength == 200)
    }

    @Test("when the length is unknown, should read it as nil")
    func unknownLength() {
        #expect(ContentRange("bytes 0-9/*")?.completeLength == nil)
        #expect(ContentRange("bytes 0-9/*")?.start == 0)
    }

    @Test(
        "when the value is malformed, should read nothing",
        arguments: [
            "", "bytes", "bytes 1-2", "items 1-2/3", "bytes 5-4/10", "bytes 1-10/10", "bytes -1-2/3",
            "bytes +1-2/3", "bytes 1-2/-3", "bytes 1 -2/3", "bytes 99999999999999999999-1/2", "bytes */10",
        ])
    func malformed(value: String) {
        #expect(ContentRange(value) == nil)
    }

    @Test("when a range is longer than a 64-bit count, should read nothing (issue 38: its length trapped)")
    func longerThanACount() {
        #expect(ContentRange("bytes 0-9223372036854775807/*") == nil)
        #expect(ContentRange("bytes 1-9223372036854775807/*")?.length == Int64.max)
        #expect(ContentRange("bytes 0-9223372036854775806/*")?.length == Int64.max)
    }
}

/// The one check of a `206`: it answers the range the request asked for, and the whole of it.
@Suite("Content-Range: a 206 answers what was asked")
struct PartialContentCheckTests {
    private let url = URL(string: "https://api.example.com/file")!

    private func request(range: String?) -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue(range, forHTTPHeaderField: "Range")
        return request
    }

    private func partial(_ contentRange: String) -> HTTPURLResponse {
        HTTPURLResponse(
            url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: ["Content-Range": contentRange])!
    }

    @Test(
        "when a 206 answers the range asked, whole, should keep the bytes before it",
        arguments: [
            ("bytes=50-", "bytes 50-99/100", Int64(50)), ("bytes=50-", "bytes 50-59/*", 50),
            ("bytes=100-199", "bytes 100-199/1000", 0), ("bytes=100-199", "bytes 100-149/150", 0),
            ("bytes=100-199", "bytes 100-199/*", 0),
        ])
    func answersTheRange(asked: String, answered: String, resumingAt: Int64) throws {
        let kept = try ContentRange.keptBytes(
            of: partial(answered), to: request(range: asked), resumingAt: resumingAt)

        #expect(kept == resumingAt)
    }

    @Test(
        "when a 206 does not answer the range asked, or none was asked, should fail blaming the server",
        arguments: [
            (String?.none, "bytes 0-9/100"), ("bytes=50-", "bytes 50-59/100"), ("bytes=50-", "bytes 40-99/100"),
            ("bytes=100-199", "bytes 100-149/1000"), ("bytes=100-199", "bytes 100-249/1000"),
            ("bytes=50-", "bytes 50-99/50"), ("bytes=-500", "bytes 500-999/1000"), ("bytes=50-", "none"),
        ])
    func doesNotAnswerTheRange(asked: String?, answered: String) {
        #expect(throws: URLError.self) {
            try ContentRange.keptBytes(of: partial(answered), to: request(range: asked), resumingAt: 0)
        }
    }

    @Test("when a 206 to bytes=0- declares a range longer than any file, should fail blaming the server, not trap")
    func rangeLongerThanAnyFile() throws {
        let error = #expect(throws: URLError.self) {
            try ContentRange.keptBytes(
                of: partial("bytes 0-9223372036854775807/*"), to: request(range: "bytes=0-"), resumingAt: 0)
        }
        #expect(error?.code == .cannotParseResponse)
        #expect(error?.localizedDescription.contains("not a valid byte range") == true, "\(String(describing: error))")
    }

    @Test("when the status is another 2xx, should keep nothing, whatever was asked")
    func otherSuccessKeepsNothing() throws {
        let ok = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!

        #expect(try ContentRange.keptBytes(of: ok, to: request(range: "bytes=50-"), resumingAt: 50) == 0)
    }

    @Test("when a request's Range is read, should take a single range from a first byte only")
    func requestedRange() {
        #expect(
            ContentRange.Requested(of: request(range: "bytes=100-199")) == .init(of: request(range: " bytes=100-199 ")))
        #expect(ContentRange.Requested(of: request(range: "bytes=100-199"))?.end == 199)
        #expect(ContentRange.Requested(of: request(range: "bytes=7-"))?.start == 7)
        #expect(ContentRange.Requested(of: request(range: "bytes=7-"))?.end == nil)
        for invalid in ["bytes=-5", "bytes=1-2,4-5", "bytes=5-4", "items=1-2", "bytes=a-", ""] {
            #expect(ContentRange.Requested(of: request(range: invalid)) == nil, "\(invalid)")
        }
        #expect(ContentRange.Requested(of: request(range: nil)) == nil)
    }
}
