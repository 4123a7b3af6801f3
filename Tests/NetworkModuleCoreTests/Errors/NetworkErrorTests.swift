import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkError")
struct NetworkErrorTests {
    struct APIError: Decodable, Equatable {
        var code: String
        var message: String
    }

    static let url = URL(string: "https://api.example.com/v2/users/1")

    static func response(_ status: Int, body: String = "", headers: HTTPHeaders = [:]) -> HTTPErrorResponse {
        HTTPErrorResponse(statusCode: status, headers: headers, body: Data(body.utf8), url: url)
    }

    static func httpError(_ status: Int, body: String = "") -> NetworkError {
        NetworkError(response: response(status, body: body))
    }

    // MARK: - URLError mapping

    @Test(
        "when a URLError code has a case of its own, should map to it",
        arguments: [
            (URLError.Code.cancelled, NetworkError.cancelled),
            (.notConnectedToInternet, .notConnectedToInternet),
            (.dataNotAllowed, .notConnectedToInternet),
            (.internationalRoamingOff, .notConnectedToInternet),
            (.timedOut, .timedOut),
            (.cannotFindHost, .cannotFindHost),
            (.dnsLookupFailed, .cannotFindHost),
            (.cannotConnectToHost, .cannotConnectToHost),
            (.networkConnectionLost, .networkConnectionLost),
        ])
    func urlErrorMapping(code: URLError.Code, expected: NetworkError) {
        #expect(NetworkError(URLError(code)) == expected)
        #expect(NetworkError(URLError(code)) == expected)
    }

    @Test(
        "when a URLError code is a TLS failure, should map to secureConnectionFailed keeping the code",
        arguments: [
            URLError.Code.secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired,
        ])
    func tlsMapping(code: URLError.Code) {
        #expect(NetworkError(URLError(code)) == .secureConnectionFailed(code))
        #expect(NetworkError(URLError(code)) == .secureConnectionFailed(code))
        #expect(NetworkError(URLError(code)).urlErrorCode == code)
    }

    @Test(
        "when a URLError code has no case of its own, should map to transportError keeping the code",
        arguments: [
            URLError.Code.unknown, .badURL, .unsupportedURL, .badServerResponse, .cannotParseResponse,
            .httpTooManyRedirects, .resourceUnavailable, .zeroByteResource, .cannotDecodeRawData,
            .userAuthenticationRequired, .fileDoesNotExist,
        ])
    func transportMapping(code: URLError.Code) {
        #expect(NetworkError(URLError(code)) == .transportError(code))
        #expect(NetworkError(URLError(code)) == .transportError(code))
        #expect(NetworkError(URLError(code)).urlErrorCode == code)
    }

    @Test("when a session reports an NSError in the URL error domain, should map it by its code")
    func sessionNSError() {
        let error = NSError(domain: NSURLErrorDomain, code: URLError.Code.timedOut.rawValue)
        #expect(NetworkError(error) == .timedOut)
    }

    @Test("when a session reports a NetworkError, should pass it on as it is")
    func sessionNetworkError() {
        #expect(NetworkError(NetworkError.noResponseData) == .noResponseData)
    }

    @Test("when a session reports an error from another domain, should keep its domain, code and message")
    func sessionOtherError() throws {
        let nsError = NSError(domain: "x", code: 420, userInfo: [NSLocalizedDescriptionKey: "Enhance your calm"])

        let error = NetworkError(nsError)

        guard case .underlying(let underlying) = error else {
            Issue.record("expected .underlying, got \(error)")
            return
        }
        #expect((underlying as NSError) === nsError)
        #expect(error.description.contains("x error 420"))
        #expect(error.description.contains("Enhance your calm"))
        #expect(
            error == .underlying(NSError(domain: "x", code: 420, userInfo: [NSLocalizedDescriptionKey: "other words"])))
        #expect(
            error
                != .underlying(
                    NSError(domain: "x", code: 421, userInfo: [NSLocalizedDescriptionKey: "Enhance your calm"])))
        #expect(error != .underlying(NSError(domain: "y", code: 420)))
        #expect(error != .transportError(.unknown))
        #expect(!error.isRetryable)
        #expect(error.urlErrorCode == nil)
    }

    @Test("when a session reports a Swift error, should keep it, castable back, with its description")
    func sessionSwiftError() throws {
        struct Odd: Error, LocalizedError {
            var errorDescription: String? { "odd thing" }
        }

        let error = NetworkError(Odd())

        guard case .underlying(let underlying) = error else {
            Issue.record("expected .underlying, got \(error)")
            return
        }
        #expect(underlying is Odd)
        #expect(error.description.contains("odd thing"))
    }

    @Test("when Swift concurrency's CancellationError is mapped, should be .cancelled")
    func cancellationError() {
        #expect(NetworkError(CancellationError()) == .cancelled)
    }

    // MARK: - HTTP status mapping

    @Test(
        "when an HTTP status is not accepted, should map it to the matching case",
        arguments: [
            (401, "unauthorized"), (403, "forbidden"), (404, "notFound"),
            (400, "clientError"), (402, "clientError"), (405, "clientError"), (408, "clientError"),
            (409, "clientError"), (422, "clientError"), (429, "clientError"), (499, "clientError"),
            (500, "serverError"), (501, "serverError"), (503, "serverError"), (599, "serverError"),
            (100, "unacceptableStatusCode"), (204, "unacceptableStatusCode"), (304, "unacceptableStatusCode"),
            (399, "unacceptableStatusCode"), (600, "unacceptableStatusCode"),
        ])
    func statusMapping(status: Int, expected: String) {
        let response = Self.response(status, body: "{}")
        let error = NetworkError(response: response)
        let expectedError: NetworkError =
            switch expected {
            case "unauthorized": .unauthorized(response)
            case "forbidden": .forbidden(response)
            case "notFound": .notFound(response)
            case "clientError": .clientError(response)
            case "serverError": .serverError(response)
            default: .unacceptableStatusCode(response)
            }
        #expect(error == expectedError)
        #expect(error.httpErrorResponse == response)
        #expect(error.statusCode == status)
        #expect(error.urlErrorCode == nil)
    }

    @Test(
        "when the error is not an HTTP status error, should have no response and no status code",
        arguments: [
            NetworkError.invalidRequest(.missingURL), .timedOut, .cancelled, .invalidResponse, .noResponseData,
            .transportError(.badServerResponse), .actionFailed(action: "A", error: NoToken()),
        ])
    func noHTTPResponse(error: NetworkError) {
        #expect(error.httpErrorResponse == nil)
        #expect(error.statusCode == nil)
    }

    // MARK: - urlErrorCode

    @Test(
        "when the error is a transport error or cancellation, should give its URLError code",
        arguments: [
            (NetworkError.notConnectedToInternet, URLError.Code.notConnectedToInternet),
            (.timedOut, .timedOut),
            (.cannotFindHost, .cannotFindHost),
            (.cannotConnectToHost, .cannotConnectToHost),
            (.networkConnectionLost, .networkConnectionLost),
            (.secureConnectionFailed(.serverCertificateUntrusted), .serverCertificateUntrusted),
            (.transportError(.badServerResponse), .badServerResponse),
            (.cancelled, .cancelled),
        ])
    func urlErrorCode(error: NetworkError, code: URLError.Code) {
        #expect(error.urlErrorCode == code)
    }

    @Test(
        "when the error is not a transport error, should have no URLError code",
        arguments: [
            NetworkError.invalidRequest(.invalidMethod("x")), .invalidResponse, .noResponseData,
            .decodingFailed(DecodingFailure(typeName: "T", kind: .other, codingPath: "", debugDescription: "d")),
            .actionFailed(action: "A", error: NoToken()),
        ])
    func noURLErrorCode(error: NetworkError) {
        #expect(error.urlErrorCode == nil)
    }

    // MARK: - isRetryable

    @Test(
        "when an HTTP status is transient, should be retryable; otherwise not",
        arguments: [
            (408, true), (429, true), (500, true), (502, true), (503, true), (504, true),
            (400, false), (401, false), (403, false), (404, false), (409, false), (422, false),
            (501, false), (505, false), (304, false),
        ])
    func retryableStatus(status: Int, retryable: Bool) {
        #expect(Self.httpError(status).isRetryable == retryable)
    }

    @Test(
        "when a transport failure is transient, should be retryable",
        arguments: [NetworkError.timedOut, .networkConnectionLost, .notConnectedToInternet, .cannotConnectToHost])
    func retryableTransport(error: NetworkError) {
        #expect(error.isRetryable)
    }

    @Test(
        "when the failure would happen again or was asked for, should not be retryable",
        arguments: [
            NetworkError.cancelled, .cannotFindHost, .secureConnectionFailed(.serverCertificateUntrusted),
            .transportError(.badServerResponse), .transportError(.unknown), .invalidResponse, .noResponseData,
            .invalidRequest(.invalidHeaderValue(name: "X")),
            .decodingFailed(
                DecodingFailure(typeName: "T", kind: .dataCorrupted, codingPath: "", debugDescription: "d")),
            .actionFailed(action: "A", error: NoToken()),
        ])
    func notRetryable(error: NetworkError) {
        #expect(!error.isRetryable)
    }

    // MARK: - A failure for lack of network

    @Test(
        "when a transport failure's code says there is no network, or the connection was lost, should be one for lack of network",
        arguments: [
            URLError.Code.notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive,
            .networkConnectionLost,
        ])
    func lackOfNetwork(code: URLError.Code) {
        #expect(NetworkError.isLackOfNetwork(code))
        #expect(NetworkError(transportFailure: TransportFailure(code: code)).isConnectivityFailure)
    }

    @Test(
        "when a transport failure's code is about the server, the request or the caller, should not be one for lack of network",
        arguments: [
            URLError.Code.timedOut, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .badServerResponse,
            .cannotParseResponse, .zeroByteResource, .resourceUnavailable, .httpTooManyRedirects, .unknown,
            .secureConnectionFailed, .serverCertificateUntrusted, .badURL, .unsupportedURL, .cancelled,
        ])
    func notLackOfNetwork(code: URLError.Code) {
        #expect(!NetworkError.isLackOfNetwork(code))
        #expect(!NetworkError(transportFailure: TransportFailure(code: code)).isConnectivityFailure)
    }

    @Test(
        "when the failure is not a transport failure, should not be one for lack of network",
        arguments: [
            NetworkError.cancelled, .invalidResponse, .noResponseData, .responseTooLarge(limit: 1),
            .underlying(NoToken()), .actionFailed(action: "A", error: NoToken()),
        ])
    func notTransport(error: NetworkError) {
        #expect(!error.isConnectivityFailure)
    }

    @Test("when the server cuts a body short behind a Content-Length, should be one for lack of network")
    func bodyCutShortByFraming() throws {
        // What the transport reports when the session delivers a short body as a success.
        let url = try #require(Self.url)
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "1000"]))
        let code = try #require(ResponseFraming.failure(of: response, method: "GET", receivedBytes: 100))

        #expect(NetworkError(transportFailure: TransportFailure(code: code)).isConnectivityFailure)
    }

    #if canImport(FoundationNetworking)
        @Test(
            "when libcurl reports a body cut short (as the fault server's /flaky?first=cut does), should be one for lack of network"
        )
        func bodyCutShortOnTheWire() {
            // libcurl's message for a body cut short, which the transport reported (as
            // `.networkConnectionLost`) for each of 1,600 bodies the fault server cut off on a
            // loaded two-core machine.
            let wire = URLError(
                .unknown, userInfo: [NSLocalizedDescriptionKey: "transfer closed with 900 bytes remaining to read"])

            let error = NetworkError(LinuxURLSessionQuirks.normalized(wire, sentTo: Self.url))

            #expect(error == .networkConnectionLost)
            #expect(error.isConnectivityFailure)
        }
    #endif

    // MARK: - Decoding a status error's body

    @Test("when an HTTP error's body is the server's error JSON, should decode it")
    func decodedBody() {
        let error = Self.httpError(422, body: #"{"code":"invalid_email","message":"Email is invalid"}"#)
        #expect(
            (try? error.httpErrorResponse?.decodeBody(as: APIError.self))
                == APIError(code: "invalid_email", message: "Email is invalid"))
    }

    @Test("when the error body is decoded with a decoder, should use it")
    func decodedBodyWithDecoder() {
        struct SnakeError: Decodable, Equatable { var errorCode: Int }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let error = Self.httpError(500, body: #"{"error_code":7}"#)
        #expect(
            (try? error.httpErrorResponse?.decodeBody(as: SnakeError.self, decoder: decoder))
                == SnakeError(errorCode: 7))
        #expect((try? error.httpErrorResponse?.decodeBody(as: SnakeError.self)) == nil)
    }

    @Test(
        "when the body is empty or not the expected JSON, or the error has no body, should return nil",
        arguments: [
            NetworkErrorTests.httpError(404), NetworkErrorTests.httpError(404, body: "<html>Not Found</html>"),
            NetworkErrorTests.httpError(404, body: #"{"code":1}"#),
            NetworkError.timedOut, .cancelled,
        ])
    func decodedBodyNil(error: NetworkError) {
        #expect((try? error.httpErrorResponse?.decodeBody(as: APIError.self)) == nil)
    }

    // MARK: - Equatable

    @Test("when two errors are the same case with equal payloads, should be equal")
    func equality() {
        #expect(NetworkError.timedOut == .timedOut)
        #expect(NetworkError.transportError(.badURL) == .transportError(.badURL))
        #expect(NetworkError.invalidRequest(.invalidHeaderName("a b")) == .invalidRequest(.invalidHeaderName("a b")))
        let lhs = HTTPErrorResponse(
            statusCode: 404, headers: ["Content-Type": "text/plain", "X-Id": "1"], body: Data("x".utf8), url: Self.url)
        let rhs = HTTPErrorResponse(
            statusCode: 404, headers: ["x-id": "1", "content-type": "text/plain"], body: Data("x".utf8), url: Self.url)
        #expect(NetworkError.notFound(lhs) == .notFound(rhs))
    }

    @Test("when two status errors differ only in the response's headers or URL, should be equal")
    func statusErrorsCompareWhatTheServerSaid() {
        let response = Self.response(404, body: "x")
        #expect(NetworkError.notFound(response) == .notFound(Self.response(404, body: "x", headers: ["A": "1"])))
        #expect(NetworkError.notFound(response) == .notFound(HTTPErrorResponse(statusCode: 404, body: Data("x".utf8))))
    }

    @Test("when two errors differ in case or in any part of their payload, should not be equal")
    func inequality() {
        let response = Self.response(404, body: "x")
        #expect(NetworkError.timedOut != .cancelled)
        #expect(NetworkError.transportError(.badURL) != .transportError(.unknown))
        #expect(
            NetworkError.secureConnectionFailed(.serverCertificateUntrusted)
                != .secureConnectionFailed(.secureConnectionFailed))
        #expect(NetworkError.transportError(.timedOut) != .timedOut)
        #expect(NetworkError.notFound(response) != .clientError(response))
        #expect(NetworkError.notFound(response) != .notFound(Self.response(404, body: "y")))
        #expect(NetworkError.invalidRequest(.invalidTimeout(0)) != .invalidRequest(.invalidTimeout(-1)))
        #expect(NetworkError.invalidRequest(.invalidPath("a")) != .invalidRequest(.invalidBaseURL("a")))
        let failure = DecodingFailure(typeName: "User", kind: .keyNotFound("id"), codingPath: "", debugDescription: "d")
        let elsewhere = DecodingFailure(
            typeName: "User", kind: .keyNotFound("id"), codingPath: "items[0]", debugDescription: "d")
        #expect(NetworkError.decodingFailed(failure) != .decodingFailed(elsewhere))
    }

    @Test("when two action failures have the same action and error domain and code, should be equal")
    func actionFailureEquality() {
        struct Other: Error {}
        let failure = NetworkError.actionFailed(action: "TokenAction", error: NoToken())

        #expect(failure == .actionFailed(action: "TokenAction", error: NoToken()))
        #expect(failure != .actionFailed(action: "Other", error: NoToken()))
        #expect(failure != .actionFailed(action: "TokenAction", error: Other()))
        #expect(
            NetworkError.actionFailed(action: "A", error: NSError(domain: "x", code: 1))
                != .actionFailed(action: "A", error: NSError(domain: "x", code: 2)))
        #expect(failure.description == "The action TokenAction failed the request: no token")
    }
}

/// An action's own error, whose description is "no token".
private struct NoToken: LocalizedError {
    var errorDescription: String? { "no token" }
}
