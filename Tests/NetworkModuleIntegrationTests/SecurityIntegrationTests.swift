import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension IntegrationServers {
    /// An HTTPS server with a self-signed certificate (scripts/servers.py): `{"tls":true}` on every GET.
    static let tlsURL = environment["NETWORK_MODULE_TLS_URL"].flatMap(URL.init(string:))
    /// That server's certificate, PEM.
    static let tlsCertificatePath = environment["NETWORK_MODULE_TLS_CERT"]
    /// The fault server's log: one line per request received, with its target.
    static let faultServerLogPath = environment["NETWORK_MODULE_FAULT_SERVER_LOG"]

    static func tlsServer() throws -> URL {
        try #require(tlsURL, "NETWORK_MODULE_TLS_URL is not set: scripts/servers.py needs openssl")
    }

    /// The TLS server's certificate in DER form, for pinning.
    static func tlsCertificate() throws -> Data {
        let path = try #require(tlsCertificatePath, "NETWORK_MODULE_TLS_CERT is not set")
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return try #require(Data(base64Encoded: base64), "\(path) is not a PEM certificate")
    }

    /// The fault server's log as it is now.
    static func faultServerLog() throws -> String {
        let path = try #require(faultServerLogPath, "NETWORK_MODULE_FAULT_SERVER_LOG is not set")
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}

/// Outcome of a plain session call, on any `NetworkSession` (URLSession included).
private func sessionOutcome(_ session: some NetworkSession, _ request: URLRequest) async
    -> (data: Data?, response: HTTPURLResponse?, error: (any Error)?)
{
    await withCheckedContinuation { continuation in
        session.dataTask(with: request) { data, response, error in
            continuation.resume(returning: (data, response as? HTTPURLResponse, error))
        }.resume()
    }
}

/// TLS against a server with a self-signed certificate on loopback: refused by default with a
/// clear error, on the framework's transport and on a plain URLSession; trusted only through
/// the explicit pinning opt-in, which fails closed where it cannot be enforced (Linux).
@Suite(
    "Integration: TLS", .integration,
    .enabled(
        if: IntegrationServers.tlsURL != nil || IntegrationServers.isCI,
        "no TLS server: scripts/servers.py starts one when openssl is installed"))
struct TLSIntegrationTests {
    /// A transport that pins the TLS server's own certificate.
    static func pinningTransport() throws -> URLSessionTransport {
        URLSessionTransport(
            configuration: .ephemeral, serverTrust: .pinnedCertificates([try IntegrationServers.tlsCertificate()]))
    }

    @Test("when the server's certificate is self-signed, URLSessionTransport should fail with .secureConnectionFailed")
    func transportRejectsSelfSigned() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.tlsServer())

        let result = await module.outcome(of: Endpoint(path: "/get"))

        #expect(result.error == .secureConnectionFailed(.serverCertificateUntrusted))
    }

    @Test(
        "when the server's certificate is self-signed, a plain URLSession should fail with .secureConnectionFailed too")
    func plainURLSessionRejectsSelfSigned() async throws {
        let session = URLSessionAdapter(URLSession(configuration: .ephemeral))
        let module = IntegrationServers.module(baseURL: try IntegrationServers.tlsServer(), session: session)

        let result = await module.outcome(of: Endpoint(path: "/get"))

        #expect(result.error == .secureConnectionFailed(.serverCertificateUntrusted))
    }

    @Test("when the TLS failure reaches the session's caller, should keep the platform's message")
    func transportKeepsTheMessage() async throws {
        let url = try IntegrationServers.tlsServer().appendingPathComponent("get")

        let outcome = await sessionOutcome(IntegrationServers.makeSession(), URLRequest(url: url))

        let error = try #require(outcome.error as? URLError)
        #expect(error.code == .serverCertificateUntrusted)
        #if canImport(FoundationNetworking)
            #expect(error.localizedDescription.contains("SSL certificate problem"))
        #endif
    }

    #if canImport(FoundationNetworking)
        @Test(
            "when the server's certificate or a key is pinned on Linux, should fail closed instead of sending unpinned",
            arguments: [false, true])
        func pinnedFailsClosedOnLinux(pinningKeys: Bool) async throws {
            let transport =
                pinningKeys
                ? URLSessionTransport(
                    configuration: .ephemeral,
                    serverTrust: .pinnedPublicKeys(sha256: ["syylW4P+74BB0/bnZ0t8SVx37Log0yKeCCk7w6G4NKw="]))
                : try Self.pinningTransport()
            let module = IntegrationServers.module(baseURL: try IntegrationServers.tlsServer(), session: transport)

            let result = await module.outcome(of: Endpoint(path: "/get"))

            #expect(result.error == .secureConnectionFailed(.secureConnectionFailed))
        }

        @Test("when an HTTP request to a pinning transport redirects to HTTPS on Linux, should fail closed, not follow")
        func pinnedRedirectToHTTPSFailsClosedOnLinux() async throws {
            let target = try IntegrationServers.tlsServer().appendingPathComponent("get").absoluteString
            let transport = try Self.pinningTransport()
            let request = URLRequest(
                url: try #require(URL(string: "\(try IntegrationServers.faultServer())/redirect-to?url=\(target)")))

            let outcome = await sessionOutcome(transport, request)

            let error = try #require(outcome.error as? URLError)
            #expect(error.code == .secureConnectionFailed)
            #expect(error.localizedDescription.contains("not supported by URLSession on this platform"))
            #expect(outcome.data == nil)
        }

        @Test("when a pinning transport sends plain HTTP on Linux, should send it: pinning is about TLS")
        func pinnedPlainHTTPStillWorksOnLinux() async throws {
            let transport = try Self.pinningTransport()
            let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer(), session: transport)

            let result = await module.outcome(of: Endpoint(path: "/health"))

            #expect((try? result.get())?.statusCode == 200)
        }
    #else
        @Test("when the server's certificate is pinned, should trust it")
        func pinnedCertificateIsTrusted() async throws {
            let transport = try Self.pinningTransport()
            let module = IntegrationServers.module(baseURL: try IntegrationServers.tlsServer(), session: transport)

            let result = await module.outcome(of: Endpoint(path: "/get"))

            #expect((try? result.get())?.statusCode == 200)
        }

        @Test("when another certificate is pinned, should reject the server with .secureConnectionFailed")
        func otherPinIsRejected() async throws {
            var other = try IntegrationServers.tlsCertificate()
            other[other.count / 2] ^= 0xFF
            let transport = URLSessionTransport(configuration: .ephemeral, serverTrust: .pinnedCertificates([other]))
            let module = IntegrationServers.module(baseURL: try IntegrationServers.tlsServer(), session: transport)

            let result = await module.outcome(of: Endpoint(path: "/get"))

            #expect(result.error == .secureConnectionFailed(.serverCertificateUntrusted))
        }
    #endif
}

/// Header injection on the wire: the fault server's `/echo` shows what a plain URLSession
/// sends for a CR/LF in a header value, and its log shows that the framework sent nothing.
@Suite("Integration: header injection", .integration)
struct HeaderInjectionIntegrationTests {
    /// An `/echo` URL with a marker of its own, to find the request in the server's log.
    static func echoURL(marker: String) throws -> URL {
        try #require(URL(string: "\(try IntegrationServers.faultServer())/echo?marker=\(marker)"))
    }

    static func injectedRequest(marker: String) throws -> URLRequest {
        var request = URLRequest(url: try echoURL(marker: marker))
        request.allHTTPHeaderFields = ["X-Marker": "safe\r\nX-Injected: \(marker)"]
        return request
    }

    @Test(
        "when a header value set through allHTTPHeaderFields holds CR/LF, a plain URLSession should send the injected header (pinned)"
    )
    func plainURLSessionSendsInjectedHeader() async throws {
        let marker = "plain-\(UUID().uuidString)"
        let request = try Self.injectedRequest(marker: marker)

        let outcome = await sessionOutcome(URLSessionAdapter(URLSession(configuration: .ephemeral)), request)

        let data = try #require(outcome.data, "no response: \(String(describing: outcome.error))")
        let echo = try JSONDecoder().decode(WireEcho.self, from: data)
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation passes the value to libcurl as it is: a second header
            // reaches the server. If this fails, Foundation changed: update SECURITY.md.
            #expect(echo.headerValues("X-Injected") == [marker])
        #else
            #expect(echo.headerValues("X-Injected").isEmpty)
        #endif
    }

    @Test("when the same request goes through the framework, should reject it before sending: the server never sees it")
    func frameworkRejectsBeforeSending() async throws {
        let marker = "framework-\(UUID().uuidString)"
        let controlMarker = "control-\(UUID().uuidString)"
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.faultServer(),
            actions: [BuiltInAction.header("X-Action") { _ in "safe\r\nX-Injected: \(marker)" }])
        let cleanModule = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let injected = try Self.injectedRequest(marker: marker)

        let raw = await withCheckedContinuation { continuation in
            cleanModule.perform(urlRequest: injected) { continuation.resume(returning: $0) }
        }
        let built = await cleanModule.outcome(
            of: Endpoint(
                path: "/echo", queryItems: [URLQueryItem(name: "marker", value: marker)],
                headers: ["X-Marker": "safe\r\nX-Injected: \(marker)"]))
        let actionAdded = await module.outcome(
            of: Endpoint(path: "/echo", queryItems: [URLQueryItem(name: "marker", value: marker)]))
        let control = await cleanModule.outcome(
            of: Endpoint(path: "/echo", queryItems: [URLQueryItem(name: "marker", value: controlMarker)]))

        #expect(raw.error == .invalidRequest(.invalidHeaderValue(name: "X-Marker")))
        #expect(built.error == .invalidRequest(.invalidHeaderValue(name: "X-Marker")))
        #expect(actionAdded.error == .invalidRequest(.invalidHeaderValue(name: "X-Action")))
        #expect((try? control.get())?.statusCode == 200)
        let log = try IntegrationServers.faultServerLog()
        #expect(log.contains(controlMarker), "the log records requests: the control request is in it")
        #expect(!log.contains(marker), "a rejected request reached the fault server")
    }
}

/// The lifetime check of `LifetimeTests` on the real transport: after a burst against httpbin,
/// the transport, its decorators, the module and its actions are all freed.
@Suite("Integration: lifetime", .integration)
struct LifetimeIntegrationTests {
    final class Sentinel: Sendable {}

    @Test(
        "when a burst against httpbin has finished and the module is released, should free the transport and everything above it"
    )
    func transportBurstThenRelease() async throws {
        weak var weakTransport: URLSessionTransport?
        weak var weakCached: CachedSession?
        weak var weakDeduplicated: DeduplicatedSession?
        weak var weakThrottled: ThrottledSession?
        weak var weakModule: DefaultNetworkModule?
        weak var weakAuthentication: AuthenticationAction?
        weak var weakSentinel: Sentinel?
        let httpbin = try IntegrationServers.httpbin()
        var statuses: [Int] = []

        do {
            let transport = IntegrationServers.makeSession()
            let throttled = transport.throttled(maxConcurrent: 4)
            let deduplicated = throttled.deduplicated()
            let cached = deduplicated.cached()
            let authentication = AuthenticationAction.basicAuthentication(username: "user", password: "pass")
            let sentinel = Sentinel()
            let module = IntegrationServers.module(
                baseURL: httpbin, session: cached,
                actions: [
                    authentication, BuiltInAction.retry(), BuiltInAction.requestID(),
                    BuiltInAction.logging(sink: { _ in _ = sentinel }), BuiltInAction.metrics { _ in _ = sentinel },
                ])
            (weakTransport, weakCached, weakDeduplicated, weakThrottled) = (transport, cached, deduplicated, throttled)
            (weakModule, weakAuthentication, weakSentinel) = (module, authentication, sentinel)

            statuses = await withTaskGroup(of: Int.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        let path = ["/get", "/status/404", "/cache/60", "/bytes/512"][index % 4]
                        return (await module.outcome(of: Endpoint(path: path))).statusOrErrorStatus
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        // The last completions run on the background executor: give its queue a moment to
        // drop what it held (no timing is asserted; the wait only bounds the test).
        let deadline = Date().addingTimeInterval(10)
        while (weakModule != nil || weakTransport != nil || weakCached != nil) && Date() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }

        #expect(statuses.count == 24)
        #expect(statuses.filter { $0 == 200 }.count == 18)
        #expect(statuses.filter { $0 == 404 }.count == 6)
        #expect(weakModule == nil, "the module is kept alive")
        #expect(weakCached == nil, "CachedSession is kept alive")
        #expect(weakDeduplicated == nil, "DeduplicatedSession is kept alive")
        #expect(weakThrottled == nil, "ThrottledSession is kept alive")
        #expect(weakTransport == nil, "URLSessionTransport is kept alive")
        #expect(weakAuthentication == nil, "AuthenticationAction is kept alive")
        #expect(weakSentinel == nil, "an action's closure is kept alive")
    }
}

extension Result where Success == NetworkResponse, Failure == NetworkError {
    /// The status code of the response or of the HTTP error; -1 for other failures.
    fileprivate var statusOrErrorStatus: Int {
        switch self {
        case .success(let response): response.statusCode
        case .failure(let error): error.statusCode ?? -1
        }
    }
}
