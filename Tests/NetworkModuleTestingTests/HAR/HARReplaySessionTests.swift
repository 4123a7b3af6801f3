import Foundation
import NetworkModuleCore
import Testing

@testable import NetworkModuleTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("HARReplaySession")
struct HARReplaySessionTests {
    /// Records `requests` against `backend` and returns the archive.
    private func record(_ requests: [URLRequest], from backend: FakeNetworkSession, redaction: Redaction = .default)
        throws -> Data
    {
        let recorder = HARRecordingSession(wrapping: backend, redaction: redaction)
        for request in requests { recorder.send(request) }
        return try recorder.harData()
    }

    @Test("when replaying what was recorded, should answer the same status, headers, body and errors")
    func roundTrip() throws {
        let backend = FakeNetworkSession()
        backend.stub(.path("/users/1"), with: .json(User(id: 1, name: "Ada")))
        backend.stub(.path("/missing"), with: .json(#"{"error":"nope"}"#, status: 404, headers: ["X-Request-ID": "42"]))
        backend.stub(
            .path("/bytes"), with: .status(200, headers: ["Content-Type": "image/png"], body: Data([0, 255, 7])))
        backend.stub(.path("/down"), with: .error(.timedOut))
        let requests = ["/users/1", "/missing", "/bytes", "/down"].map { makeURLRequest($0) }
        let live = requests.map { backend.send($0).log.single }
        let replay = try HARReplaySession(harData: record(requests, from: backend))

        let replayed = requests.map { replay.send($0).log.single }

        #expect(replayed.map(\.?.statusCode) == live.map(\.?.statusCode))
        #expect(replayed.map(\.?.data) == live.map(\.?.data))
        #expect(replayed.map { $0?.header("Content-Type") } == live.map { $0?.header("Content-Type") })
        #expect(replayed[1]?.header("X-Request-ID") == "42")
        #expect(replayed[3]?.urlErrorCode == .timedOut)
        #expect(replayed[0]?.response?.url == requests[0].url)
        #expect(replay.entryCount == 4)
        #expect(replay.missedRequests.isEmpty)
    }

    @Test("when the same request was recorded several times, should answer in recorded order and repeat the last")
    func sequence() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .status(503), .status(200))
        let replay = try HARReplaySession(
            harData: record([makeURLRequest("/flaky"), makeURLRequest("/flaky")], from: backend))

        let statuses = (1...3).map { _ in replay.send(makeURLRequest("/flaky")).log.single?.statusCode }

        #expect(statuses == [503, 200, 200])
    }

    @Test("when matching bodies, should pick the entry with the same body, comparing JSON by value")
    func bodyMatching() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any) { request in .text(String(decoding: request.httpBody ?? Data(), as: UTF8.self)) }
        let archive = try record(
            [
                makeURLRequest("/search", method: "POST", body: Data(#"{"q":"a","page":1}"#.utf8)),
                makeURLRequest("/search", method: "POST", body: Data(#"{"q":"b","page":1}"#.utf8)),
            ], from: backend)
        let byBody = try HARReplaySession(harData: archive, matchingBodies: true)
        let byURL = try HARReplaySession(harData: archive)

        let second = byBody.send(
            makeURLRequest("/search", method: "POST", body: Data(#"{ "page": 1, "q": "b" }"#.utf8))
        ).log.single
        let unknown = byBody.send(makeURLRequest("/search", method: "POST", body: Data(#"{"q":"c"}"#.utf8))).log.single
        let first = byURL.send(makeURLRequest("/search", method: "POST", body: Data(#"{"q":"c"}"#.utf8))).log.single

        #expect(second?.text == #"{"q":"b","page":1}"#)
        #expect(unknown?.statusCode == 501)
        #expect(first?.text == #"{"q":"a","page":1}"#)
    }

    @Test("when the recorded URL had a masked secret, should match the request whatever its secret")
    func redactedQuery() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .text("mine"))
        let redaction = Redaction.default.adding(queryItems: ["token"])
        let archive = try record([makeURLRequest("/me?token=recorded-secret")], from: backend, redaction: redaction)
        let replay = try HARReplaySession(harData: archive, redaction: redaction)

        let answer = replay.send(makeURLRequest("/me?token=another-secret")).log.single

        #expect(answer?.text == "mine")
    }

    @Test("when no entry matches, should answer 501 naming the request and the closest entries")
    func miss() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .status(200))
        let archive = try record(
            ["/users/1", "/users/2", "/orders/1", "/orders/2", "/health"].map { makeURLRequest($0) }, from: backend)
        let messages = Messages()
        let replay = try HARReplaySession(harData: archive, onMiss: messages.hook)

        let answer = replay.send(makeURLRequest("/users/3", method: "GET")).log.single

        let expected = """
            HARReplaySession: no recorded entry for GET https://api.example.com/users/3.
            Closest recorded entries:
              - GET https://api.example.com/users/1
              - GET https://api.example.com/users/2
              - GET https://api.example.com/orders/1
            """
        #expect(answer?.statusCode == 501)
        #expect(answer?.text == expected)
        #expect(messages.all == [expected])
        #expect(replay.missedRequests.map(\.url?.path) == ["/users/3"])
    }

    @Test("when the method differs, should miss even if the URL matches")
    func methodMatters() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .status(200))
        let replay = try HARReplaySession(harData: record([makeURLRequest("/users")], from: backend))

        let answer = replay.send(makeURLRequest("/users", method: "POST")).log.single

        #expect(answer?.statusCode == 501)
    }

    @Test("when the archive is a browser's, with only the fields it needs, should replay it")
    func minimalBrowserArchive() throws {
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "Firefox", "version": "120"}, "pages": [],
             "entries": [{"request": {"method": "GET", "url": "https://api.example.com/ping", "headers": []},
                          "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/plain"}],
                                       "content": {"size": 4, "mimeType": "text/plain", "text": "pong"}}}]}}
            """
        let replay = try HARReplaySession(harData: Data(har.utf8))

        let answer = replay.send(makeURLRequest("/ping")).log.single

        #expect(answer?.text == "pong")
        #expect(answer?.header("Content-Type") == "text/plain")
    }

    @Test("when the data is not a HAR archive, should throw saying so")
    func notHAR() {
        let error = #expect(throws: HARReadError.self) { try HARReplaySession(harData: Data(#"{"entries": []}"#.utf8)) }

        #expect(error?.description.hasPrefix("not a HAR archive:") == true)
    }

    @Test("when an entry's base64 body is invalid, should throw naming the entry")
    func invalidBase64() {
        let har = """
            {"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "https://a.example/x"},
             "response": {"status": 200, "content": {"size": 1, "text": "***", "encoding": "base64"}}}]}}
            """

        let error = #expect(throws: HARReadError.self) { try HARReplaySession(harData: Data(har.utf8)) }

        #expect(error?.description == "entry 0 (GET https://a.example/x): the response body is invalid base64")
    }

    @Test("when the file cannot be read, should throw naming it")
    func missingFile() {
        let error = #expect(throws: HARReadError.self) {
            try HARReplaySession(contentsOf: URL(fileURLWithPath: "/no/such/file.har"))
        }

        #expect(error?.description.hasPrefix("cannot read /no/such/file.har") == true)
    }

    @Test("when holding responses, should hold replayed answers until released")
    func manual() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .status(204))
        let replay = try HARReplaySession(harData: record([makeURLRequest("/")], from: backend), holdingResponses: true)

        let (_, log) = replay.send(makeURLRequest("/"))
        let before = (replay.heldCount, log.count)
        replay.releaseAll()

        #expect(before == (1, 0))
        #expect(log.single?.statusCode == 204)
        #expect(replay.recordedRequests.count == 1)
    }

    @Test("when a module replays through it, should give the results it gave when recording")
    func throughModule() throws {
        let backend = FakeNetworkSession()
        backend.stub(GetUserMatcher.matcher, with: .json(User(id: 1, name: "Ada")))
        backend.stub(.path("/users/2"), with: .status(404))
        let recorder = HARRecordingSession(wrapping: backend)
        let live = Results<User>()
        let builder = DefaultRequestBuilder(baseURL: kitBaseURL)
        let recording = DefaultNetworkModule(requestBuilder: builder, session: recorder, completionExecutor: .immediate)
        for id in [1, 2] {
            recording.performAndDecode(request: GetUser(id: id), responseType: User.self, completion: live.completion)
        }
        let replayed = Results<User>()
        let replaying = DefaultNetworkModule(
            requestBuilder: builder, session: try HARReplaySession(harData: recorder.harData()),
            completionExecutor: .immediate)

        for id in [1, 2] {
            replaying.performAndDecode(
                request: GetUser(id: id), responseType: User.self, completion: replayed.completion)
        }

        #expect(replayed.all.map { try? $0.get() } == live.all.map { try? $0.get() })
        #expect(replayed.errors.map { $0?.statusCode } == [nil, 404])
    }

    private enum GetUserMatcher {
        static let matcher = RequestMatcher.path("/users/1")
    }
}
