import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// On the wire: a header field with CR/LF that a redirect policy's `decide` puts in the request
/// it returns. The one check sits before the session; the hop the transport sends itself must
/// not carry it.
@Suite("Integration: header fields a redirect policy writes", .integration)
struct RedirectHeaderCheckIntegrationTests {
    struct Redirected: NetworkRequest {
        var path: String
        var queryItems: [URLQueryItem] = []
        var redirectPolicy: RedirectPolicy?
    }

    @Test("when a redirect policy returns a request with CR/LF in a header value, should not send the injected header")
    func redirectPolicyInjectedHeader() async throws {
        let marker = "redirect-\(UUID().uuidString)"
        let server = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(baseURL: server)
        let policy = RedirectPolicy.decide { _, next, _ in
            var request = next
            var fields = request.allHTTPHeaderFields ?? [:]
            fields["X-Marker"] = "safe\r\nX-Injected: \(marker)"
            request.allHTTPHeaderFields = fields
            return request
        }
        let outcome: Result<NetworkResponse, NetworkError>
        do {
            outcome = .success(
                try await module.perform(
                    request: Redirected(
                        path: "/redirect-to",
                        queryItems: [URLQueryItem(name: "url", value: "\(server)/echo?m=1")],
                        redirectPolicy: policy)))
        } catch {
            outcome = .failure(error)
        }
        var injected: [String] = []
        if case .success(let response) = outcome,
            let echo = try? JSONDecoder().decode(WireEcho.self, from: response.data)
        {
            injected = echo.headerValues("X-Injected")
        }
        print("redirect decide with CR/LF header:", outcome.map(\.statusCode), "injected on the wire:", injected)
        #expect(injected.isEmpty)
        #expect(outcome.map(\.statusCode) == .failure(.invalidRequest(.invalidHeaderValue(name: "X-Marker"))))
    }

    static let everyKindOfTimeout: [TimeInterval] = [
        0, -0.0, -1, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, 1e-300, 1e-9, 1e9, 1e9.nextUp, 1e10,
        1.8446744073709552e10, 1e300, .greatestFiniteMagnitude,
    ]

    @Test(
        "when a URLRequest's timeout is any Double, should complete once on the real transport, never trap",
        arguments: everyKindOfTimeout)
    func everyTimeoutOnTheWire(timeout: TimeInterval) async throws {
        let server = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(baseURL: server)
        var request = URLRequest(url: try #require(URL(string: "\(server)/echo")))
        request.timeoutInterval = timeout
        let outcome: Result<Int, NetworkError>
        do { outcome = .success(try await module.perform(urlRequest: request).statusCode) } catch {
            outcome = .failure(error)
        }
        print("timeout", timeout, "->", outcome)
        if timeout > 0, timeout < 1e-6 {
            #expect(outcome == .failure(.timedOut))
        } else {
            #expect(outcome == .success(200))
        }
    }

    @Test(
        "when a builder timeout is a huge valid Double, should download and stream on the real transport",
        arguments: [1e-300, 1e9.nextUp, 1e300, .greatestFiniteMagnitude])
    func hugeBuilderTimeoutDownloadAndStream(timeout: TimeInterval) async throws {
        struct Echo: NetworkRequest {
            var path = "/echo"
            var timeout: TimeInterval?
        }
        let server = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(baseURL: server)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var downloaded: Result<Int, NetworkError>
        do {
            downloaded = .success(
                try await module.download(
                    request: Echo(timeout: timeout), to: DownloadDestination(folder.appendingPathComponent("f"))
                ).statusCode)
        } catch { downloaded = .failure(error) }
        var streamed: Result<Int, NetworkError>
        do {
            var total = 0
            for try await chunk in module.stream(request: Echo(timeout: timeout)) { total += chunk.count }
            streamed = .success(total)
        } catch { streamed = .failure(error as? NetworkError ?? .cancelled) }
        print("builder timeout", timeout, "download", downloaded, "stream", streamed)
        if timeout < 1e-6 {
            #expect(downloaded == .failure(.timedOut))
            #expect(streamed == .failure(.timedOut))
        } else {
            #expect(downloaded == .success(200))
            #expect((try? streamed.get()).map { $0 > 0 } == true)
        }
    }
}
