import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Traffic recorded against httpbin with `HARRecordingSession`, then replayed offline with
/// `HARReplaySession`: the round trip a team makes to run CI without the backend.
@Suite("Integration: record and replay", .integration)
struct RecordReplayIntegrationTests {
    /// What a caller can observe of one result, durations aside.
    private struct Outcome: Equatable {
        let status: Int?
        let headers: [String: String]
        let body: Data
        let error: NetworkError?

        init(_ result: Result<NetworkResponse, NetworkError>) {
            switch result {
            case .success(let response):
                status = response.statusCode
                headers = Dictionary(
                    response.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
                body = response.data
                error = nil
            case .failure(let failure):
                status = failure.statusCode
                headers = [:]
                body = failure.httpErrorResponse?.body ?? Data()
                error = failure
            }
        }

        private init(status: Int?, headers: [String: String], body: Data, error: NetworkError?) {
            self.status = status
            self.headers = headers
            self.body = body
            self.error = error
        }

        /// This outcome with `body` in place of its own.
        func masking(body: Data) -> Outcome {
            Outcome(status: status, headers: headers, body: body, error: error)
        }
    }

    private static let scenario: [Endpoint] = [
        Endpoint(
            path: "/get",
            queryItems: [URLQueryItem(name: "name", value: "Ada"), URLQueryItem(name: "token", value: "abc123")]),
        Endpoint(path: "/post", method: .post, body: .json(["note": "Hello", "tag": "é"])),
        Endpoint(path: "/status/404"),
        Endpoint(path: "/bytes/256", queryItems: [URLQueryItem(name: "seed", value: "7")]),
        Endpoint(path: "/gzip"),
        Endpoint(path: "/status/201"),
    ]

    @Test("when traffic recorded against httpbin is replayed offline, should give identical results")
    func roundTrip() async throws {
        let redaction = Redaction.default.adding(queryItems: ["token"])
        let recorder = HARRecordingSession(wrapping: IntegrationServers.makeSession(), redaction: redaction)
        let baseURL = try IntegrationServers.httpbin()
        let live = IntegrationServers.module(
            baseURL: baseURL, session: recorder, defaultHeaders: ["Authorization": "Bearer live-secret"])
        var recorded: [Outcome] = []
        for request in Self.scenario { recorded.append(Outcome(await live.outcome(of: request))) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "record-replay-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)

        let replay = try HARReplaySession(contentsOf: file, redaction: redaction)
        let offline = IntegrationServers.module(
            baseURL: baseURL, session: replay, defaultHeaders: ["Authorization": "Bearer other-secret"],
            executor: .immediate)
        var replayed: [Outcome] = []
        for request in Self.scenario { replayed.append(Outcome(await offline.outcome(of: request))) }

        #expect(recorded.map(\.status) == [200, 200, 404, 200, 200, 201])
        #expect(recorded.count == replayed.count)
        for (index, (fromServer, fromFile)) in zip(recorded, replayed).enumerated() {
            // The file holds bodies with their secrets masked (httpbin echoes the token and
            // the Authorization header): the replay answers with what the file holds.
            let contentType = fromServer.headers["content-type"]
            let masked = redaction.writableBody(fromServer.body, contentType: contentType)
            #expect(fromServer.masking(body: masked) == fromFile, "request \(index): \(Self.scenario[index].path)")
        }
        #expect(!replayed[0].body.isEmpty && !String(decoding: replayed[0].body, as: UTF8.self).contains("abc123"))
        #expect(replay.missedRequests.isEmpty)
        #expect(replay.entryCount == Self.scenario.count)
    }

    @Test("when traffic is recorded, should mask the credentials and secret query values in the file")
    func secretsAreMasked() async throws {
        let recorder = HARRecordingSession(
            wrapping: IntegrationServers.makeSession(), redaction: .default.adding(queryItems: ["token"]))
        let live = IntegrationServers.module(
            baseURL: try IntegrationServers.httpbin(), session: recorder,
            defaultHeaders: ["Authorization": "Bearer live-secret"])

        _ = await live.outcome(
            of: Endpoint(path: "/status/204", queryItems: [URLQueryItem(name: "token", value: "abc123")]))

        let archive = try #require(try JSONSerialization.jsonObject(with: recorder.harData()) as? [String: Any])
        let entry = try #require(((archive["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        let request = try #require(entry["request"] as? [String: Any])
        let headers = (request["headers"] as? [[String: String]]) ?? []
        #expect((request["url"] as? String)?.hasSuffix("/status/204?token=REDACTED") == true)
        #expect(headers.first { $0["name"]?.lowercased() == "authorization" }?["value"] == "REDACTED")
        #expect(!String(decoding: try recorder.harData(), as: UTF8.self).contains("live-secret"))
        #expect((entry["response"] as? [String: Any])?["status"] as? Int == 204)
    }

    @Test("when a request to a URL with a password and a token fails on the wire, should write neither in the file")
    func transportFailureMasked() async throws {
        let port = try closedLoopbackPort()
        let recorder = HARRecordingSession(wrapping: IntegrationServers.makeSession())
        let module = IntegrationServers.module(
            baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), session: recorder,
            actions: [.logging(sink: { _ in })])
        let url = try #require(
            URL(string: "http://ada:hunter2@127.0.0.1:\(port)/login?access_token=t0k3n#id_token=fr4g"))

        let result = await withCheckedContinuation { continuation in
            module.perform(urlRequest: URLRequest(url: url)) { continuation.resume(returning: $0) }
        }

        #expect(result.error == .cannotConnectToHost)
        let har = String(decoding: try recorder.harData(), as: UTF8.self)
        let entry = try #require(
            ((try JSONSerialization.jsonObject(with: recorder.harData()) as? [String: Any])?["log"] as? [String: Any])?[
                "entries"] as? [[String: Any]])
        #expect(entry.count == 1)
        #expect((entry.first?["_error"] as? String)?.isEmpty == false)
        for secret in ["hunter2", "t0k3n", "fr4g"] {
            #expect(!har.contains(secret), "\(secret) is in the HAR file: \(har)")
        }
        #expect(result.error.map { "\($0)" }?.contains("t0k3n") == false)
    }
}
