import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A second attack on the tracing action (issue 42), after the fixes of the first: the span
/// answer and status rules in every ending, exactly-once under concurrency, header casing in the
/// other header actions, and the attempt recorder under every order of session decorators.
/// A test that found a break says so in a comment; the break is fixed, and the test pins it.
@Suite("Tracing action: second attack")
struct TracingSecondAttackTests {
    // MARK: - Support

    static func traced(
        session: some NetworkSession, after actions: [any NetworkModuleAction] = [],
        scheduler: some DelayScheduler = ManualDelayScheduler()
    ) -> TracingAttackTests.Traced {
        TracingAttackTests.traced(session: session, after: actions, scheduler: scheduler)
    }

    /// The one request span and its attempts, in order.
    static func single(_ spans: SpanRecorder) throws -> (request: HTTPSpan, attempts: [HTTPSpan]) {
        let requests = spans.requests
        try #require(requests.count == 1, "request spans: \(requests.count)")
        let request = requests[0]
        return (request, spans.attempts(of: request).sorted { $0.attempt < $1.attempt })
    }

    static func describe(_ span: HTTPSpan) -> String {
        "\(span.kind)#\(span.attempt) status=\(span.statusCode.map(String.init) ?? "nil") error=\(span.errorType ?? "nil") answer=\(span.answer?.rawValue ?? "nil")"
    }

    static func describe(_ spans: [HTTPSpan]) -> String {
        spans.map(describe).joined(separator: " | ")
    }

    // MARK: - Answer and status in every ending

    @Test(
        "when a 503 is retried and the 200 then fails to decode, should keep the 200 and network on the request span, and the 503 on the first attempt"
    )
    func retryThenDecodingFailure() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .text("not json"))
        let traced = Self.traced(session: session, after: [ProbeAction(retry: [.retry])])
        let results = ResultCollector<User>()

        traced.module.performAndDecode(request: TestRequest(), responseType: User.self, completion: results.completion)

        let (request, attempts) = try Self.single(traced.spans)
        print("retry then decoding failure: \(Self.describe(traced.spans.spans))")
        #expect(results.singleError?.kindName == "decodingFailed")
        #expect(attempts.map(\.statusCode) == [503, 200])
        #expect(attempts.map(\.answer) == [.network, .network])
        #expect(attempts.map(\.errorType) == ["503", nil])
        #expect(request.attempt == 2)
        #expect(request.statusCode == 200)
        #expect(request.answer == .network)
        #expect(request.errorType == "decodingFailed")
        #expect(traced.openTraces == 0)
    }

    @Test(
        "when a 503 is retried and the request is cancelled while the second attempt is prepared, should end the second attempt and the request cancelled, with no status or answer"
    )
    func retryThenCancelDuringSecondPreparation() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let hold = HoldingAttempt(2)
        let traced = Self.traced(session: session, after: [hold, ProbeAction(retry: [.retry])])
        let results = ResultCollector<NetworkResponse>()

        let task = traced.module.perform(request: TestRequest(), completion: results.completion)
        #expect(hold.heldCount == 1, "the second attempt is held in preparation")
        task.cancel()
        hold.releaseAll()

        let (request, attempts) = try Self.single(traced.spans)
        print("retry then cancel in preparation: \(Self.describe(traced.spans.spans))")
        #expect(results.singleError == .cancelled)
        #expect(session.recordedRequests.count == 1)
        #expect(attempts.map(\.attempt) == [1, 2])
        #expect(attempts.first?.statusCode == 503)
        #expect(attempts.first?.answer == .network)
        #expect(attempts.last?.isCancelled == true)
        #expect(attempts.last?.statusCode == nil)
        #expect(attempts.last?.answer == nil)
        #expect(request.isCancelled)
        #expect(request.statusCode == nil)
        #expect(request.answer == nil)
        #expect(request.phases == nil)
        #expect(SpanChecks.problems(in: traced.spans.spans) == [])
        #expect(traced.openTraces == 0)
    }

    @Test("when the transport times out in flight, should end the attempt and the request timedOut, unanswered")
    func timeoutInFlight() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .error(.timedOut))
        let traced = Self.traced(session: session)
        let results = ResultCollector<NetworkResponse>()

        traced.module.perform(request: TestRequest(), completion: results.completion)

        let (request, attempts) = try Self.single(traced.spans)
        print("timeout in flight: \(Self.describe(traced.spans.spans))")
        #expect(attempts.count == 1)
        #expect(attempts.first?.errorType == "timedOut")
        #expect(attempts.first?.answer == nil)
        #expect(attempts.first?.statusCode == nil)
        #expect(request.errorType == "timedOut")
        #expect(request.answer == nil)
        #expect(request.statusCode == nil)
    }

    @Test(
        "when the module's preparation deadline passes while the request is held, should end the open attempt timedOut, unanswered"
    )
    func timeoutWhileHeldWithAnsweredFirstAttempt() throws {
        // A 503 answered, then the retry held in preparation until the deadline: the last answer
        // (attempt 1) must not leak into the request span.
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))
        let hold = HoldingAttempt(2)
        let scheduler = ManualDelayScheduler()
        let traced = TracingAttackTests.traced(
            session: session, after: [hold, ProbeAction(retry: [.retry])], scheduler: scheduler)
        let results = ResultCollector<NetworkResponse>()

        let task = traced.module.perform(request: TestRequest(), completion: results.completion)
        scheduler.runAll()
        if results.count == 0 { task.cancel() }
        hold.releaseAll()

        let (request, attempts) = try Self.single(traced.spans)
        print("held second attempt, deadline or cancel: \(Self.describe(traced.spans.spans))")
        #expect(results.count == 1)
        #expect(request.statusCode == nil)
        #expect(request.answer == nil)
        #expect(attempts.last?.answer == nil)
        #expect(traced.openTraces == 0)
    }

    @Test(
        "when validate() throws on a 200, should still report the 200 the server answered on the attempt and the request"
    )
    func validateThrowsOnOK() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("ok"))
        let traced = Self.traced(session: session, after: [RejectingValidator()])
        let results = ResultCollector<NetworkResponse>()

        traced.module.perform(request: TestRequest(), completion: results.completion)

        let (request, attempts) = try Self.single(traced.spans)
        print("validate throws on a 200: \(Self.describe(traced.spans.spans))")
        #expect(results.singleError?.kindName == "actionFailed")
        #expect(attempts.first?.answer == .network)
        #expect(request.answer == .network)
        #expect(request.errorType == "actionFailed")
        // OpenTelemetry's http.response.status_code is the status the server sent, whatever the
        // client made of it; a decoding failure keeps it, and the answer says .network here.
        // Found broken: validate() throwing on a 200 dropped the status from both spans, though
        // their answer said .network.
        #expect(attempts.first?.statusCode == 200)
        #expect(request.statusCode == 200)
    }

    @Test(
        "when a 503 is retried and validate() throws on the 200, should end the request with the second attempt's answer"
    )
    func retryThenValidateThrows() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .text("ok"))
        let traced = Self.traced(session: session, after: [RejectingValidator(), ProbeAction(retry: [.retry])])

        traced.module.perform(request: TestRequest()) { _ in }

        let (request, attempts) = try Self.single(traced.spans)
        print("retry then validate throws: \(Self.describe(traced.spans.spans))")
        #expect(attempts.map(\.answer) == [.network, .network])
        #expect(attempts.first?.statusCode == 503, "the 503 is never validated: validate sees successes only")
        #expect(request.answer == .network)
        #expect(request.attempt == 2)
        // Found broken: validate() throwing on a 200 dropped the status from the second attempt
        // and the request.
        #expect(attempts.last?.statusCode == 200)
        #expect(request.statusCode == 200)
    }

    @Test(
        "when validate() turns a 200 into the app's own 401, should report what the app said (observed: 401, the server's 200 is not kept)"
    )
    func validateThrowsHTTPError() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text("session expired"))
        let traced = Self.traced(session: session, after: [UnauthorizingValidator()])

        traced.module.perform(request: TestRequest()) { _ in }

        let (request, attempts) = try Self.single(traced.spans)
        print("validate throws a 401 on a 200: \(Self.describe(traced.spans.spans))")
        // A note, not a break: the span's http.response.status_code is the app's 401, not the
        // 200 on the wire; the guide says nothing of a validator's own HTTP error.
        #expect(attempts.first?.statusCode == 401)
        #expect(request.errorType == "401")
        #expect(request.answer == .network)
    }

    @Test(
        "when a cache hit or a joined call fails to decode, should keep the 200 and the answer (cache, sharedCall) on the request span"
    )
    func decodingFailureKeepsCacheAndSharedAnswers() throws {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .text("not json", headers: ["Cache-Control": "max-age=60"]))
        let traced = Self.traced(session: fake.deduplicated().cached())
        let results = ResultCollector<User>()

        for _ in 0..<2 {
            traced.module.performAndDecode(
                request: TestRequest(), responseType: User.self, completion: results.completion)
        }
        fake.releaseAll()
        traced.module.performAndDecode(request: TestRequest(), responseType: User.self, completion: results.completion)

        print("decoding failures: \(Self.describe(traced.spans.requests))")
        #expect(results.results.allSatisfy { $0.error?.kindName == "decodingFailed" })
        #expect(traced.spans.requests.map(\.answer) == [.network, .sharedCall, .cache])
        #expect(traced.spans.requests.map(\.statusCode) == [200, 200, 200])
        #expect(traced.spans.requests.allSatisfy { $0.errorType == "decodingFailed" })
    }

    @Test("when a stale entry is revalidated and the server answers 304, should report what was observed")
    func revalidated304() throws {
        let clock = ManualDelayScheduler()
        let fake = FakeNetworkSession()
        fake.stub(
            .any,
            with: .text("v1", headers: ["Cache-Control": "max-age=10", "ETag": "\"a\""]),
            .status(304, headers: ["Cache-Control": "max-age=10", "ETag": "\"a\""]))
        let session = fake.cached(
            maximumBytes: 1_000, maximumEntries: 10, now: { Date(timeIntervalSinceReferenceDate: clock.now) })
        let traced = Self.traced(session: session)
        let results = ResultCollector<NetworkResponse>()

        traced.module.perform(request: TestRequest(), completion: results.completion)
        clock.advance(by: 20)
        traced.module.perform(request: TestRequest(), completion: results.completion)

        let requests = traced.spans.requests
        print("304 revalidation: \(Self.describe(traced.spans.spans)); wire: \(fake.recordedRequests.count)")
        #expect(fake.recordedRequests.count == 2, "the revalidation went to the server")
        #expect(fake.recordedRequests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"a\"")
        #expect(results.results.allSatisfy { (try? $0.get())?.statusCode == 200 })
        #expect(requests.count == 2)
        #expect(requests.last?.statusCode == 200)
        // The server was asked (its traceparent reached it) and the body came from memory, fresh
        // again: observed .cache, which HTTPSpan.Answer.cache allows ("from memory, fresh") but the
        // guide's "a cache hit ... its traceparent never left the app" does not cover (a note for
        // the docs, not a break).
        #expect(requests.last?.answer == .cache)
        #expect(
            fake.recordedRequests.last?.value(forHTTPHeaderField: "traceparent")?.contains(
                requests.last.flatMap { traced.spans.attempts(of: $0).first?.context.spanID } ?? "none") == true,
            "the revalidating attempt's traceparent reached the server")
    }

    @Test("when only-if-cached finds a fresh entry, should say cache and send nothing")
    func onlyIfCachedHit() throws {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("v1", headers: ["Cache-Control": "max-age=60"]))
        let traced = Self.traced(session: fake.cached())
        let results = ResultCollector<NetworkResponse>()

        traced.module.perform(request: TestRequest(), completion: results.completion)
        traced.module.perform(
            request: TestRequest(headers: ["Cache-Control": "only-if-cached"]), completion: results.completion)

        print("only-if-cached hit: \(Self.describe(traced.spans.spans))")
        #expect(fake.recordedRequests.count == 1)
        #expect(traced.spans.requests.map(\.answer) == [.network, .cache])
        #expect(traced.spans.requests.map(\.statusCode) == [200, 200])
        #expect(traced.spans.requests.last.map { traced.spans.attempts(of: $0).map(\.answer) } == [.cache])
    }

    @Test(
        "when only-if-cached misses after a stale entry, should say cache for the cache's own 504 and send nothing"
    )
    func onlyIfCachedStaleMiss() throws {
        let clock = ManualDelayScheduler()
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("v1", headers: ["Cache-Control": "max-age=10"]))
        let traced = Self.traced(
            session: fake.cached(
                maximumBytes: 1_000, maximumEntries: 10, now: { Date(timeIntervalSinceReferenceDate: clock.now) }))
        let results = ResultCollector<NetworkResponse>()

        traced.module.perform(request: TestRequest(), completion: results.completion)
        clock.advance(by: 20)
        traced.module.perform(
            request: TestRequest(headers: ["Cache-Control": "only-if-cached"]), completion: results.completion)

        print("only-if-cached stale miss: \(Self.describe(traced.spans.spans))")
        #expect(fake.recordedRequests.count == 1)
        #expect(traced.spans.requests.last?.statusCode == 504)
        #expect(traced.spans.requests.last?.answer == .cache)
    }

    @Test(
        "when recording HAR over a cache and replaying it, should say network, cache when recording and network for every replayed answer"
    )
    func harRecordingAndReplay() throws {
        let fake = FakeNetworkSession()
        fake.stub(.any, with: .text("v1", headers: ["Cache-Control": "max-age=60"]))
        let recording = HARRecordingSession(wrapping: fake.cached())
        let recorded = Self.traced(session: recording)
        recorded.module.perform(request: TestRequest()) { _ in }
        recorded.module.perform(request: TestRequest()) { _ in }
        print("HAR recording: \(Self.describe(recorded.spans.spans))")
        #expect(recorded.spans.requests.map(\.answer) == [.network, .cache])

        let replay = try HARReplaySession(harData: recording.harData())
        let replayed = Self.traced(session: replay)
        let results = ResultCollector<NetworkResponse>()
        replayed.module.perform(request: TestRequest(), completion: results.completion)
        replayed.module.perform(request: TestRequest(), completion: results.completion)
        print("HAR replay: \(Self.describe(replayed.spans.spans))")
        #expect(results.results.allSatisfy { (try? $0.get())?.statusCode == 200 })
        // A replayed Cache-Status is a copy: a plain response, which no one can make a cache answer.
        #expect(replayed.spans.requests.map(\.answer) == [.network, .network])
        #expect(replayed.spans.requests.map(\.statusCode) == [200, 200])
    }

    @Test(
        "when the app's own NetworkSession answers, even with a forged Cache-Status, should say network and keep the status"
    )
    func usersOwnSession() throws {
        let fake = FakeNetworkSession()
        fake.stub(
            .any, with: .text("v1", headers: ["Cache-Status": "NetworkModule; hit; ttl=-5", "Age": "100"]),
            .status(500))
        let traced = Self.traced(session: OwnSession(wrapped: fake))
        let results = ResultCollector<NetworkResponse>()

        traced.module.perform(request: TestRequest(), completion: results.completion)
        traced.module.perform(request: TestRequest(), completion: results.completion)

        print("own session: \(Self.describe(traced.spans.spans))")
        #expect(traced.spans.requests.map(\.answer) == [.network, .network])
        #expect(traced.spans.requests.map(\.statusCode) == [200, 500])
        #expect(traced.spans.requests.map(\.errorType) == [nil, "500"])
        #expect(traced.spans.spans.allSatisfy { $0.phases == nil })
    }

    @Test("when the app's own session answers with no HTTP response and no error, should say no answer")
    func usersOwnSessionAnswersNothing() throws {
        let traced = Self.traced(session: NothingSession())
        let results = ResultCollector<NetworkResponse>()

        traced.module.perform(request: TestRequest(), completion: results.completion)

        let (request, attempts) = try Self.single(traced.spans)
        print("own session, nothing: \(Self.describe(traced.spans.spans)); \(String(describing: results.single))")
        #expect(results.count == 1)
        #expect(attempts.first?.answer == nil)
        #expect(request.answer == nil)
        #expect(request.statusCode == nil)
    }

    // MARK: - Exactly once under concurrency

    @Test(
        "when 500 held requests are cancelled and answered at once from 8 threads, should report each request span once, attempts before it, an answer only for the delivered, and keep no entry"
    )
    func cancelRacesAnswer() async throws {
        let count = 500
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .text("ok"))
        let traced = Self.traced(session: session)
        let results = (0..<count).map { _ in ResultCollector<NetworkResponse>() }
        let tasks = (0..<count).map { index in
            traced.module.perform(request: TestRequest(path: "/r/\(index)"), completion: results[index].completion)
        }
        #expect(session.heldCount == count)

        // Four pairs of threads, let go at once; in each pair one cancels and the other answers
        // the same requests, in the same order, so that each cancel meets its answer.
        let gate = DispatchGroup()
        gate.enter()
        let done = DispatchGroup()
        for worker in 0..<8 {
            done.enter()
            Thread {
                gate.wait()
                for index in stride(from: worker / 2, to: count, by: 4) {
                    if worker.isMultiple(of: 2) {
                        tasks[index].cancel()
                    } else {
                        _ = session.release(
                            RequestMatcher("request \(index)") { $0.url?.path.hasSuffix("/r/\(index)") == true })
                    }
                }
                done.leave()
            }.start()
        }
        gate.leave()
        try #require(await done.emptied(within: 120), "the eight threads finished")

        let spans = traced.spans.spans
        #expect(results.allSatisfy { $0.count == 1 }, "every request delivered once")
        #expect(traced.spans.requests.count == count)
        #expect(SpanChecks.problems(in: spans) == [])
        #expect(traced.openTraces == 0)
        var cancelled = 0
        var lateCancels = 0
        var wrong: [String] = []
        for request in traced.spans.requests {
            guard let index = request.url.flatMap({ URL(string: $0)?.lastPathComponent }).flatMap(Int.init),
                let result = results[index].single
            else {
                wrong.append("no result for \(request.url ?? "nil")")
                continue
            }
            let attempts = traced.spans.attempts(of: request)
            if attempts.count != 1 { wrong.append("\(index): \(attempts.count) attempt spans") }
            switch result {
            case .success:
                if request.answer != .network || request.statusCode != 200 || request.errorType != nil {
                    wrong.append("\(index) delivered: \(Self.describe(request))")
                }
            case .failure(let error):
                cancelled += 1
                if error == .cancelled, request.errorType == nil, request.answer == .network,
                    request.statusCode == 200
                {
                    // The cancel came once the outcome was decided (between didFinish and the
                    // executor): the actions saw the 200, the caller gets .cancelled, as
                    // docs/actions.md (Cancellation) says.
                    lateCancels += 1
                } else if error != .cancelled || !request.isCancelled || request.answer != nil
                    || request.statusCode != nil
                {
                    wrong.append("\(index) \(error): \(Self.describe(request))")
                }
            }
        }
        print(
            "cancel racing answer: \(cancelled) of \(count) cancelled (\(lateCancels) after didFinish), problems: \(wrong.prefix(5))"
        )
        #expect(wrong == [])
    }

    @Test(
        "when 200 requests retry a 503 with their answers and cancels on 8 threads, should report every span once and keep no entry"
    )
    func retriesRaceCancels() async throws {
        let count = 200
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(503))
        let traced = Self.traced(session: session, after: [AlwaysRetryOnce()])
        let results = (0..<count).map { _ in ResultCollector<NetworkResponse>() }
        let tasks = (0..<count).map { index in
            traced.module.perform(request: TestRequest(path: "/q/\(index)"), completion: results[index].completion)
        }

        let gate = DispatchGroup()
        gate.enter()
        let done = DispatchGroup()
        for worker in 0..<8 {
            done.enter()
            Thread {
                gate.wait()
                for index in stride(from: worker / 2, to: count, by: 4) {
                    let matcher = RequestMatcher("request \(index)") { $0.url?.path.hasSuffix("/q/\(index)") == true }
                    if worker.isMultiple(of: 2) {
                        // Let the first answer (503) and maybe the retry through before cancelling.
                        _ = session.release(matcher)
                        tasks[index].cancel()
                    } else {
                        _ = session.release(matcher)
                        _ = session.release(matcher)
                    }
                }
                done.leave()
            }.start()
        }
        gate.leave()
        try #require(await done.emptied(within: 120), "the eight threads finished")
        session.releaseAll()

        #expect(results.allSatisfy { $0.count == 1 })
        #expect(traced.spans.requests.count == count)
        #expect(SpanChecks.problems(in: traced.spans.spans) == [])
        #expect(traced.openTraces == 0)
        for request in traced.spans.requests where request.isCancelled {
            #expect(request.answer == nil && request.statusCode == nil, "\(Self.describe(request))")
        }
    }

    @Test(
        "when 400 requests share calls under a cache and are cancelled and answered at once from 8 threads, should report each once, answer only the delivered, and keep no entry"
    )
    func sharedCallsRaceCancels() async throws {
        let count = 400
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .text("ok", headers: ["Cache-Control": "max-age=60"]))
        let traced = Self.traced(session: fake.deduplicated().cached())
        let results = (0..<count).map { _ in ResultCollector<NetworkResponse>() }
        // Four requests per path: one starts the call, three join it (or hit the cache later).
        let tasks = (0..<count).map { index in
            traced.module.perform(request: TestRequest(path: "/s/\(index / 4)"), completion: results[index].completion)
        }

        let gate = DispatchGroup()
        gate.enter()
        let done = DispatchGroup()
        for worker in 0..<8 {
            done.enter()
            Thread {
                gate.wait()
                for index in stride(from: worker, to: count, by: 8) {
                    if worker.isMultiple(of: 2) {
                        tasks[index].cancel()
                    } else {
                        let path = "/s/\(index / 4)"
                        _ = fake.release(RequestMatcher("path \(path)") { $0.url?.path.hasSuffix(path) == true })
                    }
                }
                done.leave()
            }.start()
        }
        gate.leave()
        try #require(await done.emptied(within: 120), "the eight threads finished")
        fake.releaseAll()

        #expect(results.allSatisfy { $0.count == 1 }, "every request delivered once")
        #expect(traced.spans.requests.count == count)
        #expect(SpanChecks.problems(in: traced.spans.spans) == [])
        #expect(traced.openTraces == 0)
        var answers: [String: Int] = [:]
        var wrong: [String] = []
        for request in traced.spans.requests {
            answers[request.answer?.rawValue ?? (request.isCancelled ? "cancelled" : "nil"), default: 0] += 1
            if request.isCancelled {
                if request.answer != nil || request.statusCode != nil { wrong.append(Self.describe(request)) }
            } else if request.statusCode != 200 || request.answer == nil {
                wrong.append(Self.describe(request))
            }
        }
        print(
            "shared calls racing cancels: wire \(fake.recordedRequests.count), answers \(answers), problems \(wrong.prefix(5))"
        )
        #expect(wrong == [])
        #expect(
            (answers["network"] ?? 0) <= fake.recordedRequests.count, "network only for calls that reached the fake")
    }

    // MARK: - Header casing in the other header actions

    @Test(
        "when a headers action names X-Foo and the request carries x-foo, should send one field, the request's (the action never overrides)"
    )
    func headersActionKeepsOtherCasing() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session, actions: [.headers(["X-Foo": "new", "Accept": "application/json"])])
        var request = URLRequest(url: apiBaseURL.appendingPathComponent("x"))
        request.allHTTPHeaderFields = ["x-foo": "old", "ACCEPT": "text/plain", "X-Other": "kept"]

        module.perform(urlRequest: request) { _ in }

        let sent = session.recordedRequests.first
        print("headers action on x-foo: \(sent?.allHTTPHeaderFields ?? [:])")
        #expect(TracingAttackTests.fields("X-Foo", in: sent).values.sorted() == ["old"])
        #expect(TracingAttackTests.fields("Accept", in: sent).values.sorted() == ["text/plain"])
        #expect(sent?.value(forHTTPHeaderField: "X-Other") == "kept")
    }

    @Test(
        "when a described request carries x-foo and a headers action names X-Foo, should send one field, the request's")
    func headersActionKeepsDescribedCasing() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session, actions: [.headers(["X-Foo": "new"]), .requestID()])

        module.perform(request: TestRequest(headers: ["x-foo": "old", "x-request-id": "mine"])) { _ in }

        let sent = session.recordedRequests.first
        #expect(TracingAttackTests.fields("X-Foo", in: sent).values.sorted() == ["old"])
        #expect(TracingAttackTests.fields("X-Request-ID", in: sent).values.sorted() == ["mine"])
    }

    @Test(
        "when a request carries authorization in lower case, should send one Authorization, the token's, also on the retry after a refresh"
    )
    func authenticationReplacesLowercase() throws {
        let session = FakeNetworkSession()
        session.stub(.any, respond: acceptingOnly("Bearer fresh"))
        let tokens = FakeTokenProvider()
        let module = makeModule(session: session, actions: [.authentication(tokens)])
        let results = ResultCollector<NetworkResponse>()

        module.perform(
            request: TestRequest(headers: ["authorization": "Basic old"], requiresAuthentication: true),
            completion: results.completion)

        let sent = session.recordedRequests
        print("authorization lower case: \(sent.map { TracingAttackTests.fields("Authorization", in: $0) })")
        #expect(
            sent.map { TracingAttackTests.fields("Authorization", in: $0).values.sorted() } == [
                ["Bearer stale"], ["Bearer fresh"],
            ])
        #expect((try? results.single?.get())?.statusCode == 200)
    }

    @Test("when a URLRequest carries authorization in lower case to the base origin, should send one Authorization")
    func authenticationReplacesLowercaseOnURLRequest() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session, actions: [.authentication("token")])
        var request = URLRequest(url: apiBaseURL.appendingPathComponent("me"))
        request.allHTTPHeaderFields = ["authorization": "Basic old"]

        module.perform(urlRequest: request) { _ in }

        let fields = TracingAttackTests.fields("Authorization", in: session.recordedRequests.first)
        print("URLRequest authorization lower case: \(fields)")
        #expect(fields.count <= 1, "one field at most, whatever the action decides for a URLRequest")
    }

    @Test(
        "when a URLRequest carries Authorization in two casings to the base origin, should send one Authorization, the token's"
    )
    func authenticationReplacesTwoCasings() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session, actions: [.authentication("token")])
        var request = URLRequest(url: apiBaseURL.appendingPathComponent("me"))
        request.allHTTPHeaderFields = ["authorization": "Basic a", "AUTHORIZATION": "Basic b"]

        module.perform(urlRequest: request) { _ in }

        let fields = TracingAttackTests.fields("Authorization", in: session.recordedRequests.first)
        print("URLRequest authorization in two casings: \(fields)")
        #expect(fields.values.sorted() == ["Bearer token"])
    }

    // MARK: - Decorators in every order

    enum Decorator: String, CaseIterable, Sendable {
        case throttled, deduplicated, cached

        func wrap(_ session: any NetworkSession) -> any NetworkSession {
            switch self {
            case .throttled: session.throttled(maxConcurrent: 1)
            case .deduplicated: session.deduplicated()
            case .cached: session.cached()
            }
        }
    }

    static let orders: [[Decorator]] = [
        [.throttled, .deduplicated, .cached], [.throttled, .cached, .deduplicated],
        [.deduplicated, .throttled, .cached], [.deduplicated, .cached, .throttled],
        [.cached, .throttled, .deduplicated], [.cached, .deduplicated, .throttled],
    ]

    @Test(
        "when decorators are stacked in any order (innermost first), should deliver every request and say network only for calls that reached the fake",
        arguments: orders)
    func decoratorsInEveryOrder(order: [Decorator]) throws {
        let fake = FakeNetworkSession(holdingResponses: true)
        fake.stub(.any, with: .text("v1", headers: ["Cache-Control": "max-age=60"]))
        let session = order.reduce(fake as any NetworkSession) { $1.wrap($0) }
        let traced = Self.traced(session: session)
        let results = ResultCollector<NetworkResponse>()

        for _ in 0..<3 { traced.module.perform(request: TestRequest(), completion: results.completion) }
        var rounds = 0
        while results.count < 3, rounds < 20 {
            fake.releaseAll()
            rounds += 1
        }
        traced.module.perform(request: TestRequest(), completion: results.completion)
        fake.releaseAll()

        let answers = traced.spans.requests.map { $0.answer?.rawValue ?? "nil" }
        let attemptAnswers = traced.spans.spans.filter { $0.kind == .attempt }.map { $0.answer?.rawValue ?? "nil" }
        print(
            "\(order.map(\.rawValue).joined(separator: ">")): wire \(fake.recordedRequests.count), requests \(answers), attempts \(attemptAnswers)"
        )
        #expect(results.count == 4, "no request lost")
        #expect(results.results.allSatisfy { (try? $0.get())?.statusCode == 200 })
        #expect(traced.spans.requests.count == 4)
        #expect(!answers.contains("nil"))
        #expect(answers.filter { $0 == "network" }.count == fake.recordedRequests.count)
        #expect(answers.last == "cache", "the fourth, after the others, is answered from memory")
        #expect(SpanChecks.problems(in: traced.spans.spans) == [])
        #expect(traced.openTraces == 0)
    }
}

// MARK: - Actions and sessions of the attacks

/// Holds the preparation of one attempt number until released; passes the others through.
private final class HoldingAttempt: NetworkModuleAction {
    let attempt: Int
    private let held = LockedState<[(URLRequest, @Sendable (Result<URLRequest, any Error>) -> Void)]>([])

    init(_ attempt: Int) { self.attempt = attempt }

    var heldCount: Int { held.withLock { $0.count } }

    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        guard context.attempt == attempt else { return completion(.success(urlRequest)) }
        held.withLock { $0.append((urlRequest, completion)) }
    }

    func releaseAll() {
        let all = held.withLock { held in
            defer { held = [] }
            return held
        }
        for (request, completion) in all { completion(.success(request)) }
    }
}

/// Rejects every response in `validate`.
private struct RejectingValidator: NetworkModuleAction {
    struct Rejected: Error {}

    func validate(_ response: NetworkResponse, context: ActionContext) throws {
        throw Rejected()
    }
}

/// Turns every success into the app's own `401`, as an app whose server answers an expired session
/// with a 200 might.
private struct UnauthorizingValidator: NetworkModuleAction {
    func validate(_ response: NetworkResponse, context: ActionContext) throws {
        throw NetworkError.unauthorized(HTTPErrorResponse(statusCode: 401, url: response.httpResponse.url))
    }
}

/// Retries the first attempt, whatever failed.
private struct AlwaysRetryOnce: NetworkModuleAction {
    func retryDecision(
        for error: NetworkError, context: ActionContext, completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        completion(context.attempt == 1 ? .retry : .doNotRetry)
    }
}

/// An app's own session: a plain `NetworkSession` that knows nothing of recorders.
private struct OwnSession: NetworkSession {
    let wrapped: FakeNetworkSession

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        wrapped.dataTask(with: request, completionHandler: completionHandler)
    }
}

/// An app's own session that answers with nothing at all: no data, no response, no error.
private struct NothingSession: NetworkSession {
    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        NothingTask(completionHandler: completionHandler)
    }
}

private final class NothingTask: NetworkSessionTask {
    let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    init(completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) {
        self.completionHandler = completionHandler
    }

    func resume() { completionHandler(nil, nil, nil) }
    func cancel() {}
}
