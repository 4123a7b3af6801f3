import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("FakeNetworkSession")
struct FakeNetworkSessionTests {
    // MARK: Stubs and sequences

    @Test("when a stub has a sequence, should answer it in turn and repeat the last")
    func sequence() {
        let session = FakeNetworkSession()
        session.stub(.path("/flaky"), with: .status(503), .status(200))

        let statuses = (1...3).map { _ in session.send(makeURLRequest("/flaky")).log.single?.statusCode }

        #expect(statuses == [503, 200, 200])
    }

    @Test("when a sequence is given as an array, should answer it in turn, and an empty one adds no stub")
    func sequenceArray() {
        let session = FakeNetworkSession()
        session.stub(.any, sequence: [.status(201), .status(202)])
        session.stub(.any, sequence: [])

        let statuses = (1...3).map { _ in session.send(makeURLRequest("/")).log.single?.statusCode }

        #expect(statuses == [201, 202, 202])
    }

    @Test("when several stubs match, should answer with the newest")
    func newestWins() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        session.stub(.path("/users/1"), with: .status(404))

        let matched = session.send(makeURLRequest("/users/1")).log.single?.statusCode
        let other = session.send(makeURLRequest("/users/2")).log.single?.statusCode

        #expect(matched == 404)
        #expect(other == 200)
    }

    @Test("when each stub keeps its own sequence, should not move another stub's sequence on")
    func independentSequences() {
        let session = FakeNetworkSession()
        session.stub(.path("/a"), with: .status(500), .status(200))
        session.stub(.path("/b"), with: .status(401), .status(204))

        let first = session.send(makeURLRequest("/a")).log.single?.statusCode
        let second = session.send(makeURLRequest("/b")).log.single?.statusCode
        let third = session.send(makeURLRequest("/a")).log.single?.statusCode

        #expect([first, second, third] == [500, 401, 200])
    }

    @Test("when a stub computes its response, should pass it the request")
    func computed() {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/echo")) { request in .text(request.url?.query ?? "") }

        let answer = session.send(makeURLRequest("/echo?name=Ada")).log.single

        #expect(answer?.text == "name=Ada")
    }

    @Test("when stubs are removed, should treat requests as unmatched but keep the recorded ones")
    func removeAllStubs() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        session.send(makeURLRequest("/a"))

        session.removeAllStubs()
        let answer = session.send(makeURLRequest("/b")).log.single

        #expect(answer?.statusCode == 501)
        #expect(session.recordedRequests.map(\.url?.path) == ["/a", "/b"])
    }

    // MARK: Unmatched requests

    @Test("when no stub matches, should answer 501 with a message naming the request and listing the stubs")
    func unmatched() {
        let messages = Messages()
        let session = FakeNetworkSession(onUnmatchedRequest: messages.hook)
        session.stub(.method(.post) && .path("/users"), with: .status(201))
        session.stub(.pathPattern("/users/[0-9]+"), with: .status(200))

        let answer = session.send(makeURLRequest("/orders/1", method: "DELETE")).log.single

        let expected = """
            FakeNetworkSession: no stub matches DELETE https://api.example.com/orders/1.
            Registered stubs (oldest first; the newest match answers):
              1. POST && path == "/users"
              2. path matches /\("/users/[0-9]+")/
            """
        #expect(answer?.statusCode == 501)
        #expect(answer?.text == expected)
        #expect(messages.all == [expected])
        #expect(session.unmatchedRequests.map(\.url?.path) == ["/orders/1"])
    }

    @Test("when no stub is registered at all, should say so in the message")
    func unmatchedWithoutStubs() {
        let messages = Messages()
        let session = FakeNetworkSession(onUnmatchedRequest: messages.hook)

        session.send(makeURLRequest("/a"))

        #expect(messages.all.first?.hasSuffix("answers):\n  (none)") == true)
    }

    @Test("when an unmatched request reaches the module, should fail with .serverError carrying the message")
    func unmatchedThroughModule() {
        let session = FakeNetworkSession()
        let results = Results<NetworkResponse>()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session, completionExecutor: .immediate
        )

        module.perform(request: GetUser(id: 1), completion: results.completion)

        #expect(results.error?.statusCode == 501)
        #expect(
            results.error?.httpErrorResponse?.bodyText?.hasPrefix(
                "FakeNetworkSession: no stub matches GET https://api.example.com/users/1.") == true)
    }

    // MARK: Recording

    @Test("when requests are sent, should record every one in order, matched or not")
    func recording() {
        let session = FakeNetworkSession()
        session.stub(.path("/a"), with: .status(200))

        session.send(makeURLRequest("/a", method: "POST", body: Data("1".utf8)))
        session.send(makeURLRequest("/b"))
        session.send(makeURLRequest("/a"))

        #expect(
            session.recordedRequests.map { "\($0.httpMethod ?? "") \($0.url?.path ?? "")" } == [
                "POST /a", "GET /b", "GET /a",
            ])
        #expect(session.recordedRequests.first?.httpBody == Data("1".utf8))
        #expect(session.unmatchedRequests.count == 1)
    }

    @Test("when a task is not resumed, should neither record nor answer it")
    func notResumed() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let log = AnswerLog()

        _ = session.dataTask(with: makeURLRequest("/"), completionHandler: log.handler)

        #expect(session.recordedRequests.isEmpty)
        #expect(log.count == 0)
    }

    @Test("when a task is resumed twice, should send and answer once")
    func resumedTwice() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))

        let (task, log) = session.send(makeURLRequest("/"))
        task.resume()

        #expect(log.count == 1)
        #expect(session.recordedRequests.count == 1)
    }

    // MARK: Delays

    @Test("when a response is delayed, should answer only when the scheduler's time has passed")
    func delay() {
        let scheduler = ManualDelayScheduler()
        let session = FakeNetworkSession(delayScheduler: scheduler)
        session.stub(.any, with: .status(200).delayed(by: 2))

        let (_, log) = session.send(makeURLRequest("/"))
        scheduler.advance(by: 1.9)
        let countBefore = log.count
        scheduler.advance(by: 0.1)

        #expect(scheduler.requestedDelays == [2])
        #expect(countBefore == 0)
        #expect(log.single?.statusCode == 200)
    }

    @Test("when a delayed task is cancelled, should answer URLError.cancelled once and drop the timer")
    func cancelWhileDelayed() {
        let scheduler = ManualDelayScheduler()
        let session = FakeNetworkSession(delayScheduler: scheduler)
        session.stub(.any, with: .status(200).delayed(by: 2))
        let (task, log) = session.send(makeURLRequest("/"))

        task.cancel()
        task.cancel()
        scheduler.runAll()

        #expect(log.single?.urlErrorCode == .cancelled)
        #expect(scheduler.pendingCount == 0)
        #expect(session.cancelledCount == 1)
    }

    @Test("when a task is cancelled after it answered, should do nothing more")
    func cancelAfterAnswer() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let (task, log) = session.send(makeURLRequest("/"))

        task.cancel()

        #expect(log.single?.statusCode == 200)
        #expect(session.cancelledCount == 0)
    }

    @Test("when a task is cancelled before it is resumed, should answer cancelled and never send")
    func cancelBeforeResume() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let log = AnswerLog()
        let task = session.dataTask(with: makeURLRequest("/"), completionHandler: log.handler)

        task.cancel()
        task.resume()

        #expect(log.single?.urlErrorCode == .cancelled)
        #expect(session.recordedRequests.isEmpty)
    }

    // MARK: Manual delivery

    @Test("when holding responses, should hold answers until released, oldest first")
    func manualReleaseNext() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let first = session.send(makeURLRequest("/1")).log
        let second = session.send(makeURLRequest("/2")).log
        let heldBefore = (session.heldCount, first.count, second.count)

        let released = session.releaseNext()

        #expect(heldBefore == (2, 0, 0))
        #expect(released)
        #expect(first.count == 1)
        #expect(second.count == 0)
        #expect(session.heldRequests.map(\.url?.path) == ["/2"])
    }

    @Test("when released newest first, should answer in the reverse of the sending order")
    func manualReleaseLast() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let order = Messages()
        for path in ["/1", "/2", "/3"] {
            let task = session.dataTask(with: makeURLRequest(path)) { _, _, _ in order.hook(path) }
            task.resume()
        }

        while session.releaseLast() {}

        #expect(order.all == ["/3", "/2", "/1"])
    }

    @Test("when a chosen request is released, should answer that one and keep the others held")
    func manualReleaseMatching() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let first = session.send(makeURLRequest("/users/1")).log
        let second = session.send(makeURLRequest("/users/2")).log

        let released = session.release(.path("/users/2"))
        let releasedAgain = session.release(.path("/users/2"))

        #expect(released)
        #expect(!releasedAgain)
        #expect(first.count == 0)
        #expect(second.single?.statusCode == 200)
        #expect(session.heldCount == 1)
    }

    @Test("when nothing is held, should report that nothing was released")
    func releaseNothing() {
        let session = FakeNetworkSession(holdingResponses: true)

        #expect(!session.releaseNext())
        #expect(!session.releaseLast())
        session.releaseAll()
        #expect(session.heldCount == 0)
    }

    @Test("when a held request is cancelled, should answer cancelled and forget it")
    func cancelHeld() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let (task, log) = session.send(makeURLRequest("/"))

        task.cancel()
        session.releaseAll()

        #expect(log.single?.urlErrorCode == .cancelled)
        #expect(session.heldCount == 0)
        #expect(session.cancelledCount == 1)
    }

    @Test("when releasing all, should also answer requests sent by the released completions")
    func releaseAllIncludesFollowUps() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let followUp = AnswerLog()
        let task = session.dataTask(with: makeURLRequest("/first")) { _, _, _ in
            session.send(makeURLRequest("/second"), into: followUp)
        }
        task.resume()

        session.releaseAll()

        #expect(followUp.single?.statusCode == 200)
        #expect(session.heldCount == 0)
    }
}
