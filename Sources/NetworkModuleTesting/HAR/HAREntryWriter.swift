import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns one exchange into a HAR entry, with secrets masked: headers, query items, and the
/// secret fields of JSON and form bodies, request and response alike.
struct HAREntryWriter {
    let redaction: Redaction

    func entry(
        request: URLRequest, data: Data?, response: URLResponse?, error: (any Error)?, startedAt: Date,
        milliseconds: Double
    ) -> HARArchive.Entry {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var entry = HARArchive.Entry(
            startedDateTime: formatter.string(from: startedAt),
            time: milliseconds,
            request: harRequest(request),
            response: harResponse(response as? HTTPURLResponse, data: data),
            cache: HARArchive.Cache(),
            timings: HARArchive.Timings(
                blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: milliseconds, receive: 0))
        if let error {
            // Never "\(error)": a URLError's userInfo holds the failing URL, with its password
            // and query, in clear.
            entry.error = redaction.loggable(error)
            entry.urlErrorCode = Self.urlErrorCode(of: error)
        } else if !(response is HTTPURLResponse) {
            entry.error = "no HTTP response"
        }
        return entry
    }

    private func harRequest(_ request: URLRequest) -> HARArchive.Request {
        let url = request.url.map(redaction.redacted)
        let queryItems = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.queryItems } ?? []
        let headers = nameValues(HTTPHeaders(request.allHTTPHeaderFields ?? [:]))
        let body = request.httpBody ?? Data()
        let contentType = request.value(forHTTPHeaderField: "Content-Type")
        var recordedBody = body.isEmpty ? nil : postData(body, contentType: contentType)
        var bodySize = body.count
        if request.httpBodyStream != nil {
            // Never read: the stream is the session's to consume. Say so rather than record "".
            recordedBody = Self.streamPostData(length: request.knownBodyLength, contentType: contentType)
            bodySize = request.knownBodyLength ?? -1
        }
        return HARArchive.Request(
            method: request.httpMethod ?? "GET",
            url: url?.absoluteString ?? "",
            httpVersion: "HTTP/1.1",
            headers: headers,
            queryString: queryItems.map { HARArchive.NameValue(name: $0.name, value: $0.value ?? "") },
            postData: recordedBody,
            headersSize: -1,
            bodySize: bodySize,
            cookies: [])
    }

    /// The post data of a body stream: its type, no text, and a comment saying why.
    static func streamPostData(length: Int?, contentType: String?) -> HARArchive.PostData {
        let size = length.map { "\($0) bytes" } ?? "unknown length"
        return HARArchive.PostData(
            mimeType: contentType ?? "application/octet-stream", text: nil, encoding: nil,
            comment: "body stream (\(size)) not recorded: reading it would consume what the request sends")
    }

    private func postData(_ body: Data, contentType: String?) -> HARArchive.PostData {
        let (text, encoding) = HARBody.text(of: redaction.writableBody(body, contentType: contentType))
        return HARArchive.PostData(mimeType: contentType ?? "application/octet-stream", text: text, encoding: encoding)
    }

    private func harResponse(_ response: HTTPURLResponse?, data: Data?) -> HARArchive.Response {
        let body = data ?? Data()
        let headers = HTTPHeaders(response?.allHeaderFields ?? [:])
        // Masked like the request's body: a token endpoint's answer holds the tokens.
        let (text, encoding) = HARBody.text(of: redaction.writableBody(body, contentType: headers["Content-Type"]))
        return HARArchive.Response(
            status: response?.statusCode ?? 0,
            statusText: response.map { HTTPURLResponse.localizedString(forStatusCode: $0.statusCode) } ?? "",
            httpVersion: "HTTP/1.1",
            headers: nameValues(headers),
            content: HARArchive.Content(
                size: body.count, mimeType: headers["Content-Type"] ?? "", text: text, encoding: encoding),
            redirectURL: headers["Location"].map { redaction.value($0, forHeader: "Location") } ?? "",
            headersSize: -1,
            bodySize: response == nil ? -1 : body.count,
            cookies: [])
    }

    /// `headers` masked and sorted by name, so archives of the same traffic are the same.
    private func nameValues(_ headers: HTTPHeaders) -> [HARArchive.NameValue] {
        redaction.redacted(headers)
            .map { HARArchive.NameValue(name: $0.name, value: $0.value) }
            .sorted { ($0.name.lowercased(), $0.value) < ($1.name.lowercased(), $1.value) }
    }

    private static func urlErrorCode(of error: any Error) -> Int {
        if let urlError = error as? URLError { return urlError.code.rawValue }
        if let code = (error as? NetworkError)?.urlErrorCode { return code.rawValue }
        let nsError = error as NSError
        return nsError.domain == NSURLErrorDomain ? nsError.code : URLError.Code.unknown.rawValue
    }
}
