import Foundation

/// The parts of a HAR 1.2 archive (http://www.softwareishard.com/blog/har-12-spec/) that the
/// recording session writes and the replay session reads.
///
/// Fields the kit writes but does not need to read back are optional, so archives saved by
/// browsers' developer tools, which leave some out, can be replayed too. Fields of our own
/// start with `_`, as the format asks: `_encoding` on request bodies (the spec has
/// `encoding` only for response content), `_error` and `_urlErrorCode` on entries whose
/// request failed without a response (status `0`).
struct HARArchive: Codable, Sendable {
    var log: Log

    struct Log: Codable, Sendable {
        var version: String
        var creator: Creator?
        var entries: [Entry]
    }

    struct Creator: Codable, Sendable {
        var name: String
        var version: String
    }

    struct Entry: Codable, Sendable {
        var startedDateTime: String?
        /// Total milliseconds, the sum of the timings.
        var time: Double?
        var request: Request
        var response: Response
        var cache: Cache?
        var timings: Timings?
        /// Why the request failed without a response.
        var error: String?
        /// The `URLError` code of that failure, to replay it.
        var urlErrorCode: Int?

        enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings
            case error = "_error"
            case urlErrorCode = "_urlErrorCode"
        }
    }

    struct NameValue: Codable, Sendable, Equatable {
        var name: String
        var value: String
    }

    struct Request: Codable, Sendable {
        var method: String
        var url: String
        var httpVersion: String?
        var headers: [NameValue]?
        var queryString: [NameValue]?
        var postData: PostData?
        var headersSize: Int?
        var bodySize: Int?
        var cookies: [NameValue]?
    }

    struct PostData: Codable, Sendable {
        var mimeType: String
        var text: String?
        /// `base64` when ``text`` holds a binary body in base64.
        var encoding: String?
        /// Why the body is not recorded (a body stream), in HAR's own `comment` field.
        var comment: String?

        enum CodingKeys: String, CodingKey {
            case mimeType, text, comment
            case encoding = "_encoding"
        }
    }

    struct Response: Codable, Sendable {
        var status: Int
        var statusText: String?
        var httpVersion: String?
        var headers: [NameValue]?
        var content: Content?
        var redirectURL: String?
        var headersSize: Int?
        var bodySize: Int?
        var cookies: [NameValue]?
    }

    struct Content: Codable, Sendable {
        var size: Int
        var mimeType: String?
        var text: String?
        /// `base64` when ``text`` holds a binary body in base64.
        var encoding: String?
    }

    /// Always empty: the recording session sees no cache.
    struct Cache: Codable, Sendable {}

    /// Milliseconds; `-1` for phases the session does not report.
    struct Timings: Codable, Sendable {
        var blocked: Double?
        var dns: Double?
        var connect: Double?
        var ssl: Double?
        var send: Double
        var wait: Double
        var receive: Double
    }
}

/// Bodies as HAR holds them: UTF-8 text as it is, anything else in base64.
enum HARBody {
    /// `data` as HAR text, and `"base64"` if it had to be encoded.
    static func text(of data: Data) -> (text: String, encoding: String?) {
        let text = String(decoding: data, as: UTF8.self)
        return Data(text.utf8) == data ? (text, nil) : (data.base64EncodedString(), "base64")
    }

    /// The bytes of HAR `text` with `encoding`; `nil` if base64 text is invalid.
    static func data(of text: String?, encoding: String?) -> Data? {
        guard let text else { return Data() }
        return encoding == "base64" ? Data(base64Encoded: text) : Data(text.utf8)
    }
}
