import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session that answers every request at once, inside `resume()`, with the same prepared
/// response: the transport cost is zero, so what is measured is the framework alone.
final class InstantSession: NetworkSession {
    private let body: Data
    private let response: HTTPURLResponse

    /// - Parameter headerFields: the response's header fields besides `Content-Type`.
    init(body: Data, url: URL, headerFields: [String: String] = [:]) {
        self.body = body
        // A benchmark's fixed input: Foundation accepts these values.
        self.response = HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: headerFields.merging(["Content-Type": "application/json"]) { $1 })!
    }

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        InstantTask(body: body, response: response, completionHandler: completionHandler)
    }
}

private struct InstantTask: NetworkSessionTask {
    let body: Data
    let response: HTTPURLResponse
    let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    func resume() {
        completionHandler(body, response, nil)
    }

    func cancel() {}
}
