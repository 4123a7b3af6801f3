import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of docs/tracing.md, and the guide's claims about spans, checked on a fake session.
@Suite("Tracing samples")
struct TracingSamples {
    struct GetNotes: NetworkRequest {
        var path: String { "/notes" }
    }

    struct GetMedia: NetworkRequest {
        let url: String
        var path: String { url }
    }

    // sample: tracing-request-traceparent
    struct SyncNotes: NetworkRequest {
        let traceparent: String  // the app's span, as its tracing library writes it
        var path: String { "/notes/sync" }
        var headers: HTTPHeaders { ["traceparent": traceparent] }
    }
    // end-sample

    // sample: tracing-parent-task-local
    enum Telemetry {
        @TaskLocal static var currentSpan: TraceContext?
    }
    // end-sample

    static let appSpan = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    // MARK: - What the action sends

    @Test("when a request is retried, should send each attempt's own span in traceparent and export the three spans")
    func retriedRequestExported() throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/notes"), with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let exporter = OTLPJSONExporter(serviceName: "notes-ios")

        // sample: tracing-actions
        let actions: [any NetworkModuleAction] = [
            .tracing { span in exporter.export(span) },  // first among the actions
            .retry(.default),
        ]
        // end-sample
        let module = makeSampleModule(session: session, actions: actions, delayScheduler: scheduler)
        let delivered = LockedLines()
        module.perform(request: GetNotes()) { result in delivered.append("\((try? result.get())?.statusCode ?? 0)") }
        scheduler.advance(by: 1)
        #expect(delivered.lines == ["200"])

        let body = try exporter.flush()
        let spans = try Self.exportedSpans(body)
        try #require(spans.count == 3)
        let (first, second, request) = (spans[0], spans[1], spans[2])
        // One trace, the request's span at its root, the attempts under it.
        #expect(Set(spans.compactMap { $0["traceId"] as? String }).count == 1)
        #expect(request["parentSpanId"] == nil, "a new trace: no app span was given")
        #expect(first["parentSpanId"] as? String == request["spanId"] as? String)
        #expect(second["parentSpanId"] as? String == request["spanId"] as? String)
        #expect(spans.map { $0["kind"] as? Int } == [3, 3, 1], "attempts are CLIENT spans, the request INTERNAL")
        #expect(spans.map { $0["name"] as? String } == ["GET", "GET", "GET"])
        // The server saw each attempt's own span as the parent of its work.
        let traceID = try #require(request["traceId"] as? String)
        let sent = session.recordedRequests.map { $0.value(forHTTPHeaderField: "traceparent") }
        #expect(sent == [first, second].map { "00-\(traceID)-\($0["spanId"] as? String ?? "")-01" })
        // The failed attempt is an error, with the status as error.type; the others are unset.
        #expect((first["status"] as? [String: Any])?["code"] as? Int == 2)
        #expect(Self.attribute("error.type", of: first) as? String == "503")
        #expect((second["status"] as? [String: Any])?.isEmpty == true)
        #expect(Self.attribute("http.request.resend_count", of: second) as? String == "1")
        #expect(Self.attribute("http.response.status_code", of: request) as? String == "200")
        #expect(Self.attribute("url.full", of: request) as? String == "https://api.example.com/v2/notes")
        #expect(Self.attribute("server.port", of: request) as? String == "443")
        let start = try #require(UInt64(request["startTimeUnixNano"] as? String ?? ""))
        let end = try #require(UInt64(request["endTimeUnixNano"] as? String ?? ""))
        #expect(start <= end)
        #expect(try exporter.flush().count < body.count, "a flush forgets the spans it wrote")
    }

    @Test("when origins are listed, should send the headers to those origins only and remove them elsewhere")
    func origins() throws {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/"), with: .status(200))
        let exporter = OTLPJSONExporter(serviceName: "notes-ios")

        // sample: tracing-origins
        let tracing: any NetworkModuleAction = .tracing(
            origins: [URL(string: "https://api.example.com")!, URL(string: "https://media.example.com")!],
            report: { span in exporter.export(span) })
        // end-sample
        let module = makeSampleModule(session: session, actions: [tracing])

        module.perform(request: GetNotes()) { _ in }
        module.perform(request: GetMedia(url: "https://media.example.com/covers/1.jpg")) { _ in }
        module.perform(request: GetMedia(url: "https://cdn.example.com/covers/1.jpg")) { _ in }
        var preset = URLRequest(url: URL(string: "https://tracker.example.net/collect")!)
        preset.setValue(Self.appSpan, forHTTPHeaderField: "traceparent")
        preset.setValue("vendor=1", forHTTPHeaderField: "tracestate")
        module.perform(urlRequest: preset) { _ in }

        let sent = session.recordedRequests
        #expect(sent.map { $0.value(forHTTPHeaderField: "traceparent") != nil } == [true, true, false, false])
        #expect(sent.last?.value(forHTTPHeaderField: "tracestate") == nil, "removed, whoever set it")
        #expect(try Self.exportedSpans(exporter.flush()).count == 8, "spans for every request either way")
    }

    @Test("when origins are not given, should send the headers to the base URL's origin only")
    func defaultOrigin() {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/"), with: .status(200))
        let spans = SpanRecorder()
        let module = makeSampleModule(session: session, actions: [.tracing(report: spans.record)])

        module.perform(request: GetNotes()) { _ in }
        module.perform(request: GetMedia(url: "http://api.example.com/v2/notes")) { _ in }  // another scheme
        module.perform(request: GetMedia(url: "https://media.example.com/covers/1.jpg")) { _ in }

        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "traceparent") != nil } == [true, false, false])
    }

    // MARK: - The app's span

    @Test("when the request carries a traceparent, should continue that trace and send its own span")
    func requestCarriesTraceparent() throws {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/"), with: .status(200))
        let spans = SpanRecorder()
        let module = makeSampleModule(session: session, actions: [.tracing(report: spans.record)])

        module.perform(request: SyncNotes(traceparent: Self.appSpan)) { _ in }

        let request = try #require(spans.requests.first)
        #expect(request.context.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(request.parentSpanID == "00f067aa0ba902b7")
        let attempt = try #require(spans.attempts(of: request).first)
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "traceparent") == attempt.context.traceparent)
        #expect(attempt.context.spanID != "00f067aa0ba902b7", "the app's span is the parent, not what is sent")
    }

    @Test("when the request carries a malformed traceparent, should start a new trace and never send the value on")
    func malformedTraceparent() throws {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/"), with: .status(200))
        let spans = SpanRecorder()
        let module = makeSampleModule(session: session, actions: [.tracing(report: spans.record)])
        let malformed = "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"  // uppercase

        module.perform(request: SyncNotes(traceparent: malformed)) { _ in }

        let request = try #require(spans.requests.first)
        #expect(request.parentSpanID == nil)
        #expect(request.context.traceID != "4bf92f3577b34da6a3ce929d0e0e4736")
        let sent = session.recordedRequests.first?.value(forHTTPHeaderField: "traceparent")
        #expect(sent == spans.attempts(of: request).first?.context.traceparent)
        #expect(sent.flatMap { TraceContext(traceparent: $0) } != nil)
    }

    @Test("when parent reads a task-local span, should run on the caller's thread, once per request")
    func parentFromTaskLocal() throws {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/"), with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let exporter = OTLPJSONExporter(serviceName: "notes-ios")

        // sample: tracing-parent
        let tracing: any NetworkModuleAction = .tracing(
            parent: { _ in Telemetry.currentSpan },
            report: { span in exporter.export(span) })
        // end-sample
        let module = makeSampleModule(session: session, actions: [tracing, .retry(.default)], delayScheduler: scheduler)

        // sample: tracing-parent-call
        let screenSpan = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        Telemetry.$currentSpan.withValue(screenSpan) {
            module.perform(request: GetNotes()) { _ in }
        }
        // end-sample
        scheduler.advance(by: 1)  // the retry runs outside the task-local's scope

        let spans = try Self.exportedSpans(exporter.flush())
        let request = try #require(spans.last)
        #expect(request["traceId"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(request["parentSpanId"] as? String == "00f067aa0ba902b7")
        #expect(spans.count == 3)
        #expect(spans.dropLast().allSatisfy { $0["parentSpanId"] as? String == request["spanId"] as? String })
    }

    @Test("when a request is retried, should ask parent once, on the thread that calls perform")
    func parentOncePerRequest() {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/"), with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let calls = LockedLines()
        let caller = Thread.current.description
        let module = makeSampleModule(
            session: session,
            actions: [
                .tracing(
                    parent: { _ in
                        calls.append(Thread.current.description == caller ? "caller" : "other")
                        return nil
                    }, report: { _ in }),
                .retry(.default),
            ],
            delayScheduler: scheduler)

        module.perform(request: GetNotes()) { _ in }
        scheduler.advance(by: 1)

        #expect(session.recordedRequests.count == 2)
        #expect(calls.lines == ["caller"])
    }

    // MARK: - Spans

    @Test("when a request is cancelled before it is answered, should end its attempt span and its request span once")
    func cancelled() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.pathPrefix("/"), with: .status(200))
        let spans = SpanRecorder()
        let module = makeSampleModule(session: session, actions: [.tracing(report: spans.record)])

        let call = module.perform(request: GetNotes()) { _ in }
        call.cancel()
        call.cancel()
        session.releaseAll()

        #expect(spans.spans.map(\.kind) == [.attempt, .request])
        #expect(spans.spans.allSatisfy { $0.isCancelled })
        #expect(spans.spans.allSatisfy { $0.answer == nil })
    }

    @Test("when a cached session answers, should report the attempt's answer as cache, fresh or stale")
    func cacheHit() {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/"), with: .json("[]", headers: ["Cache-Control": "max-age=60"]))
        let spans = SpanRecorder()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: session.cached(),
            actions: [.tracing(report: spans.record)], completionExecutor: .immediate)

        module.perform(request: GetNotes()) { _ in }
        module.perform(request: GetNotes()) { _ in }

        #expect(spans.requests.map(\.answer) == [.network, .cache])
        #expect(session.recordedRequests.count == 1, "the second span's traceparent never left the app")
    }

    @Test("when requests share a call of deduplicated(), should report the joiner's answer as sharedCall")
    func sharedCall() throws {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.pathPrefix("/"), with: .status(200))
        let spans = SpanRecorder()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: session.deduplicated(),
            actions: [.tracing(report: spans.record)], completionExecutor: .immediate)

        module.perform(request: GetNotes()) { _ in }
        module.perform(request: GetNotes()) { _ in }
        session.releaseAll()

        #expect(session.recordedRequests.count == 1)
        let sent = session.recordedRequests.first?.value(forHTTPHeaderField: "traceparent")
        let attempts = spans.spans.filter { $0.kind == .attempt }
        let starter = try #require(attempts.first { $0.context.traceparent == sent })
        let joiner = try #require(attempts.first { $0.context.traceparent != sent })
        #expect(starter.answer == .network)
        #expect(joiner.answer == .sharedCall)
        #expect(starter.context.traceID != joiner.context.traceID, "each request is a trace of its own")
    }

    @Test("when requests share a call under cached(), as the sessions guide composes them, should still report sharedCall")
    func sharedCallUnderCache() throws {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.pathPrefix("/"), with: .status(200))
        let spans = SpanRecorder()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: session.deduplicated().cached(),
            actions: [.tracing(report: spans.record)], completionExecutor: .immediate)

        module.perform(request: GetNotes()) { _ in }
        module.perform(request: GetNotes()) { _ in }
        session.releaseAll()

        #expect(session.recordedRequests.count == 1)
        let answers = spans.spans.filter { $0.kind == .attempt }.compactMap { $0.answer?.rawValue }.sorted()
        // CachedSession hands the wrapped session no TransferOptions for a GET (CachedSessionTask,
        // and wrapped.dataTask on its no-store path), so the attempt's AttemptRecorder is dropped.
        // Found broken: under cached(), a joiner of deduplicated() is reported as .network, without phases.
        #expect(answers == ["network", "sharedCall"])
    
    }

    // MARK: - Masking

    @Test("when the logging redaction adds the trace headers, should mask them in the log")
    func masking() {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/"), with: .status(200))
        let spans = SpanRecorder()
        // sample: tracing-logging-redaction
        let logging: any NetworkModuleAction = .logging(
            redaction: Redaction.default.adding(headers: ["traceparent", "tracestate"]),
            sink: { print($0) })
        // end-sample
        let module = makeSampleModule(session: session, actions: [.tracing(report: spans.record), logging])
        let unmasked = makeSampleModule(session: session, actions: [.tracing(report: spans.record), .logging(sink: { print($0) })])

        let masked = Transcript.recording { module.perform(request: GetNotes()) { _ in } }
        let kept = Transcript.recording { unmasked.perform(request: GetNotes()) { _ in } }

        let sent = session.recordedRequests.map { $0.value(forHTTPHeaderField: "traceparent") ?? "-" }
        #expect(masked.joined().contains("\n  traceparent: REDACTED\n"))
        #expect(!masked.joined().contains(sent[0]))
        #expect(kept.joined().contains("\n  traceparent: \(sent[1])\n"), "kept by default")
    }

    // MARK: - Testing

    @Test("when a test records spans, should see the retried request's attempts and what each sent")
    func spanRecorder() throws {
        // sample: tracing-span-recorder
        let spans = SpanRecorder()
        let clock = ManualDelayScheduler()
        let session = FakeNetworkSession()
        session.stub(.path("/v2/notes"), with: .status(503), .status(200))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: session,
            actions: [.tracing(report: spans.record), .retry(.default)],
            completionExecutor: .immediate,
            delayScheduler: clock)

        module.perform(request: GetNotes()) { _ in }
        clock.advance(by: 1)  // the retry's backoff

        let request = try #require(spans.requests.first)
        let attempts = spans.attempts(of: request)
        #expect(attempts.map(\.statusCode) == [503, 200])
        #expect(attempts.map(\.errorType) == ["503", nil])
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "traceparent") }
            == attempts.map(\.context.traceparent))
        // end-sample
    }

    // MARK: - Helpers

    /// The `spans` of an OTLP/JSON body's one resource and one scope.
    static func exportedSpans(_ body: Data) throws -> [[String: Any]] {
        let root = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let resource = try #require((root["resourceSpans"] as? [[String: Any]])?.first)
        let scope = try #require((resource["scopeSpans"] as? [[String: Any]])?.first)
        return try #require(scope["spans"] as? [[String: Any]])
    }

    /// The value of an OTLP/JSON span's attribute, whatever its type.
    static func attribute(_ key: String, of span: [String: Any]) -> Any? {
        let attributes = span["attributes"] as? [[String: Any]] ?? []
        let value = attributes.first { $0["key"] as? String == key }?["value"] as? [String: Any]
        return value?.values.first
    }
}

// sample: tracing-otlp-exporter
/// Turns the spans of `.tracing` into OpenTelemetry's OTLP/JSON, the body an OpenTelemetry
/// collector accepts on `POST /v1/traces`.
final class OTLPJSONExporter: @unchecked Sendable {
    // @unchecked Sendable is safe: `finished` is only touched while holding `lock`.
    private let lock = NSLock()
    private var finished: [HTTPSpan] = []
    let serviceName: String

    init(serviceName: String) {
        self.serviceName = serviceName
    }

    /// What `.tracing`'s `report` calls: keeps the span, and nothing slow.
    func export(_ span: HTTPSpan) {
        lock.lock()
        defer { lock.unlock() }
        finished.append(span)
    }

    /// The spans kept so far as one OTLP/JSON body; forgets them.
    func flush() throws -> Data {
        lock.lock()
        let spans = finished
        finished.removeAll()
        lock.unlock()
        let body: [String: Any] = [
            "resourceSpans": [
                [
                    "resource": ["attributes": [Self.attribute("service.name", .string(serviceName))]],
                    "scopeSpans": [["scope": ["name": "NetworkModule"], "spans": spans.map(Self.otlpSpan)]],
                ]
            ]
        ]
        return try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
    }

    private static func otlpSpan(_ span: HTTPSpan) -> [String: Any] {
        var otlp: [String: Any] = [:]
        otlp["traceId"] = span.context.traceID  // OTLP/JSON writes identifiers in hexadecimal, as traceparent does
        otlp["spanId"] = span.context.spanID
        if let parent = span.parentSpanID { otlp["parentSpanId"] = parent }
        if let state = span.context.traceState { otlp["traceState"] = state }
        otlp["name"] = span.name
        otlp["kind"] = span.kind == .attempt ? 3 : 1  // SPAN_KIND_CLIENT: one HTTP call; SPAN_KIND_INTERNAL: the request
        otlp["startTimeUnixNano"] = nanoseconds(span.startTime)
        otlp["endTimeUnixNano"] = nanoseconds(span.endTime)
        otlp["attributes"] = span.attributes.sorted { $0.key < $1.key }.map { attribute($0.key, $0.value) }
        otlp["status"] = span.errorType == nil ? [:] : ["code": 2]  // STATUS_CODE_ERROR
        return otlp
    }

    private static func attribute(_ key: String, _ value: HTTPSpan.AttributeValue) -> [String: Any] {
        switch value {
        case .string(let string): ["key": key, "value": ["stringValue": string]]
        case .int(let int): ["key": key, "value": ["intValue": String(int)]]  // 64-bit integers are strings in JSON
        case .double(let double): ["key": key, "value": ["doubleValue": double]]
        case .bool(let bool): ["key": key, "value": ["boolValue": bool]]
        }
    }

    private static func nanoseconds(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let fraction = UInt64(((date.timeIntervalSince1970 - seconds) * 1_000_000_000).rounded())
        return String(UInt64(seconds) * 1_000_000_000 + fraction)
    }
}
// end-sample
