import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a ``FakeNetworkSession`` answers to a request: a status with headers and a body, a
/// transport error, or any raw combination a real session could produce.
///
/// ```swift
/// let responses: [StubbedResponse] = [
///     .json(User(id: 1, name: "Ada")),
///     .status(204),
///     .text("Service Unavailable", status: 503, headers: ["Retry-After": "2"]),
///     .error(.timedOut),
///     .failure(.invalidResponse),
///     .json(page, status: 200).delayed(by: 0.5),
///     .status(200, body: export).inChunks(of: 1_024),
/// ]
/// ```
public struct StubbedResponse: Sendable {
    enum Content: Sendable {
        case http(status: Int, headers: HTTPHeaders, body: Result<Data, StubEncodingError>)
        case error(URLError.Code)
        case raw(data: Data?, response: URLResponse?, error: (any Error)?)
    }

    let content: Content
    /// Seconds to wait before answering.
    public private(set) var delay: TimeInterval = 0
    /// The size of the chunks a streamed 2xx body is handed over in; `nil` for one chunk.
    public private(set) var chunkSize: Int?

    /// A status with optional headers and body.
    public static func status(_ statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) -> StubbedResponse {
        StubbedResponse(content: .http(status: statusCode, headers: headers, body: .success(body)))
    }

    /// `value` encoded as JSON, with `Content-Type: application/json`.
    public static func json(
        _ value: some Encodable & Sendable, status: Int = 200, headers: HTTPHeaders = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) -> StubbedResponse {
        let body = Result { try encoder.encode(value) }.mapError { StubEncodingError(description: "\($0)") }
        return StubbedResponse(content: .http(status: status, headers: jsonHeaders(headers), body: body))
    }

    /// JSON text sent as it is, with `Content-Type: application/json`.
    public static func json(_ json: String, status: Int = 200, headers: HTTPHeaders = [:]) -> StubbedResponse {
        StubbedResponse(content: .http(status: status, headers: jsonHeaders(headers), body: .success(Data(json.utf8))))
    }

    /// UTF-8 text, with `Content-Type: text/plain; charset=utf-8` unless `headers` set one.
    public static func text(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> StubbedResponse {
        var headers = headers
        if headers["Content-Type"] == nil { headers["Content-Type"] = "text/plain; charset=utf-8" }
        return StubbedResponse(content: .http(status: status, headers: headers, body: .success(Data(text.utf8))))
    }

    /// The contents of a fixture file. A file that cannot be read answers with a 500 whose
    /// body says which file, so a wrong fixture path shows up in the test that uses it.
    public static func fixture(
        _ fileURL: URL, status: Int = 200, contentType: String = "application/json", headers: HTTPHeaders = [:]
    ) -> StubbedResponse {
        var headers = headers
        if headers["Content-Type"] == nil { headers["Content-Type"] = contentType }
        do {
            return .status(status, headers: headers, body: try Data(contentsOf: fileURL))
        } catch {
            return .text("FakeNetworkSession: cannot read fixture \(fileURL.path): \(error)", status: 500)
        }
    }

    /// A transport error, as `URLSession` reports it.
    public static func error(_ code: URLError.Code) -> StubbedResponse {
        StubbedResponse(content: .error(code))
    }

    /// A failure with exactly this error: the module passes a `NetworkError` that a
    /// session reports through unchanged. For ``FakeNetworkModule`` stubs, to fail a call
    /// with a case no server answer produces, such as `.invalidResponse`.
    public static func failure(_ error: NetworkError) -> StubbedResponse {
        raw(data: nil, response: nil, error: error)
    }

    /// Exactly what the session's completion handler receives, for answers a well-behaved
    /// server does not give: no response, a non-HTTP response, `nil` data with a 200.
    public static func raw(data: Data?, response: URLResponse?, error: (any Error)?) -> StubbedResponse {
        StubbedResponse(content: .raw(data: data, response: response, error: error))
    }

    /// This response, answered after `seconds`.
    public func delayed(by seconds: TimeInterval) -> StubbedResponse {
        var copy = self
        copy.delay = seconds
        return copy
    }

    /// This response, with a 2xx body handed to a stream in chunks of `size` bytes (at least 1;
    /// the last may be shorter) rather than as one, so that a test sees its consumer take
    /// several, in order, pausing when the stream's buffer is full. Requests that do not stream
    /// get the body whole, as ever.
    ///
    /// ```swift
    /// session.stub(.path("/export"), with: .status(200, body: Data(count: 10_000)).inChunks(of: 1_000))
    /// ```
    public func inChunks(of size: Int) -> StubbedResponse {
        var copy = self
        copy.chunkSize = max(1, size)
        return copy
    }

    /// What the session hands to the completion handler for `request`.
    func answer(for request: URLRequest) -> (Data?, URLResponse?, (any Error)?) {
        switch content {
        case .http(let status, let headers, let body):
            switch body {
            case .success(let data):
                return (data, try? HTTPURLResponse.make(url: request.url, statusCode: status, headers: headers), nil)
            case .failure(let error):
                let message = Data("FakeNetworkSession: the stub's body could not be encoded: \(error)".utf8)
                return (message, try? HTTPURLResponse.make(url: request.url, statusCode: 500), nil)
            }
        case .error(let code):
            return (nil, nil, URLError(code, userInfo: request.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:]))
        case .raw(let data, let response, let error):
            return (data, response, error)
        }
    }

    private static func jsonHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        var headers = headers
        if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        return headers
    }
}

/// A stub whose `Encodable` body failed to encode.
struct StubEncodingError: Error {
    let description: String
}
