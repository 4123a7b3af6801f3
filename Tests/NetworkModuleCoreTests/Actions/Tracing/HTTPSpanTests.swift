import Foundation
import Testing

@testable import NetworkModuleCore

@Suite("HTTPSpan")
struct HTTPSpanTests {
    static let context = TraceContext(traceparent: TraceContextHeadersTests.example)!

    static func span(
        kind: HTTPSpan.Kind = .attempt, method: String = "GET", url: String? = "https://api.example.com/v2/users/1",
        attempt: Int = 1, statusCode: Int? = 200, errorType: String? = nil, answer: HTTPSpan.Answer? = .network,
        phases: RequestPhases? = nil
    ) -> HTTPSpan {
        HTTPSpan(
            kind: kind, context: context, parentSpanID: "b7ad6b7169203331", start: Date(timeIntervalSince1970: 1),
            end: Date(timeIntervalSince1970: 2), method: method, attempt: attempt,
            target: url.flatMap { URL(string: $0) }.map { SpanTarget(url: $0, redaction: .default) },
            statusCode: statusCode, errorType: errorType, answer: answer, phases: phases)
    }

    @Test("when every value is known, should name each with OpenTelemetry's HTTP client keys")
    func fullAttributes() {
        let span = Self.span(
            method: "PUT", url: "https://api.example.com:8443/v2/notes?token=REDACTED", attempt: 3, statusCode: 503,
            errorType: "503", answer: .sharedCall, phases: RequestPhases(networkProtocolName: "h2"))

        #expect(
            span.attributes == [
                "http.request.method": .string("PUT"),
                "url.full": .string("https://api.example.com:8443/v2/notes?token=REDACTED"),
                "server.address": .string("api.example.com"),
                "server.port": .int(8443),
                "http.response.status_code": .int(503),
                "error.type": .string("503"),
                "http.request.resend_count": .int(2),
                "network.protocol.version": .string("2"),
                "networkmodule.answer": .string("sharedCall"),
            ])
        #expect(span.name == "PUT")
    }

    @Test("when values are absent, should leave their keys out")
    func absentValuesLeftOut() {
        let span = Self.span(url: nil, statusCode: nil, errorType: "cancelled", answer: nil)

        #expect(span.attributes == ["http.request.method": .string("GET"), "error.type": .string("cancelled")])
        #expect(span.isCancelled)
    }

    @Test(
        "when the URL has no port, should give the scheme's default",
        arguments: [("https://api.example.com/x", 443), ("http://api.example.com/x", 80)])
    func defaultPort(url: String, port: Int) {
        #expect(Self.span(url: url).attributes["server.port"] == .int(port))
    }

    @Test("when the scheme has no default port, should leave server.port out")
    func unknownScheme() {
        let attributes = Self.span(url: "ftp://files.example.com/x").attributes

        #expect(attributes["server.port"] == nil)
        #expect(attributes["server.address"] == .string("files.example.com"))
    }

    @Test("when the span is a first attempt or a request, should leave resend_count out")
    func resendCount() {
        #expect(Self.span(kind: .attempt, attempt: 1).attributes["http.request.resend_count"] == nil)
        #expect(Self.span(kind: .request, attempt: 3).attributes["http.request.resend_count"] == nil)
        #expect(Self.span(kind: .attempt, attempt: 2).attributes["http.request.resend_count"] == .int(1))
    }

    @Test("when a success has no error, should say no error.type and not cancelled")
    func success() {
        let span = Self.span()

        #expect(span.attributes["error.type"] == nil)
        #expect(span.attributes["http.response.status_code"] == .int(200))
        #expect(span.attributes["networkmodule.answer"] == .string("network"))
        #expect(!span.isCancelled)
    }

    @Test(
        "when the phases name a protocol, should give the HTTP version OpenTelemetry spells, or none",
        arguments: [
            ("http/1.0", "1.0"), ("http/1.1", "1.1"), ("HTTP/1.1", "1.1"), ("h2", "2"), ("h2c", "2"), ("h3", "3"),
            ("spdy/3", nil), (nil, nil),
        ] as [(String?, String?)])
    func protocolVersion(name: String?, version: String?) {
        let span = Self.span(phases: RequestPhases(networkProtocolName: name))

        #expect(span.attributes["network.protocol.version"] == version.map(HTTPSpan.AttributeValue.string))
    }
}
