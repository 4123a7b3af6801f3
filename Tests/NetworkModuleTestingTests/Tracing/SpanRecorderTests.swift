import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("SpanRecorder")
struct SpanRecorderTests {
    static let trace = "4bf92f3577b34da6a3ce929d0e0e4736"

    static func span(
        _ kind: HTTPSpan.Kind, trace: String = trace, id: String, parent: String?, attempt: Int = 1
    ) -> HTTPSpan {
        HTTPSpan(
            kind: kind, context: TraceContext(traceID: trace, spanID: id, isSampled: true, traceState: nil),
            parentSpanID: parent, start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 1),
            method: "GET", attempt: attempt, target: nil, statusCode: 200, errorType: nil, answer: .network, phases: nil
        )
    }

    @Test("when spans are recorded, should keep them in order and list the request spans apart")
    func keepsInOrder() {
        let recorder = SpanRecorder()
        let attempt = Self.span(.attempt, id: "0000000000000002", parent: "0000000000000001")
        let request = Self.span(.request, id: "0000000000000001", parent: nil)

        recorder.record(attempt)
        recorder.record(request)

        #expect(recorder.spans == [attempt, request])
        #expect(recorder.requests == [request])
    }

    @Test("when attempts of a request are asked, should give its trace's children of its span, by attempt number")
    func attemptsOfARequest() {
        let recorder = SpanRecorder()
        let request = Self.span(.request, id: "00000000000000aa", parent: "00f067aa0ba902b7")
        let second = Self.span(.attempt, id: "00000000000000a2", parent: "00000000000000aa", attempt: 2)
        let first = Self.span(.attempt, id: "00000000000000a1", parent: "00000000000000aa", attempt: 1)
        let otherParent = Self.span(.attempt, id: "00000000000000b1", parent: "00000000000000bb")
        let otherTrace = Self.span(
            .attempt, trace: "0af7651916cd43dd8448eb211c80319c", id: "00000000000000c1", parent: "00000000000000aa")
        let childRequest = Self.span(.request, id: "00000000000000d1", parent: "00000000000000aa")

        for span in [second, otherParent, first, otherTrace, childRequest, request] { recorder.record(span) }

        #expect(recorder.attempts(of: request) == [first, second])
        #expect(recorder.attempts(of: otherTrace).isEmpty)
    }

    @Test("when removeAll is called, should forget every span")
    func removeAll() {
        let recorder = SpanRecorder()
        recorder.record(Self.span(.request, id: "0000000000000001", parent: nil))

        recorder.removeAll()

        #expect(recorder.spans.isEmpty)
        #expect(recorder.requests.isEmpty)
    }

    @Test("when spans come from many threads, should keep every one")
    func concurrentRecording() {
        let recorder = SpanRecorder()

        DispatchQueue.concurrentPerform(iterations: 200) { index in
            recorder.record(Self.span(.request, id: TraceContextHeaders.hex(UInt64(index + 1)), parent: nil))
        }

        #expect(recorder.spans.count == 200)
        #expect(Set(recorder.spans.map(\.context.spanID)).count == 200)
    }

    @Test("when given to a tracing action on a fake, should keep the spans of a retried request as the docs show")
    func throughAModule() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let spans = SpanRecorder()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session,
            actions: [.tracing(report: spans.record), .retry(RetryPolicy(initialDelay: 1, jitter: 0))],
            completionExecutor: .immediate, delayScheduler: scheduler)

        module.perform(urlRequest: makeURLRequest("/users/1")) { _ in }
        scheduler.advance(by: 1)

        let request = try #require(spans.requests.first)
        #expect(spans.requests.count == 1)
        #expect(spans.attempts(of: request).map(\.statusCode) == [503, 200])
        #expect(
            session.recordedRequests.last?.value(forHTTPHeaderField: "traceparent")
                == spans.attempts(of: request).last?.context.traceparent)
    }
}
