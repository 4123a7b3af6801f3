import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("SigningAction")
struct SigningActionTests {
    static let fixedDate = Date(timeIntervalSince1970: 1_700_000_000)

    /// The Marvel scheme, with a stand-in for the hash: `ts`, `apikey` and `hash` query items.
    static func marvel(clock: @escaping @Sendable () -> Date = { fixedDate }) -> SigningAction {
        SigningAction(secrets: ["apikey", "hash"]) { _ in
            let ts = String(Int(clock().timeIntervalSince1970))
            return .queryItems([
                URLQueryItem(name: "ts", value: ts),
                URLQueryItem(name: "apikey", value: "public"),
                URLQueryItem(name: "hash", value: "h(\(ts)+private+public)"),
            ])
        }
    }

    func send(
        _ request: TestRequest = TestRequest(), actions: [any NetworkModuleAction], stub: StubbedResponse = .status(200)
    ) -> (FakeNetworkSession, ResultCollector<NetworkResponse>) {
        let session = FakeNetworkSession()
        session.stub(.any, with: stub)
        let results = ResultCollector<NetworkResponse>()
        makeModule(session: session, actions: actions).perform(request: request, completion: results.completion)
        return (session, results)
    }

    @Test("when signing with query items, should append them after the request's own query, encoded per RFC 3986")
    func queryItems() {
        let (session, results) = send(TestRequest(path: "/characters?name=Spider+Man"), actions: [Self.marvel()])

        #expect(results.singleValue != nil)
        #expect(
            session.recordedRequests.first?.url?.absoluteString
                == "https://api.example.com/v2/characters?name=Spider+Man&ts=1700000000&apikey=public&hash=h%281700000000%2Bprivate%2Bpublic%29"
        )
    }

    @Test("when signing with headers, should compute them from the method, URL and body")
    func headersFromMethodURLAndBody() throws {
        let signing = SigningAction(
            secrets: ["X-Signature"],
            sign: { request in
                let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? ""
                return .headers([
                    "X-Signature": "\(request.httpMethod ?? "-") \(request.url?.path ?? "-") \(body)",
                    "X-Timestamp": "\(Int(Self.fixedDate.timeIntervalSince1970))",
                ])
            })
        struct Post: NetworkRequest {
            var path: String { "/notes" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { .data(Data("hello".utf8), contentType: "text/plain") }
        }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(201))

        makeModule(session: session, actions: [signing]).perform(request: Post()) { _ in }

        let sent = try #require(session.recordedRequests.first)
        #expect(sent.value(forHTTPHeaderField: "X-Signature") == "POST /v2/notes hello")
        #expect(sent.value(forHTTPHeaderField: "X-Timestamp") == "1700000000")
    }

    @Test("when the request goes to another origin, should send it unsigned")
    func otherOriginUnsigned() {
        let (session, _) = send(TestRequest(path: "https://cdn.example.net/a.png"), actions: [Self.marvel()])

        #expect(session.recordedRequests.first?.url?.absoluteString == "https://cdn.example.net/a.png")
    }

    @Test("when a request is retried, should sign each attempt afresh with the time of that attempt")
    func eachAttemptSignedAgain() {
        let times = LockedState([Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2)])
        let signing = Self.marvel(clock: { times.withLock { $0.removeFirst() } })
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503), .status(200))

        makeModule(session: session, actions: [signing, ProbeAction(retry: [.retry])])
            .perform(request: TestRequest()) { _ in }

        let queries = session.recordedRequests.map { $0.url?.query ?? "" }
        #expect(queries.count == 2)
        #expect(queries.first?.hasPrefix("ts=1&") == true)
        #expect(queries.last?.hasPrefix("ts=2&") == true)
    }

    @Test("when signing throws, should fail the request without sending it")
    func signingFailure() {
        struct NoKey: Error {}
        let signing = SigningAction(secrets: []) { _ in throw NoKey() }

        let (session, results) = send(actions: [signing])

        guard case .actionFailed? = results.singleError else {
            Issue.record("expected actionFailed, got \(String(describing: results.single))")
            return
        }
        #expect(session.recordedRequests.isEmpty)
    }

    @Test("when the signature holds secrets, should mask them in log lines and curl commands")
    func secretsMasked() throws {
        let entries = LockedState<[String]>([])
        let signing = SigningAction(
            secrets: ["sig_hash", "X-Signed-Key"],
            sign: { _ in
                RequestSignature(
                    queryItems: [URLQueryItem(name: "sig_hash", value: "s3cr3t")], headers: ["X-Signed-Key": "k3y"])
            })
        let logging = BuiltInAction.logging(headers: true, curl: true) { entry in entries.withLock { $0.append(entry) }
        }

        let (session, _) = send(actions: [signing, logging])

        let log = entries.value.joined(separator: "\n")
        #expect(session.recordedRequests.first?.url?.query == "sig_hash=s3cr3t")
        #expect(!log.isEmpty)
        #expect(!log.contains("s3cr3t"))
        #expect(!log.contains("k3y"))
        #expect(Redaction.default.isSecret(header: "x-signed-key"))
        let url = try #require(URL(string: "https://api.example.com/?sigHash=1&ts=2"))
        #expect(Redaction.default.redacted(url).absoluteString == "https://api.example.com/?sigHash=REDACTED&ts=2")
    }
}
