import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkError conversions and detail")
struct NetworkErrorConversionTests {
    static let failingURL = URL(string: "https://api.example.com/v2/users/1")!

    // MARK: - Transport errors keep their cause

    @Test("when a URLError has a message and a failing URL, should keep code, URL and message")
    func urlErrorKeepsDetail() {
        let urlError = URLError(
            .timedOut,
            userInfo: [
                NSLocalizedDescriptionKey: "The request timed out.", NSURLErrorFailingURLErrorKey: Self.failingURL,
            ])

        let error = NetworkError(urlError)

        #expect(error == .timedOut)
        #expect(
            error.transportFailure
                == TransportFailure(code: .timedOut, failingURL: Self.failingURL, message: "The request timed out."))
        #expect(
            error.description.hasSuffix(
                #" The session said: "The request timed out.""#))
        #expect(error.isRetryable)
    }

    @Test("when an NSError in the URL error domain has a message and a failing URL string, should keep them")
    func nsErrorKeepsDetail() {
        let nsError = NSError(
            domain: NSURLErrorDomain, code: URLError.Code.badServerResponse.rawValue,
            userInfo: [
                NSLocalizedDescriptionKey: "bad response", "NSErrorFailingURLStringKey": Self.failingURL.absoluteString,
            ])

        let error = NetworkError(nsError)

        #expect(error == .transportError(.badServerResponse))
        #expect(error.transportFailure?.message == "bad response")
        #expect(error.transportFailure?.failingURL == Self.failingURL)
    }

    @Test("when pinning is refused on a platform that cannot enforce it, the message should reach the description")
    func pinningMessageReachesDescription() {
        let error = NetworkError(LinuxURLSessionQuirks.pinningUnsupportedError(url: Self.failingURL))

        #expect(error == .secureConnectionFailed(.secureConnectionFailed))
        #expect(
            error.description.contains(
                "Pinning (URLSessionTransport serverTrust: .pinnedCertificates or .pinnedPublicKeys)"))
        #expect(error.transportFailure?.failingURL == Self.failingURL)
    }

    @Test("when a failing URL holds a password or a secret query item, the description should show neither")
    func failingURLSecretsNotDescribed() throws {
        let url = try #require(URL(string: "https://ada:s3cret@api.example.com/v2?api_key=k3y"))

        let error = NetworkError.cannotConnectToHost(TransportFailure(code: .cannotConnectToHost, failingURL: url))

        #expect(!error.description.contains("s3cret"))
        #expect(!error.description.contains("k3y"), "a log's redaction may know more secret names than the default")
        #expect(error.transportFailure.map { String(describing: $0).contains("s3cret") } == false)
    }

    @Test("when a URLError code maps to a named case, should keep the session's own code")
    func namedCaseKeepsCode() {
        let error = NetworkError(URLError(.dataNotAllowed))

        #expect(error == .notConnectedToInternet)
        #expect(error.urlErrorCode == .dataNotAllowed)
    }

    // MARK: - Equality and patterns

    @Test("when two transport errors differ only in URL or message, should be equal; other codes should not")
    func equalityIgnoresOccurrenceDetail() {
        let one = NetworkError.secureConnectionFailed(TransportFailure(code: .serverCertificateUntrusted, message: "a"))
        let two = NetworkError.secureConnectionFailed(
            TransportFailure(code: .serverCertificateUntrusted, failingURL: Self.failingURL, message: "b"))

        #expect(one == two)
        #expect(one == .secureConnectionFailed(.serverCertificateUntrusted))
        #expect(one != .secureConnectionFailed(.serverCertificateHasBadDate))
        #expect(NetworkError.timedOut(TransportFailure(code: .timedOut, message: "x")) == .timedOut)
        #expect(NetworkError.timedOut != .cannotConnectToHost)
    }

    @Test("when matched with patterns, should match by case, by case and code, and in catch clauses")
    func patterns() {
        let untrusted = NetworkError(URLError(.serverCertificateUntrusted))
        let timedOut = NetworkError(URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "late"]))

        let byCode: String =
            switch untrusted {
            case .secureConnectionFailed(.serverCertificateHasBadDate): "bad date"
            case .secureConnectionFailed(.serverCertificateUntrusted): "untrusted"
            default: "other"
            }
        let byCase: String =
            switch timedOut {
            case .timedOut: "timed out"
            default: "other"
            }
        var caught = false
        do { throw timedOut } catch NetworkError.timedOut { caught = true } catch {}

        #expect(byCode == "untrusted")
        #expect(byCase == "timed out")
        #expect(caught)
    }

    // MARK: - Building errors from responses and status codes

    @Test("when made from an HTTPURLResponse and a body, should map the status and keep headers, body and URL")
    func fromHTTPURLResponse() throws {
        let response = try #require(
            HTTPURLResponse(
                url: Self.failingURL, statusCode: 404, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"]))
        let body = Data(#"{"error":"gone"}"#.utf8)

        let error = NetworkError(response: response, body: body)

        guard case .notFound(let errorResponse) = error else {
            Issue.record("expected .notFound, got \(error)")
            return
        }
        #expect(errorResponse.statusCode == 404)
        #expect(errorResponse.headers["content-type"] == "application/json")
        #expect(errorResponse.body == body)
        #expect(errorResponse.url == Self.failingURL)
    }

    @Test(
        "when made from a status code, should map it as a response's status, for any Int",
        arguments: [
            (401, "unauthorized"), (403, "forbidden"), (404, "notFound"), (418, "clientError"), (503, "serverError"),
            (200, "unacceptableStatusCode"), (302, "unacceptableStatusCode"), (0, "unacceptableStatusCode"),
            (-1, "unacceptableStatusCode"), (Int.min, "unacceptableStatusCode"), (Int.max, "unacceptableStatusCode"),
        ])
    func fromStatusCode(status: Int, expected: String) {
        let error = NetworkError(statusCode: status, body: Data("b".utf8))

        #expect(Self.kind(of: error) == expected)
        #expect(error.statusCode == status)
        #expect(error.httpErrorResponse?.body == Data("b".utf8))
        #expect(!error.description.isEmpty)
    }

    // MARK: - End to end

    @Test("when a session answers a non-URL NSError, the module's caller should see its domain, code and message")
    func sessionNSErrorReachesCaller() {
        let session = FakeNetworkSession()
        session.stub(
            .any,
            with: .raw(
                data: nil, response: nil,
                error: NSError(domain: "x", code: 420, userInfo: [NSLocalizedDescriptionKey: "Enhance your calm"])))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session).perform(request: TestRequest(), completion: results.completion)

        guard case .underlying(let underlying)? = results.singleError else {
            Issue.record("expected .underlying, got \(String(describing: results.singleError))")
            return
        }
        #expect((underlying as NSError).domain == "x")
        #expect((underlying as NSError).code == 420)
        #expect(results.singleError?.description.contains("x error 420") == true)
        #expect(results.singleError?.localizedDescription.contains("Enhance your calm") == true)
    }

    @Test("when a session answers a URLError, the module's caller should see its failing URL and message")
    func sessionURLErrorReachesCaller() {
        let session = FakeNetworkSession()
        session.stub(
            .any,
            with: .raw(
                data: nil, response: nil,
                error: URLError(
                    .cannotConnectToHost,
                    userInfo: [
                        NSLocalizedDescriptionKey: "Connection refused", NSURLErrorFailingURLErrorKey: Self.failingURL,
                    ])))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session).perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleError == .cannotConnectToHost)
        #expect(results.singleError?.transportFailure?.message == "Connection refused")
        #expect(results.singleError?.transportFailure?.failingURL == Self.failingURL)
        #expect(results.singleError?.description.contains("Connection refused") == true)
    }

    static func kind(of error: NetworkError) -> String {
        switch error {
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "notFound"
        case .clientError: "clientError"
        case .serverError: "serverError"
        case .unacceptableStatusCode: "unacceptableStatusCode"
        default: "other"
        }
    }
}
