import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The tracing action on the wire: httpbin echoes the `traceparent` it received, which must be
/// the attempt span's, and a redirect to another loopback origin must not carry it.
@Suite("Integration: tracing", .integration)
struct TracingIntegrationTests {
    static let appTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// What httpbin's `/headers` answers.
    struct HeadersEcho: Decodable {
        let headers: [String: String]
    }

    /// The value of `name` among `headers`, ignoring case.
    static func value(_ name: String, in headers: [String: String]) -> String? {
        headers.first { $0.key.lowercased() == name }?.value
    }

    /// Keeps the `traceparent` httpbin echoed for each answered attempt, read from the body of
    /// the status the request does not accept.
    final class EchoedTraceparents: NetworkModuleAction {
        let values = LockedState([String?]())

        func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            let body: Data?
            switch result {
            case .success(let response): body = response.data
            case .failure(.unacceptableStatusCode(let response)): body = response.body
            case .failure: body = nil
            }
            let echoed = body.flatMap { try? JSONDecoder().decode(HeadersEcho.self, from: $0) }
            values.withLock {
                $0.append(echoed.flatMap { TracingIntegrationTests.value("traceparent", in: $0.headers) })
            }
        }
    }

    @Test(
        "when a request is traced, should send httpbin the attempt span's traceparent, on the transport and a plain URLSession",
        arguments: [true, false])
    func traceparentOnTheWire(transport: Bool) async throws {
        let spans = SpanRecorder()
        let baseURL = try IntegrationServers.httpbin()
        let actions: [any NetworkModuleAction] = [.tracing(report: spans.record)]
        let module =
            transport
            ? IntegrationServers.module(baseURL: baseURL, session: IntegrationServers.makeSession(), actions: actions)
            : IntegrationServers.module(
                baseURL: baseURL, session: URLSessionAdapter(URLSession(configuration: .ephemeral)), actions: actions)

        let response = try await module.outcome(of: Endpoint(path: "/headers")).get()

        let echoed = Self.value("traceparent", in: try response.decode(HeadersEcho.self).headers)
        let request = try #require(spans.requests.first)
        let attempts = spans.attempts(of: request)
        #expect(spans.requests.count == 1)
        #expect(attempts.count == 1)
        #expect(echoed == attempts.first?.context.traceparent)
        #expect(echoed.flatMap { TraceContext(traceparent: $0) } != nil, "httpbin received a valid traceparent")
        #expect(request.statusCode == 200)
        #expect(attempts.first?.answer == .network)
        #expect(attempts.first?.attributes["server.address"] == .string("127.0.0.1"))
    }

    @Test("when the request carries the app's span and state, should send httpbin a child of it and the state")
    func continuesTheAppsTrace() async throws {
        let spans = SpanRecorder()
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(), actions: [.tracing(report: spans.record)])

        let response = try await module.outcome(
            of: Endpoint(path: "/headers", headers: ["traceparent": Self.appTraceparent, "tracestate": "rojo=1"])
        ).get()

        let headers = try response.decode(HeadersEcho.self).headers
        let request = try #require(spans.requests.first)
        #expect(request.parentSpanID == "00f067aa0ba902b7")
        #expect(Self.value("traceparent", in: headers) == spans.attempts(of: request).first?.context.traceparent)
        #expect(Self.value("traceparent", in: headers)?.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-") == true)
        #expect(Self.value("tracestate", in: headers) == "rojo=1")
    }

    @Test("when a request is retried, should send httpbin a different span ID on each attempt, each its span's")
    func retriedAttemptsOnTheWire() async throws {
        let spans = SpanRecorder()
        let echoes = EchoedTraceparents()
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(),
            actions: [
                .tracing(report: spans.record), echoes,
                .retry(RetryPolicy(maxAttempts: 3, initialDelay: 0.01, jitter: 0, isRetryable: { _ in true })),
            ])

        // 200 is not accepted, so each echo is an error the policy retries.
        let error = await module.outcome(of: Endpoint(path: "/headers", acceptableStatusCodes: [201])).error

        #expect(error?.statusCode == 200)
        let request = try #require(spans.requests.first)
        let attempts = spans.attempts(of: request)
        let echoed = echoes.values.withLock { $0 }
        #expect(attempts.map(\.attempt) == [1, 2, 3])
        #expect(echoed.count == 3)
        #expect(echoed == attempts.map(\.context.traceparent))
        #expect(Set(echoed.compactMap { $0 }).count == 3, "a span ID of its own per attempt")
        #expect(Set(echoed.compactMap { $0?.split(separator: "-")[1] }).count == 1, "one trace")
    }

    @Test("when httpbin answers 503 and the policy retries, should report an attempt span per try, each its own ID")
    func retried503() async throws {
        let spans = SpanRecorder()
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(),
            actions: [
                .tracing(report: spans.record), .retry(RetryPolicy(maxAttempts: 3, initialDelay: 0.01, jitter: 0)),
            ])

        let error = await module.outcome(of: Endpoint(path: "/status/503")).error

        #expect(error?.statusCode == 503)
        let request = try #require(spans.requests.first)
        let attempts = spans.attempts(of: request)
        #expect(attempts.map(\.statusCode) == [503, 503, 503])
        #expect(attempts.map(\.errorType) == ["503", "503", "503"])
        #expect(Set(attempts.map(\.context.spanID)).count == 3)
        #expect(request.attempt == 3)
    }

    @Test("when httpbin redirects to the fault server's origin, should not carry traceparent or tracestate there")
    func crossOriginRedirect() async throws {
        let spans = SpanRecorder()
        let target = try IntegrationServers.faultServer().appendingPathComponent("echo-headers")
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(), actions: [.tracing(report: spans.record)])

        let response = try await module.outcome(
            of: Endpoint(
                path: "/redirect-to", queryItems: [URLQueryItem(name: "url", value: target.absoluteString)],
                headers: ["traceparent": Self.appTraceparent, "tracestate": "rojo=1"])
        ).get()

        let received = try #require(try JSONSerialization.jsonObject(with: response.data) as? [String: Any])
        let names = received.keys.map { $0.lowercased() }
        #expect(names.contains("host"), "the fault server echoed the redirected request")
        #expect(!names.contains("traceparent"))
        #expect(!names.contains("tracestate"))
        #expect(spans.requests.count == 1)
    }

    @Test(
        "when httpbin redirects a plain URLSession's request to the fault server's origin, should forward traceparent on Linux, as documented"
    )
    func crossOriginRedirectOnAPlainURLSession() async throws {
        let spans = SpanRecorder()
        let target = try IntegrationServers.faultServer().appendingPathComponent("echo-headers")
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(),
            session: URLSessionAdapter(URLSession(configuration: .ephemeral)),
            actions: [.tracing(report: spans.record)])

        let response = try await module.outcome(
            of: Endpoint(
                path: "/redirect-to", queryItems: [URLQueryItem(name: "url", value: target.absoluteString)],
                headers: ["traceparent": Self.appTraceparent, "tracestate": "rojo=1"])
        ).get()

        let received = try #require(try JSONSerialization.jsonObject(with: response.data) as? [String: Any])
        let names = received.keys.map { $0.lowercased() }
        #expect(names.contains("host"), "the fault server echoed the redirected request")
        // A plain URLSession follows redirects out of the framework's sight: on Linux it forwards
        // the trace headers as it forwards credentials, as the action's documentation and the
        // Sessions guide say. Pinned, so that they change if swift-corelibs-foundation stops.
        #if canImport(FoundationNetworking)
            #expect(names.contains("traceparent"))
            #expect(names.contains("tracestate"))
        #endif
    }

    @Test("when httpbin redirects on its own origin, should carry the attempt's traceparent")
    func sameOriginRedirect() async throws {
        let spans = SpanRecorder()
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(), actions: [.tracing(report: spans.record)])

        let response = try await module.outcome(
            of: Endpoint(path: "/redirect-to", queryItems: [URLQueryItem(name: "url", value: "/headers")])
        ).get()

        let echoed = Self.value("traceparent", in: try response.decode(HeadersEcho.self).headers)
        let request = try #require(spans.requests.first)
        #expect(echoed != nil)
        #expect(echoed == spans.attempts(of: request).first?.context.traceparent)
    }
}
