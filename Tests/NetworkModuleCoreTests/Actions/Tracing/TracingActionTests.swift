import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The tracing action through `DefaultNetworkModule` on a fake session: the spans it reports
/// for each request and attempt, and the headers each attempt sends.
@Suite("Tracing action")
struct TracingActionTests {
    static let appTraceID = TraceContextHeadersTests.traceID
    static let appSpanID = TraceContextHeadersTests.spanID
    static let appTraceparent = TraceContextHeadersTests.example
    static let otherOrigin = URL(string: "https://other.example.com")!

    /// A request with headers and a redirect policy of its own.
    struct Traced: NetworkRequest {
        var path = "/users/1"
        var headers: HTTPHeaders = [:]
        var redirectPolicy: RedirectPolicy?
    }

    let spans = SpanRecorder()

    /// The tracing action, kept to read its table of open traces.
    func tracing(
        origins: [URL]? = nil, parent: @escaping @Sendable (ActionContext) -> TraceContext? = { _ in nil },
        redaction: Redaction = .default, random: @escaping @Sendable () -> UInt64 = { .random(in: .min ... .max) }
    ) -> TracingAction {
        TracingAction(origins: origins, parent: parent, redaction: redaction, random: random, report: spans.record)
    }

    func tracedModule(
        _ session: some NetworkSession, _ actions: [any NetworkModuleAction], tracing: TracingAction? = nil
    ) -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            actions: [BuiltInAction(tracing ?? self.tracing())] + actions, completionExecutor: .immediate,
            delayScheduler: ManualDelayScheduler())
    }

    /// The only request span, and its attempts.
    func single() throws -> (request: HTTPSpan, attempts: [HTTPSpan]) {
        #expect(spans.requests.count == 1)
        let request = try #require(spans.requests.first)
        return (request, spans.attempts(of: request))
    }

    // MARK: - One request

    @Test("when a request succeeds at once, should report one attempt span, then one request span, and send its ID")
    func oneRequest() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("ok"))
        let action = tracing()

        tracedModule(session, [], tracing: action).perform(request: TestRequest()) { _ in }

        let (request, attempts) = try single()
        let attempt = try #require(attempts.first)
        #expect(spans.spans.map(\.kind) == [.attempt, .request])
        #expect(attempts.count == 1)
        #expect(request.parentSpanID == nil, "no app span: a new trace")
        #expect(request.context.isSampled)
        #expect(attempt.parentSpanID == request.context.spanID)
        #expect(attempt.context.traceID == request.context.traceID)
        #expect(attempt.context.spanID != request.context.spanID)
        #expect(request.attempt == 1)
        #expect(attempt.attempt == 1)
        #expect(request.statusCode == 200)
        #expect(attempt.statusCode == 200)
        #expect(request.errorType == nil)
        #expect(attempt.errorType == nil)
        #expect(request.answer == .network)
        #expect(attempt.answer == .network)
        #expect(request.method == "GET")
        #expect(attempt.method == "GET")
        #expect(request.url == "https://api.example.com/v2/users/1")
        #expect(request.startTime <= request.endTime && attempt.startTime <= attempt.endTime)
        #expect(request.phases == nil && attempt.phases == nil, "the fake measures no phases")
        let sent = try #require(session.recordedRequests.first)
        #expect(sent.value(forHTTPHeaderField: "traceparent") == attempt.context.traceparent)
        #expect(sent.value(forHTTPHeaderField: "tracestate") == nil)
        #expect(action.openTraceCount == 0)
    }

    @Test("when identifiers come from a source of zeros, should still send a valid traceparent")
    func zeroRandomSource() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))

        tracedModule(session, [], tracing: tracing(random: { 0 })).perform(request: TestRequest()) { _ in }

        let (request, attempts) = try single()
        let attempt = try #require(attempts.first)
        for context in [request.context, attempt.context] {
            #expect(isLowercaseHex(context.traceID, count: 32) && context.traceID.contains { $0 != "0" })
            #expect(isLowercaseHex(context.spanID, count: 16) && context.spanID.contains { $0 != "0" })
        }
        let sent = try #require(session.recordedRequests.first?.value(forHTTPHeaderField: "traceparent"))
        #expect(TraceContext(traceparent: sent) == attempt.context)
    }

    @Test("when many requests are traced, should give each its own trace, every ID well formed")
    func distinctTraces() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = tracedModule(session, [])

        for _ in 0..<50 { module.perform(request: TestRequest()) { _ in } }

        let traceIDs = spans.requests.map(\.context.traceID)
        #expect(traceIDs.count == 50)
        #expect(Set(traceIDs).count == 50)
        #expect(spans.spans.allSatisfy { isLowercaseHex($0.context.traceID, count: 32) })
        #expect(spans.spans.allSatisfy { isLowercaseHex($0.context.spanID, count: 16) })
    }

    // MARK: - Retry

    @Test("when a 503 is retried and then answered 200, should report two attempt spans under one request span")
    func retriedAttempts() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let action = tracing()

        tracedModule(session, [ProbeAction(retry: [.retry])], tracing: action).perform(request: TestRequest()) { _ in }

        let (request, attempts) = try single()
        #expect(spans.spans.count == 3)
        #expect(attempts.map(\.attempt) == [1, 2])
        #expect(attempts.map(\.statusCode) == [503, 200])
        #expect(attempts.map(\.errorType) == ["503", nil])
        #expect(attempts.map { $0.attributes["http.request.resend_count"] } == [nil, .int(1)])
        #expect(Set(attempts.map(\.context.spanID)).count == 2, "each attempt has its own span ID")
        #expect(attempts.allSatisfy { $0.context.traceID == request.context.traceID })
        #expect(attempts.allSatisfy { $0.parentSpanID == request.context.spanID })
        #expect(request.attempt == 2)
        #expect(request.statusCode == 200)
        #expect(request.errorType == nil)
        let sent = session.recordedRequests.map { $0.value(forHTTPHeaderField: "traceparent") }
        #expect(sent == attempts.map(\.context.traceparent))
        #expect(action.openTraceCount == 0)
    }

    @Test("when the retry action waits out its delay, should report the second attempt only after it")
    func retryWithDelay() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            actions: [.tracing(report: spans.record), .retry(RetryPolicy(maxAttempts: 3, initialDelay: 1, jitter: 0))],
            completionExecutor: .immediate, delayScheduler: scheduler)

        module.perform(request: TestRequest()) { _ in }
        #expect(spans.spans.map(\.attempt) == [1], "the first attempt's span ends at its answer")
        scheduler.advance(by: 1)

        let (request, attempts) = try single()
        #expect(attempts.map(\.attempt) == [1, 2])
        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "traceparent") }
                == attempts.map(\.context.traceparent))
        #expect(request.startTime <= attempts[0].startTime)
    }

    @Test("when a request is cancelled while it waits to retry, should report the one attempt and a cancelled request")
    func cancelledWaitingToRetry() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let action = tracing()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            actions: [BuiltInAction(action), .retry(RetryPolicy(maxAttempts: 3, initialDelay: 1, jitter: 0))],
            completionExecutor: .immediate, delayScheduler: scheduler)

        module.perform(request: TestRequest()) { _ in }.cancel()
        scheduler.runAll()

        let (request, attempts) = try single()
        #expect(spans.spans.count == 2)
        #expect(attempts.map(\.statusCode) == [503])
        #expect(request.isCancelled)
        #expect(request.attempt == attempts.count, "the attempts started: one")
        #expect(session.recordedRequests.count == 1)
        #expect(action.openTraceCount == 0)
    }

    @Test("when a redaction masks more query items, should mask them in the span's url")
    func customRedaction() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let url = try #require(URL(string: "https://api.example.com/v2/notes?page=2&sort=asc"))

        tracedModule(session, [], tracing: tracing(redaction: .default.adding(queryItems: ["page"]))).perform(
            urlRequest: URLRequest(url: url)
        ) { _ in }

        #expect(
            spans.spans.map(\.url)
                == Array(repeating: "https://api.example.com/v2/notes?page=REDACTED&sort=asc", count: 2))
    }

    // MARK: - Cancel and failures

    @Test("when a request in flight is cancelled, should end its attempt and request spans as cancelled, once each")
    func cancelledInFlight() throws {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let action = tracing()
        let results = ResultCollector<NetworkResponse>()

        let task = tracedModule(session, [], tracing: action).perform(
            request: TestRequest(), completion: results.completion)
        #expect(spans.spans.isEmpty, "nothing ends before the answer")
        task.cancel()
        session.releaseAll()
        task.cancel()

        #expect(results.singleError == .cancelled)
        #expect(spans.spans.count == 2)
        let (request, attempts) = try single()
        let attempt = try #require(attempts.first)
        #expect(attempts.count == 1)
        #expect(request.isCancelled && attempt.isCancelled)
        #expect(request.errorType == "cancelled")
        #expect(attempt.errorType == "cancelled")
        #expect(request.answer == nil)
        #expect(attempt.answer == nil)
        #expect(attempt.statusCode == nil)
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "traceparent") == attempt.context.traceparent)
        #expect(action.openTraceCount == 0)
    }

    @Test("when a request is cancelled before any attempt, should report its request span alone, as cancelled")
    func cancelledBeforeAnyAttempt() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let holder = ProbeAction(prepare: .hold)
        let parentCalls = LockedState(0)
        let action = tracing(parent: { _ in
            parentCalls.withLock { $0 += 1 }
            return TraceContext(traceparent: Self.appTraceparent)
        })
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            actions: [holder, BuiltInAction(action)], completionExecutor: .immediate)

        module.perform(request: TestRequest()) { _ in }.cancel()
        holder.releaseHeld()

        #expect(spans.spans.count == 1)
        let (request, attempts) = try single()
        #expect(attempts.isEmpty)
        #expect(request.isCancelled)
        #expect(request.url == nil, "nothing was sent")
        #expect(request.parentSpanID == Self.appSpanID, "still in the app's trace")
        #expect(request.context.traceID == Self.appTraceID)
        #expect(parentCalls.value == 1)
        #expect(session.recordedRequests.isEmpty)
        #expect(action.openTraceCount == 0)
    }

    @Test("when a later action fails the preparation, should end the attempt unanswered and the request failed")
    func preparationFailure() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let action = tracing()

        tracedModule(session, [ProbeAction(prepare: .fail(SignedOut()))], tracing: action).perform(
            request: TestRequest()
        ) {
            _ in
        }

        let (request, attempts) = try single()
        let attempt = try #require(attempts.first)
        #expect(spans.spans.count == 2)
        #expect(attempts.count == 1)
        #expect(request.errorType == "actionFailed")
        #expect(attempt.errorType == "actionFailed")
        #expect(request.answer == nil)
        #expect(attempt.answer == nil)
        #expect(request.statusCode == nil)
        #expect(attempt.statusCode == nil)
        #expect(session.recordedRequests.isEmpty)
        #expect(action.openTraceCount == 0)
    }

    @Test("when the server answers 404, should say error.type 404 and the status on both spans")
    func httpError() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("not here", status: 404))

        tracedModule(session, []).perform(request: TestRequest()) { _ in }

        let (request, attempts) = try single()
        for span in [request] + attempts {
            #expect(span.errorType == "404")
            #expect(span.statusCode == 404)
            #expect(span.answer == .network)
            #expect(span.attributes["error.type"] == .string("404"))
            #expect(span.attributes["http.response.status_code"] == .int(404))
        }
    }

    @Test(
        "when the transport fails, should say the error's kind and no status",
        arguments: [
            (URLError.Code.timedOut, "timedOut"), (.notConnectedToInternet, "notConnectedToInternet"),
            (.cannotFindHost, "cannotFindHost"), (.networkConnectionLost, "networkConnectionLost"),
        ])
    func transportError(code: URLError.Code, kind: String) throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(code))

        tracedModule(session, []).perform(request: TestRequest()) { _ in }

        let (request, attempts) = try single()
        #expect(attempts.count == 1)
        for span in [request] + attempts {
            #expect(span.errorType == kind)
            #expect(span.statusCode == nil)
            #expect(span.attributes["http.response.status_code"] == nil)
        }
    }

    @Test("when a request is cancelled while a later action holds its attempt, should end both spans as cancelled")
    func cancelledWhileALaterActionHolds() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let holder = ProbeAction(prepare: .hold)
        let action = tracing()

        tracedModule(session, [holder], tracing: action).perform(request: TestRequest()) { _ in }.cancel()
        holder.releaseHeld()

        let (request, attempts) = try single()
        #expect(spans.spans.count == 2)
        #expect(attempts.count == 1)
        #expect(request.isCancelled && attempts.first?.isCancelled == true)
        #expect(attempts.first?.answer == nil)
        #expect(session.recordedRequests.isEmpty)
        #expect(action.openTraceCount == 0)
    }

    @Test("when the cancel comes from another thread while the action prepares, should end both spans once, none open")
    func cancelDuringPreparation() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let holder = ProbeAction(prepare: .hold)
        let inParent = DispatchSemaphore(value: 0)
        let cancelReturned = DispatchSemaphore(value: 0)
        let calls = LockedState(0)
        let action = tracing(parent: { _ in
            if calls.withLock({ count -> Int in
                count += 1
                return count
            }) == 1 {
                inParent.signal()
                _ = cancelReturned.wait(timeout: .now() + 10)
            }
            return nil
        })
        let results = ResultCollector<NetworkResponse>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            actions: [holder, BuiltInAction(action)], completionExecutor: .immediate)
        let task = module.perform(request: TestRequest(), completion: results.completion)
        let released = DispatchSemaphore(value: 0)

        DispatchQueue.global().async {
            holder.releaseHeld()  // the tracing action prepares on this thread
            released.signal()
        }
        // Waits on this thread, not off the pool: the action waits (10 s at most) for the cancel
        // that this test makes right after, and an async test's turn on a busy pool can come later.
        #expect(inParent.wait(timeout: .now() + 10) == .success)
        task.cancel()
        cancelReturned.signal()
        #expect(released.wait(timeout: .now() + 10) == .success)

        #expect(results.singleError == .cancelled)
        #expect(spans.requests.count == 1)
        #expect(spans.spans.filter { $0.kind == .attempt }.count <= 1)
        #expect(spans.spans.allSatisfy { $0.isCancelled })
        #expect(action.openTraceCount == 0)
    }

    @Test("when the app sets the headers in other casing, should read them and send one traceparent")
    func headerCasing() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let request = Traced(headers: ["TraceParent": Self.appTraceparent, "TRACESTATE": "rojo=1"])

        tracedModule(session, []).perform(request: request) { _ in }

        let (span, attempts) = try single()
        let sent = try #require(session.recordedRequests.first)
        #expect(span.parentSpanID == Self.appSpanID)
        let fields = (sent.allHTTPHeaderFields ?? [:]).filter { $0.key.lowercased() == "traceparent" }
        #expect(fields.count == 1)
        #expect(fields.first?.value == attempts.first?.context.traceparent)
        #expect(sent.value(forHTTPHeaderField: "tracestate") == "rojo=1")
    }

    @Test("when the URL has a secret query value, should mask it in the span's url and url.full")
    func maskedURL() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let url = try #require(URL(string: "https://api.example.com/v2/notes?token=s3cret&page=2"))

        tracedModule(session, []).perform(urlRequest: URLRequest(url: url)) { _ in }

        let (request, attempts) = try single()
        for span in [request] + attempts {
            #expect(span.url == "https://api.example.com/v2/notes?token=REDACTED&page=2")
            #expect(span.attributes["url.full"] == .string("https://api.example.com/v2/notes?token=REDACTED&page=2"))
            #expect(span.attributes["server.address"] == .string("api.example.com"))
            #expect(span.attributes["server.port"] == .int(443))
        }
    }

    @Test("when a later action holds the attempt past its timeout, should end the attempt span unanswered, timedOut")
    func preparationTimeout() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let clock = ManualDelayScheduler()
        let action = tracing()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            actions: [BuiltInAction(action), ProbeAction(prepare: .hold)], completionExecutor: .immediate,
            delayScheduler: clock)
        let results = ResultCollector<NetworkResponse>()

        module.perform(
            urlRequest: URLRequest(url: apiBaseURL.appendingPathComponent("slow"), timeoutInterval: 5),
            completion: results.completion)
        clock.advance(by: 6)

        #expect(results.singleError == .timedOut)
        let (request, attempts) = try single()
        #expect(spans.spans.count == 2)
        #expect(attempts.map(\.errorType) == ["timedOut"])
        #expect(attempts.first?.answer == nil)
        #expect(request.errorType == "timedOut")
        #expect(session.recordedRequests.isEmpty)
        #expect(action.openTraceCount == 0)
    }

    @Test("when the URL carries a password, should keep it out of the span's url")
    func userInfoMasked() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let url = try #require(URL(string: "https://ada:s3cret@api.example.com/v2/x"))

        tracedModule(session, []).perform(urlRequest: URLRequest(url: url)) { _ in }

        let (request, attempts) = try single()
        for span in [request] + attempts {
            #expect(span.url?.contains("s3cret") == false)
            #expect(span.attributes["url.full"].map { "\($0)" }?.contains("s3cret") == false)
        }
    }

    @Test("when the server answers 200 and decoding fails, should end the request span failed, with the answer it had")
    func decodingFailure() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("not JSON"))
        let results = ResultCollector<User>()

        tracedModule(session, []).performAndDecode(
            request: TestRequest(), responseType: User.self, completion: results.completion)

        #expect(results.count == 1)
        let (request, attempts) = try single()
        let attempt = try #require(attempts.first)
        #expect(attempt.statusCode == 200)
        #expect(attempt.errorType == nil, "the attempt itself was answered 200")
        #expect(attempt.answer == .network)
        #expect(request.errorType == "decodingFailed")
        // Found broken: a request span that fails in decoding says no status and no answer, though the server answered 200 over the network.
        #expect(request.statusCode == 200)
        #expect(request.answer == .network)

    }

    // MARK: - How the answer was served

    @Test("when a cache answers the second request from memory, should say cache; the first, network")
    func cacheHit() throws {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("v1", headers: ["Cache-Control": "max-age=60"]))
        let module = tracedModule(fake.cached(), [])

        module.perform(request: TestRequest()) { _ in }
        module.perform(request: TestRequest()) { _ in }

        #expect(fake.recordedRequests.count == 1)
        #expect(spans.requests.map(\.answer) == [.network, .cache])
        #expect(spans.requests.map { spans.attempts(of: $0).map(\.answer) } == [[.network], [.cache]])
    }

    @Test("when a cache serves a stale response because the server failed, should say staleCache")
    func staleCache() throws {
        let clock = ManualDelayScheduler()
        let fake = FakeNetworkSession()
        fake.stub(
            .any, with: .text("v1", headers: ["Cache-Control": "max-age=10, stale-if-error=60"]), .status(503))
        let session = fake.cached(
            maximumBytes: 1_000, maximumEntries: 10, now: { Date(timeIntervalSinceReferenceDate: clock.now) })
        let module = tracedModule(session, [])

        module.perform(request: TestRequest()) { _ in }
        module.perform(request: TestRequest()) { _ in }
        clock.advance(by: 20)
        module.perform(request: TestRequest()) { _ in }

        #expect(spans.requests.map(\.answer) == [.network, .cache, .staleCache])
        #expect(spans.requests.last.map { spans.attempts(of: $0).map(\.answer) } == [.staleCache])
    }

    @Test("when a cache answers only-if-cached with its own 504 and sends nothing, should not say network")
    func onlyIfCachedMiss() throws {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("v1", headers: ["Cache-Control": "max-age=60"]))
        let results = ResultCollector<NetworkResponse>()

        tracedModule(fake.cached(), []).perform(
            request: Traced(headers: ["Cache-Control": "only-if-cached"]), completion: results.completion)

        #expect(fake.recordedRequests.isEmpty, "nothing went on the wire")
        #expect(results.singleError?.statusCode == 504)
        let (request, attempts) = try single()
        #expect(request.statusCode == 504)
        #expect(request.errorType == "504")
        // Found broken: the 504 a CachedSession makes for only-if-cached, without a call, is reported as answer .network.
        #expect(request.answer == .cache)
        #expect(attempts.first?.answer == .cache)

    }

    @Test("when two identical requests share one call, should report two request spans, the joiner's a sharedCall")
    func sharedCall() throws {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .text("shared"))
        let action = tracing()
        let module = tracedModule(fake.deduplicated(), [], tracing: action)
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest(), completion: results.completion)
        module.perform(request: TestRequest(), completion: results.completion)
        fake.releaseAll()

        #expect(results.count == 2)
        #expect(fake.recordedRequests.count == 1, "one call on the wire")
        #expect(spans.requests.count == 2)
        #expect(Set(spans.requests.map(\.context.traceID)).count == 2, "two requests, two traces")
        let sent = try #require(fake.recordedRequests.first?.value(forHTTPHeaderField: "traceparent"))
        let attempts = spans.spans.filter { $0.kind == .attempt }
        #expect(attempts.count == 2)
        let leader = try #require(attempts.first { $0.context.traceparent == sent })
        let joiner = try #require(attempts.first { $0.context.traceparent != sent })
        #expect(leader.answer == .network)
        #expect(joiner.answer == .sharedCall)
        #expect(joiner.statusCode == 200)
        #expect(joiner.attributes["networkmodule.answer"] == .string("sharedCall"))
        let joinerRequest = try #require(spans.requests.first { $0.context.traceID == joiner.context.traceID })
        #expect(joinerRequest.answer == .sharedCall)
        #expect(action.openTraceCount == 0)
    }

    @Test(
        "when the leader of a shared call is cancelled, should end its spans cancelled and the joiner's with the answer"
    )
    func sharedCallLeaderCancelled() throws {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .text("shared"))
        let action = tracing()
        let module = tracedModule(fake.deduplicated(), [], tracing: action)
        let leader = ResultCollector<NetworkResponse>()
        let joiner = ResultCollector<NetworkResponse>()

        let leading = module.perform(request: TestRequest(), completion: leader.completion)
        module.perform(request: TestRequest(), completion: joiner.completion)
        leading.cancel()
        fake.releaseAll()

        #expect(leader.singleError == .cancelled)
        #expect(joiner.singleValue?.statusCode == 200)
        #expect(spans.requests.count == 2)
        #expect(spans.spans.count == 4)
        let cancelled = try #require(spans.requests.first { $0.isCancelled })
        let answered = try #require(spans.requests.first { !$0.isCancelled })
        #expect(spans.attempts(of: cancelled).map(\.errorType) == ["cancelled"])
        #expect(spans.attempts(of: answered).map(\.answer) == [.sharedCall])
        #expect(answered.statusCode == 200)
        #expect(action.openTraceCount == 0)
    }

    @Test(
        "when a joiner of a shared 503 is cancelled while it waits to retry, should end its request span with no answer"
    )
    func joinerCancelledWaitingToRetry() throws {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .status(503), .status(200))
        let scheduler = ManualDelayScheduler()
        let action = tracing()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: fake.deduplicated(),
            actions: [BuiltInAction(action), .retry(RetryPolicy(maxAttempts: 2, initialDelay: 1, jitter: 0))],
            completionExecutor: .immediate, delayScheduler: scheduler)
        let joinerResults = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest()) { _ in }
        let joiner = module.perform(request: TestRequest(), completion: joinerResults.completion)
        fake.releaseAll()  // both get the one 503, and wait to retry
        joiner.cancel()
        scheduler.runAll()
        fake.releaseAll()

        #expect(joinerResults.singleError == .cancelled)
        let cancelled = try #require(spans.requests.first { $0.isCancelled })
        #expect(spans.attempts(of: cancelled).map(\.answer) == [.sharedCall], "its one attempt joined the shared 503")
        // Found broken: a request span cancelled between attempts takes its answer from the last answered attempt's recorder: .sharedCall, where a cancel has none.
        #expect(cancelled.answer == nil)

        #expect(action.openTraceCount == 0)
    }

    // MARK: - Origins

    @Test("when origins is nil, should send the headers to the base URL's origin and to no other")
    func defaultOriginOnly() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = tracedModule(session, [])
        var elsewhere = URLRequest(url: URL(string: "https://other.example.com/x")!)
        elsewhere.setValue(Self.appTraceparent, forHTTPHeaderField: "traceparent")
        elsewhere.setValue("rojo=1", forHTTPHeaderField: "tracestate")
        var otherPort = URLRequest(url: URL(string: "https://api.example.com:8443/v2/x")!)
        otherPort.setValue(Self.appTraceparent, forHTTPHeaderField: "traceparent")

        module.perform(request: TestRequest()) { _ in }
        module.perform(urlRequest: elsewhere) { _ in }
        module.perform(urlRequest: otherPort) { _ in }

        let sent = session.recordedRequests
        #expect(sent.count == 3)
        #expect(sent[0].value(forHTTPHeaderField: "traceparent") != nil)
        for request in sent.dropFirst() {
            #expect(request.value(forHTTPHeaderField: "traceparent") == nil, "removed, though the app set it")
            #expect(request.value(forHTTPHeaderField: "tracestate") == nil)
        }
        #expect(spans.requests.count == 3, "spans for every request, sent headers or not")
        #expect(spans.spans.filter { $0.kind == .attempt }.count == 3)
    }

    @Test("when origins lists another origin, should send the headers there")
    func listedOrigin() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = tracedModule(session, [], tracing: tracing(origins: [Self.otherOrigin]))

        module.perform(urlRequest: URLRequest(url: URL(string: "https://other.example.com/x")!)) { _ in }
        module.perform(request: TestRequest()) { _ in }

        let sent = session.recordedRequests.map { $0.value(forHTTPHeaderField: "traceparent") }
        let attempts = spans.spans.filter { $0.kind == .attempt }
        #expect(sent.count == 2)
        #expect(sent.first == attempts.first?.context.traceparent)
        #expect(sent.first != nil)
        #expect(sent.last == .some(nil), "the base URL's origin is not listed")
    }

    @Test(
        "when origins spell an origin differently, should compare scheme, host and port as origins",
        arguments: [
            ("HTTPS://Other.Example.COM", true), ("https://other.example.com:443/any/path?q=1", true),
            ("http://other.example.com", false), ("https://other.example.com:8443", false),
            ("https://sub.other.example.com", false),
        ])
    func originSpelling(listed: String, sends: Bool) throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = tracedModule(session, [], tracing: tracing(origins: [try #require(URL(string: listed))]))

        module.perform(urlRequest: URLRequest(url: URL(string: "https://other.example.com/x")!)) { _ in }

        let sent = try #require(session.recordedRequests.first)
        #expect((sent.value(forHTTPHeaderField: "traceparent") != nil) == sends)
    }

    @Test("when origins is empty, should send the headers nowhere and still report every span")
    func noOrigins() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        var carrying = URLRequest(url: apiBaseURL.appendingPathComponent("x"))
        carrying.setValue(Self.appTraceparent, forHTTPHeaderField: "traceparent")
        let module = tracedModule(session, [], tracing: tracing(origins: []))

        module.perform(request: TestRequest()) { _ in }
        module.perform(urlRequest: carrying) { _ in }

        #expect(session.recordedRequests.count == 2)
        #expect(session.recordedRequests.allSatisfy { $0.value(forHTTPHeaderField: "traceparent") == nil })
        #expect(spans.requests.count == 2)
        #expect(spans.requests.allSatisfy { spans.attempts(of: $0).count == 1 })
        #expect(spans.requests.last?.parentSpanID == Self.appSpanID, "the app's span is still the parent")
    }

    // MARK: - The app's span

    @Test("when the request carries a valid traceparent and tracestate, should continue that trace and pass the state")
    func continuesTheRequestsTrace() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let parentCalls = LockedState(0)
        let action = tracing(parent: { _ in
            parentCalls.withLock { $0 += 1 }
            return nil
        })
        let request = Traced(
            headers: [
                "traceparent": "00-\(Self.appTraceID)-\(Self.appSpanID)-00", "tracestate": "rojo=1,congo=t61rcWkgMzE",
            ])

        tracedModule(session, [], tracing: action).perform(request: request) { _ in }

        let (span, attempts) = try single()
        let attempt = try #require(attempts.first)
        #expect(span.parentSpanID == Self.appSpanID)
        #expect(span.context.traceID == Self.appTraceID)
        #expect(span.context.spanID != Self.appSpanID)
        #expect(span.context.isSampled == false, "the app's flag")
        #expect(span.context.traceState == "rojo=1,congo=t61rcWkgMzE")
        #expect(attempt.context.traceState == "rojo=1,congo=t61rcWkgMzE")
        let sent = try #require(session.recordedRequests.first)
        #expect(sent.value(forHTTPHeaderField: "traceparent") == attempt.context.traceparent)
        #expect(sent.value(forHTTPHeaderField: "traceparent")?.hasPrefix("00-\(Self.appTraceID)-") == true)
        #expect(sent.value(forHTTPHeaderField: "traceparent")?.hasSuffix("-00") == true)
        #expect(sent.value(forHTTPHeaderField: "tracestate") == "rojo=1,congo=t61rcWkgMzE")
        #expect(parentCalls.value == 0, "the request's own span wins")
    }

    @Test("when the request carries a malformed tracestate, should continue the trace and send no tracestate")
    func malformedTraceStateDropped() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let request = Traced(headers: ["traceparent": Self.appTraceparent, "tracestate": "rojo=1,rojo=2"])

        tracedModule(session, []).perform(request: request) { _ in }

        let (span, _) = try single()
        #expect(span.parentSpanID == Self.appSpanID)
        #expect(span.context.traceState == nil)
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "tracestate") == nil)
    }

    @Test(
        "when the request carries a malformed traceparent, should start a new trace and never send it on",
        arguments: [
            "00-\(TraceContextHeadersTests.traceID.uppercased())-\(TraceContextHeadersTests.spanID)-01",
            "00-00000000000000000000000000000000-\(TraceContextHeadersTests.spanID)-01",
            "ff-\(TraceContextHeadersTests.traceID)-\(TraceContextHeadersTests.spanID)-01",
            "00-\(TraceContextHeadersTests.traceID)-\(TraceContextHeadersTests.spanID)-01-extra",
            "garbage", "", "00-🙂", String(repeating: "0-", count: 4_000),
        ])
    func malformedTraceparent(value: String) throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        var request = URLRequest(url: apiBaseURL.appendingPathComponent("x"))
        request.setValue(value, forHTTPHeaderField: "traceparent")
        request.setValue("rojo=1", forHTTPHeaderField: "tracestate")
        let results = ResultCollector<NetworkResponse>()

        tracedModule(session, []).perform(urlRequest: request, completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        let (span, attempts) = try single()
        let attempt = try #require(attempts.first)
        #expect(span.parentSpanID == nil, "a new trace")
        #expect(span.context.traceID != Self.appTraceID)
        let sent = try #require(session.recordedRequests.first)
        #expect(sent.value(forHTTPHeaderField: "traceparent") == attempt.context.traceparent)
        #expect(sent.value(forHTTPHeaderField: "traceparent") != value)
        #expect(sent.value(forHTTPHeaderField: "tracestate") == nil, "the malformed parent's state is not sent")
    }

    @Test("when the request carries none, should use the parent closure, once per request, retries included")
    func parentClosure() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let parentCalls = LockedState(0)
        let action = tracing(parent: { _ in
            parentCalls.withLock { $0 += 1 }
            return TraceContext(traceparent: Self.appTraceparent, tracestate: "congo=t61rcWkgMzE")
        })

        tracedModule(session, [ProbeAction(retry: [.retry])], tracing: action).perform(request: TestRequest()) { _ in }

        let (span, attempts) = try single()
        #expect(parentCalls.value == 1)
        #expect(attempts.count == 2)
        #expect(span.parentSpanID == Self.appSpanID)
        #expect(span.context.traceID == Self.appTraceID)
        #expect(attempts.allSatisfy { $0.context.traceID == Self.appTraceID })
        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "tracestate") } == [
                "congo=t61rcWkgMzE", "congo=t61rcWkgMzE",
            ])
    }

    @Test("when the parent closure finds no valid span, should start a new trace")
    func parentClosureMalformed() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let action = tracing(parent: { _ in TraceContext(traceparent: "00-not-a-span-01") })

        tracedModule(session, [], tracing: action).perform(request: TestRequest()) { _ in }

        let (span, attempts) = try single()
        #expect(span.parentSpanID == nil)
        #expect(
            session.recordedRequests.first?.value(forHTTPHeaderField: "traceparent")
                == attempts.first?.context.traceparent)
    }

    // MARK: - Redirects

    /// A fake that redirects `/v2/start` to `location`, and answers anything else 200.
    func redirecting(to location: String) -> FakeNetworkSession {
        let session = FakeNetworkSession()
        session.stub(.any) { request in
            request.url?.path == "/v2/start" ? .status(302, headers: ["Location": location]) : .text("end")
        }
        return session
    }

    @Test("when a redirect leaves the origin, should strip traceparent and tracestate from the next request")
    func crossOriginRedirect() throws {
        let session = redirecting(to: "https://other.example.com/end")
        let request = Traced(
            path: "/start", headers: ["traceparent": Self.appTraceparent, "tracestate": "rojo=1"],
            redirectPolicy: .decide { _, next, _ in next })
        let results = ResultCollector<NetworkResponse>()

        tracedModule(session, []).perform(request: request, completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        let sent = session.recordedRequests
        #expect(sent.map { $0.url?.host } == ["api.example.com", "other.example.com"])
        #expect(sent.first?.value(forHTTPHeaderField: "traceparent") != nil)
        #expect(sent.first?.value(forHTTPHeaderField: "tracestate") == "rojo=1")
        #expect(sent.last?.value(forHTTPHeaderField: "traceparent") == nil)
        #expect(sent.last?.value(forHTTPHeaderField: "tracestate") == nil)
    }

    @Test("when a redirect stays on the origin, should keep the attempt's traceparent and tracestate")
    func sameOriginRedirect() throws {
        let session = redirecting(to: "https://api.example.com/v2/end")
        let request = Traced(
            path: "/start", headers: ["traceparent": Self.appTraceparent, "tracestate": "rojo=1"],
            redirectPolicy: .decide { _, next, _ in next })

        tracedModule(session, []).perform(request: request) { _ in }

        let (_, attempts) = try single()
        let attempt = try #require(attempts.first)
        let sent = session.recordedRequests
        #expect(sent.count == 2)
        #expect(
            sent.map { $0.value(forHTTPHeaderField: "traceparent") } == [
                attempt.context.traceparent, attempt.context.traceparent,
            ])
        #expect(sent.map { $0.value(forHTTPHeaderField: "tracestate") } == ["rojo=1", "rojo=1"])
    }

    // MARK: - Logs and HAR

    @Test("when a logging action logs a traced request, should show the trace headers by default, mask them on demand")
    func loggingKeepsOrMasks() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let plain = LogEntries()
        let masked = LogEntries()

        tracedModule(session, [.logging(sink: plain.sink)]).perform(request: TestRequest()) { _ in }
        let shown = try #require(session.recordedRequests.last?.value(forHTTPHeaderField: "traceparent"))
        tracedModule(
            session,
            [.logging(redaction: .default.adding(headers: ["traceparent", "tracestate"]), sink: masked.sink)]
        ).perform(request: Traced(headers: ["traceparent": Self.appTraceparent, "tracestate": "rojo=secretish"])) {
            _ in
        }
        let hidden = try #require(session.recordedRequests.last?.value(forHTTPHeaderField: "traceparent"))

        #expect(plain.text.contains(shown))
        #expect(masked.text.lowercased().contains("traceparent"))
        #expect(!masked.text.contains(hidden))
        #expect(!masked.text.contains(Self.appTraceID))
        #expect(!masked.text.contains("rojo=secretish"))
    }

    /// The request headers of the HAR's entries.
    func harHeaders(_ recorder: HARRecordingSession) throws -> [[String: String]] {
        let archive = try #require(try JSONSerialization.jsonObject(with: recorder.harData()) as? [String: Any])
        let entries = try #require((archive["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        return entries.map { entry in
            let headers = (entry["request"] as? [String: Any])?["headers"] as? [[String: Any]] ?? []
            var byName: [String: String] = [:]
            for header in headers {
                if let name = header["name"] as? String, let value = header["value"] as? String {
                    byName[name.lowercased()] = value
                }
            }
            return byName
        }
    }

    @Test("when a HAR records a traced request, should keep the trace headers by default, mask them on demand")
    func harKeepsOrMasks() throws {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .status(200))
        let plain = HARRecordingSession(wrapping: fake)
        let masked = HARRecordingSession(
            wrapping: fake, redaction: .default.adding(headers: ["traceparent", "tracestate"]))
        let request = Traced(headers: ["traceparent": Self.appTraceparent, "tracestate": "rojo=1"])

        tracedModule(plain, []).perform(request: request) { _ in }
        tracedModule(masked, []).perform(request: request) { _ in }

        let sent = fake.recordedRequests.map { $0.value(forHTTPHeaderField: "traceparent") }
        let plainHeaders = try #require(try harHeaders(plain).first)
        let maskedHeaders = try #require(try harHeaders(masked).first)
        #expect(plainHeaders["traceparent"] == sent.first ?? nil)
        #expect(plainHeaders["tracestate"] == "rojo=1")
        #expect(maskedHeaders["traceparent"] != nil)
        #expect(maskedHeaders["traceparent"] != sent.last ?? nil)
        #expect(maskedHeaders["tracestate"] != "rojo=1")
    }

    // MARK: - The table of open traces

    @Test("when many requests end every way, should leave no trace open in the action")
    func tableEmpties() throws {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.path("/v2/ok"), with: .status(200))
        session.stub(.path("/v2/missing"), with: .status(404))
        session.stub(.path("/v2/down"), with: .error(.timedOut))
        session.stub(.path("/v2/flaky"), with: .status(503), .status(200))
        let action = tracing()
        let failing = ProbeAction(prepare: .fail(SignedOut()))
        let module = tracedModule(session, [ProbeAction(retry: [.retry, .retry, .retry])], tracing: action)
        let failingModule = self.tracedModule(session, [failing], tracing: action)
        let holder = ProbeAction(prepare: .hold)
        let heldModule = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            actions: [holder, BuiltInAction(action)], completionExecutor: .immediate)
        let results = ResultCollector<NetworkResponse>()

        for round in 0..<20 {
            for path in ["/ok", "/missing", "/down", "/flaky"] {
                module.perform(request: TestRequest(path: path), completion: results.completion)
            }
            let cancelled = module.perform(request: TestRequest(path: "/ok"), completion: results.completion)
            failingModule.perform(request: TestRequest(path: "/ok"), completion: results.completion)
            heldModule.perform(request: TestRequest(path: "/ok"), completion: results.completion).cancel()
            if round.isMultiple(of: 2) { cancelled.cancel() }
            session.releaseAll()
            session.releaseAll()
            if !round.isMultiple(of: 2) { cancelled.cancel() }
        }
        holder.releaseHeld()

        #expect(results.count == 20 * 7)
        #expect(spans.requests.count == 20 * 7)
        #expect(action.openTraceCount == 0)
    }

    // MARK: - Metrics beside tracing

    @Test("when metrics run beside tracing on a fake, should report no phases")
    func metricsPhasesNil() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let metrics = LockedState([RequestMetrics]())

        tracedModule(session, [.metrics { report in metrics.withLock { $0.append(report) } }]).perform(
            request: TestRequest()
        ) { _ in }

        #expect(metrics.value.count == 1)
        #expect(metrics.value.first?.phases == nil)
        #expect(try single().request.phases == nil)
    }
}
