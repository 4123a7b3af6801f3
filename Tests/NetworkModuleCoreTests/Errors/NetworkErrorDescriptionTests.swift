import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkError descriptions")
struct NetworkErrorDescriptionTests {
    static let urlText = "https://api.example.com/v2/users/1"

    static func response(_ status: Int) -> HTTPErrorResponse {
        HTTPErrorResponse(
            statusCode: status, headers: ["X-Secret-Header": "hdr-secret"], body: Data("body-secret".utf8),
            url: URL(string: urlText))
    }

    static let httpErrors: [NetworkError] = [
        .unauthorized(response(401)), .forbidden(response(403)), .notFound(response(404)),
        .clientError(response(422)), .serverError(response(503)), .unacceptableStatusCode(response(304)),
    ]

    static let otherErrors: [NetworkError] = [
        .invalidRequest(.invalidBaseURL("api.example.com")), .invalidRequest(.invalidPath("a b")),
        .invalidRequest(.invalidMethod("GE T")), .invalidRequest(.invalidHeaderName("Bad Name")),
        .invalidRequest(.invalidHeaderValue(name: "Authorization")), .invalidRequest(.bodyEncodingFailed("boom")),
        .invalidRequest(.invalidTimeout(-1)), .invalidRequest(.missingURL),
        .notConnectedToInternet, .timedOut, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost,
        .secureConnectionFailed(.serverCertificateUntrusted), .transportError(.badServerResponse), .cancelled,
        .underlying(NSError(domain: "x", code: 420, userInfo: [NSLocalizedDescriptionKey: "Enhance your calm"])),
        .timedOut(
            TransportFailure(code: .timedOut, failingURL: URL(string: urlText), message: "The request timed out.")),
        .invalidResponse, .noResponseData,
        .decodingFailed(
            DecodingFailure(typeName: "User", kind: .keyNotFound("id"), codingPath: "", debugDescription: "d")),
        .actionFailed(action: "TokenAction", error: NoToken()),
    ]

    @Test(
        "when any error is described, should give a non-empty text that errorDescription and localizedDescription repeat",
        arguments: httpErrors + otherErrors)
    func nonEmpty(error: NetworkError) {
        #expect(!error.description.isEmpty)
        #expect(error.errorDescription == error.description)
        #expect((error as any Error).localizedDescription == error.description)
    }

    @Test(
        "when an HTTP status error is described, should mention the status and the URL but no header value or body",
        arguments: httpErrors)
    func httpErrorDescription(error: NetworkError) throws {
        let status = try #require(error.statusCode)
        #expect(error.description.hasPrefix("HTTP \(status) from \(Self.urlText)"))
        #expect(!error.description.contains("hdr-secret"))
        #expect(!error.description.contains("body-secret"))
    }

    @Test("when an HTTP status error has no URL, should mention the status alone")
    func httpErrorWithoutURL() {
        #expect(
            NetworkError.serverError(HTTPErrorResponse(statusCode: 500)).description
                == "HTTP 500: the server failed; trying again later may succeed.")
    }

    static let exactTexts: [(NetworkError, String)] = [
        (.notFound(response(404)), "HTTP 404 from \(urlText): check the base URL and the request's path."),
        (
            .unacceptableStatusCode(response(304)),
            "HTTP 304 from \(urlText), which the request's acceptableStatusCodes do not include. It is a redirect that was not followed: check the URL (http or https, a trailing slash) or the Location header."
        ),
        (
            .unacceptableStatusCode(response(204)),
            "HTTP 204 from \(urlText), which the request's acceptableStatusCodes do not include. If this status is a success for this endpoint, add it to acceptableStatusCodes."
        ),
        (
            .clientError(response(429)),
            "HTTP 429 from \(urlText): too many requests. Wait before trying again (the Retry-After header says how long, when the server sends it)."
        ),
        (
            .clientError(response(418)),
            "HTTP 418 from \(urlText): the server rejected the request; its body may say why."
        ),
        (
            .serverError(response(503)),
            "HTTP 503 from \(urlText): the server is unavailable for now; trying again later (after Retry-After, when the server sends it) may succeed."
        ),
        (
            .invalidRequest(.invalidMethod("GE T")),
            #"The request could not be built, so nothing was sent: the method "GE T" is not a valid HTTP method token."#
        ),
        (
            .invalidRequest(.invalidHeaderValue(name: "Authorization")),
            #"The request could not be built, so nothing was sent: the value of header "Authorization" contains a line break or another control character. Check where the value comes from (a token read with a trailing newline is a common cause); it is not shown here, as it may be a secret."#
        ),
        (
            .invalidRequest(.invalidTimeout(-1)),
            "The request could not be built, so nothing was sent: the timeout -1.0 is not a positive number of seconds. Check the request's timeout and the builder's defaultTimeout."
        ),
        (
            .secureConnectionFailed(.serverCertificateUntrusted),
            "The TLS connection failed (URLError code -1202, serverCertificateUntrusted). The server's certificate is not trusted (self-signed, issued by an unknown authority, or for another host name). Check the server's certificate chain, or the certificate pinning configured for it."
        ),
        (
            .transportError(.badServerResponse),
            "The request failed in transport (URLError code -1011, badServerResponse). The server is at fault: it sent something that is not a valid HTTP response (a bad status line, headers or framing, such as a malformed chunk size or Content-Length). Check the server, and that the URL's port serves HTTP (and https is not sent to a plain HTTP port, or the reverse)."
        ),
        (
            .transportError(.unknown),
            "The request failed in transport (URLError code -1, unknown). The session could not say what failed (URLError.unknown); its message, when it gives one, may say more."
        ),
        (
            .transportError(TransportFailure(code: .unknown, message: "Failure when receiving data from the peer")),
            #"The request failed in transport (URLError code -1, unknown). The session could not say what failed (URLError.unknown); its message, when it gives one, may say more. The session said: "Failure when receiving data from the peer""#
        ),
        (
            .timedOut(
                TransportFailure(code: .timedOut, failingURL: URL(string: urlText), message: "The request timed out.")),
            #"The request timed out: no answer came within its timeout (the builder's defaultTimeout unless the request sets one). Check that the server is up and reachable, or raise the timeout. The session said: "The request timed out.""#
        ),
        (
            .underlying(NSError(domain: "x", code: 420, userInfo: [NSLocalizedDescriptionKey: "Enhance your calm."])),
            "The request failed with an error that is not a URLError (x error 420): Enhance your calm. Check the session (a custom session, decorator or fake) that reported it."
        ),
        (
            .cancelled,
            "The request was cancelled by its caller (cancel() on its handle, or its Task's cancellation). Usually there is nothing to show."
        ),
        (
            .decodingFailed(
                DecodingFailure(typeName: "User", kind: .keyNotFound("id"), codingPath: "", debugDescription: "d")),
            #"The response could not be decoded: User: key "id" not found. Check the type against the server's JSON."#
        ),
        (
            .actionFailed(action: "TokenAction", error: NoToken()),
            "The action TokenAction failed the request: no token"
        ),
    ]

    @Test("when described, should give the exact text for each kind of error", arguments: exactTexts)
    func exactText(error: NetworkError, expected: String) {
        #expect(error.description == expected)
    }

    @Test("when the URL of an HTTP error carries a password, should mask it and keep the rest of the URL")
    func passwordInURLMasked() throws {
        let url = try #require(URL(string: "https://ada:s3cret@api.example.com/v2/users/1?page=2"))

        let description = NetworkError.notFound(HTTPErrorResponse(statusCode: 404, url: url)).description

        #expect(description.hasPrefix("HTTP 404 from https://ada:REDACTED@api.example.com/v2/users/1?page=2: "))
        #expect(!description.contains("s3cret"))
    }

    @Test(
        "when a header value is rejected by the builder, should never echo it in any description",
        arguments: ["Bearer s3cr3t-T0ken\r\nX-Admin: 1", "s3cr3t-T0ken\0", "s3cr3t-T0ken\u{7F}"])
    func rejectedValueNotEchoed(value: String) throws {
        struct Request: NetworkRequest {
            var value: String
            var path: String { "me" }
            var headers: HTTPHeaders { ["Authorization": value] }
        }
        let builder = DefaultRequestBuilder(baseURL: try #require(URL(string: "https://api.example.com")))
        let error = #expect(throws: NetworkError.self) { try builder.build(request: Request(value: value)) }
        let thrown = try #require(error)
        #expect(thrown == .invalidRequest(.invalidHeaderValue(name: "Authorization")))
        for text in [
            thrown.description, thrown.errorDescription ?? "", String(describing: thrown), String(reflecting: thrown),
        ] {
            #expect(!text.contains("s3cr3t"))
            #expect(!text.contains("X-Admin"))
        }
    }
}

/// An action's own error, whose description is "no token".
private struct NoToken: LocalizedError {
    var errorDescription: String? { "no token" }
}
