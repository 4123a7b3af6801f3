import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Response framing")
struct ResponseFramingTests {
    private static func response(status: Int = 200, _ fields: [String: String]) throws -> HTTPURLResponse {
        let url = try #require(URL(string: "http://127.0.0.1/a"))
        return try #require(
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    @Test(
        "a Content-Length value should declare a length only as digits, or the same digits repeated in a list",
        arguments: [
            ("0", 0), ("406", 406), (" 406\t", 406), ("5, 5", 5), ("5,5 ,\t5", 5), ("007", 7),
            ("9223372036854775807", Int.max),
        ] as [(String, Int?)]
            + [
                "", " ", "5, 26", "5,", ",5", "5,,5", "+5", "-0", "-5", "5x", "5 5", "0x10", "\u{0665}",
                "9223372036854775808", "99999999999999999999999999",
            ].map { ($0, nil) })
    func contentLength(value: String, expected: Int?) {
        #expect(ResponseFraming.contentLength(value) == expected, "\(value)")
    }

    @Test("when the body is as long as declared or longer, or no length is declared, should accept it")
    func soundResponses() throws {
        #expect(
            ResponseFraming.failure(of: try Self.response(["Content-Length": "3"]), method: "GET", receivedBytes: 3)
                == nil)
        #expect(ResponseFraming.failure(of: try Self.response([:]), method: "GET", receivedBytes: 0) == nil)
        #expect(
            ResponseFraming.failure(
                of: try Self.response(["Transfer-Encoding": "chunked"]), method: "GET", receivedBytes: 10) == nil)
    }

    @Test(
        "when Content-Length is invalid or conflicting, should fail with .badServerResponse unless Transfer-Encoding frames the body"
    )
    func invalidLength() throws {
        for value in ["5, 26", "+5", "abc"] {
            let invalid = try Self.response(["Content-Length": value])
            #expect(
                ResponseFraming.failure(of: invalid, method: "GET", receivedBytes: 5) == .badServerResponse, "\(value)")
            let chunked = try Self.response(["Content-Length": value, "Transfer-Encoding": "chunked"])
            #expect(ResponseFraming.failure(of: chunked, method: "GET", receivedBytes: 5) == nil, "\(value)")
        }
    }

    @Test(
        "when the body is shorter than declared, should fail with .networkConnectionLost, unless no body or a coding applies"
    )
    func shortBody() throws {
        let short = try Self.response(["Content-Length": "10"])
        #expect(ResponseFraming.failure(of: short, method: "GET", receivedBytes: 9) == .networkConnectionLost)
        #expect(ResponseFraming.failure(of: short, method: "head", receivedBytes: 0) == nil)
        for status in [101, 204, 304] {
            let noBody = try Self.response(status: status, ["Content-Length": "10"])
            #expect(ResponseFraming.failure(of: noBody, method: "GET", receivedBytes: 0) == nil, "\(status)")
        }
        let gzip = try Self.response(["Content-Length": "10", "Content-Encoding": " gzip "])
        #expect(ResponseFraming.failure(of: gzip, method: "GET", receivedBytes: 4) == nil)
        let identity = try Self.response(["Content-Length": "10", "Content-Encoding": "Identity"])
        #expect(ResponseFraming.failure(of: identity, method: "GET", receivedBytes: 4) == .networkConnectionLost)
        let chunked = try Self.response(["Content-Length": "10", "Transfer-Encoding": "chunked"])
        #expect(ResponseFraming.failure(of: chunked, method: "GET", receivedBytes: 4) == nil)
    }

    @Test(
        "the body length a response declares should be its Content-Length, unless coded, chunked, invalid or bodiless"
    )
    func declaredBodyLength() throws {
        let plain = try Self.response(["Content-Length": "1073741824"])
        #expect(ResponseFraming.declaredBodyLength(of: plain, method: "GET") == 1_073_741_824)
        #expect(ResponseFraming.declaredBodyLength(of: plain, method: "head") == nil)
        let identity = try Self.response(["Content-Length": "10", "Content-Encoding": "Identity"])
        #expect(ResponseFraming.declaredBodyLength(of: identity, method: "GET") == 10)
        let unknown = try Self.response([:])
        #expect(ResponseFraming.declaredBodyLength(of: unknown, method: "GET") == nil)
        for fields in [
            ["Content-Length": "10", "Content-Encoding": "gzip"],
            ["Content-Length": "10", "Transfer-Encoding": "chunked"],
            ["Content-Length": "5, 26"],
        ] {
            let response = try Self.response(fields)
            #expect(ResponseFraming.declaredBodyLength(of: response, method: "GET") == nil, "\(fields)")
        }
        for status in [101, 204, 304] {
            let noBody = try Self.response(status: status, ["Content-Length": "10"])
            #expect(ResponseFraming.declaredBodyLength(of: noBody, method: "GET") == nil, "\(status)")
        }
    }
}
