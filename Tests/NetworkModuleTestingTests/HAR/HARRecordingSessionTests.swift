import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("HARRecordingSession")
struct HARRecordingSessionTests {
    /// The archive `recorder` writes, read back with JSONSerialization so the field names are checked as written.
    private func archive(_ recorder: HARRecordingSession) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: recorder.harData()) as? [String: Any])
    }

    private func entries(_ recorder: HARRecordingSession) throws -> [[String: Any]] {
        let log = try #require(try archive(recorder)["log"] as? [String: Any])
        return try #require(log["entries"] as? [[String: Any]])
    }

    private func names(_ list: Any?) -> [String: String] {
        let pairs = (list as? [[String: Any]] ?? []).compactMap { pair -> (String, String)? in
            guard let name = pair["name"] as? String, let value = pair["value"] as? String else { return nil }
            return (name, value)
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    @Test("when an exchange is recorded, should write every HAR 1.2 field the format requires")
    func harFields() throws {
        let backend = FakeNetworkSession()
        backend.stub(
            .any, with: .json(#"{"id":1}"#, status: 201, headers: ["Location": "https://api.example.com/users/1"]))
        let recorder = HARRecordingSession(wrapping: backend)

        recorder.send(
            makeURLRequest(
                "/users?sort=asc", method: "POST", headers: ["Content-Type": "application/json"],
                body: Data(#"{"name":"Ada"}"#.utf8)))

        let archive = try archive(recorder)
        let log = try #require(archive["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: Any])?["name"] as? String == "NetworkModuleTesting")
        let entry = try #require((log["entries"] as? [[String: Any]])?.first)
        let started = try #require(entry["startedDateTime"] as? String)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(formatter.date(from: started) != nil)
        #expect((entry["time"] as? Double).map { $0 >= 0 } == true)
        #expect((entry["cache"] as? [String: Any])?.isEmpty == true)
        let timings = try #require(entry["timings"] as? [String: Any])
        #expect(["send", "wait", "receive"].allSatisfy { (timings[$0] as? Double).map { $0 >= 0 } == true })

        let request = try #require(entry["request"] as? [String: Any])
        #expect(request["method"] as? String == "POST")
        #expect(request["url"] as? String == "https://api.example.com/users?sort=asc")
        #expect(request["httpVersion"] as? String == "HTTP/1.1")
        #expect(names(request["headers"]) == ["Content-Type": "application/json"])
        #expect(names(request["queryString"]) == ["sort": "asc"])
        #expect(request["headersSize"] as? Int == -1)
        #expect(request["bodySize"] as? Int == 14)
        #expect((request["cookies"] as? [Any])?.isEmpty == true)
        let postData = try #require(request["postData"] as? [String: Any])
        #expect(postData["mimeType"] as? String == "application/json")
        #expect(postData["text"] as? String == #"{"name":"Ada"}"#)

        let response = try #require(entry["response"] as? [String: Any])
        #expect(response["status"] as? Int == 201)
        #expect((response["statusText"] as? String)?.isEmpty == false)
        #expect(response["httpVersion"] as? String == "HTTP/1.1")
        #expect(names(response["headers"])["Content-Type"] == "application/json")
        #expect(response["redirectURL"] as? String == "https://api.example.com/users/1")
        #expect(response["headersSize"] as? Int == -1)
        #expect(response["bodySize"] as? Int == 8)
        #expect((response["cookies"] as? [Any])?.isEmpty == true)
        let content = try #require(response["content"] as? [String: Any])
        #expect(content["size"] as? Int == 8)
        #expect(content["mimeType"] as? String == "application/json")
        #expect(content["text"] as? String == #"{"id":1}"#)
        #expect(content["encoding"] == nil)
    }

    @Test("when requests carry secrets, should mask headers and query values in the URL and queryString")
    func redaction() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .status(200, headers: ["Set-Cookie": "session=abc"]))
        let recorder = HARRecordingSession(
            wrapping: backend, redaction: .default.adding(headers: ["X-API-Key"], queryItems: ["token"]))

        let answer = recorder.send(
            makeURLRequest(
                "/me?token=s3cret&page=1", headers: ["Authorization": "Bearer abc", "X-Api-Key": "k", "Accept": "*/*"])
        ).log.single

        let entry = try #require(try entries(recorder).first)
        let request = try #require(entry["request"] as? [String: Any])
        let response = try #require(entry["response"] as? [String: Any])
        #expect(request["url"] as? String == "https://api.example.com/me?token=REDACTED&page=1")
        #expect(names(request["queryString"]) == ["token": "REDACTED", "page": "1"])
        #expect(names(request["headers"]) == ["Authorization": "REDACTED", "X-Api-Key": "REDACTED", "Accept": "*/*"])
        #expect(names(response["headers"])["Set-Cookie"] == "REDACTED")
        #expect(answer?.header("Set-Cookie") == "session=abc", "the caller still gets the real answer")
    }

    @Test("when bodies are too large to mask, or a Location holds a token, should write neither in clear")
    func largeBodiesAndLocationsMasked() throws {
        let backend = FakeNetworkSession()
        let bigJSON = "{\"access_token\":\"t0k3n\",\"pad\":\"" + String(repeating: "a", count: 1_100_000) + "\"}"
        backend.stub(
            .any,
            with: .status(
                302,
                headers: [
                    "Location": "https://app.example.com/cb?access_token=t0k3n", "Content-Type": "application/json",
                ],
                body: Data(bigJSON.utf8)))
        let recorder = HARRecordingSession(wrapping: backend)
        let form = "password=hunter2&pad=" + String(repeating: "b", count: 1_100_000)

        _ = recorder.send(
            makeURLRequest(
                "/login", method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data(form.utf8)))

        let har = String(decoding: try recorder.harData(), as: UTF8.self)
        #expect(!har.contains("t0k3n"), "the response body, Location and redirectURL")
        #expect(!har.contains("hunter2"), "the request's form body")
        #expect(har.contains("password=REDACTED&pad=bbb"))
        #expect(har.contains("bytes of JSON left out: too large to mask"))
    }

    @Test("when bodies are not UTF-8, should write them in base64 and say so")
    func binaryBodies() throws {
        let bytes = Data([0x00, 0xFF, 0x10, 0x80])
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .status(200, headers: ["Content-Type": "application/octet-stream"], body: bytes))
        let recorder = HARRecordingSession(wrapping: backend)

        recorder.send(makeURLRequest("/upload", method: "PUT", body: bytes))

        let entry = try #require(try entries(recorder).first)
        let postData = try #require((entry["request"] as? [String: Any])?["postData"] as? [String: Any])
        let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(postData["text"] as? String == bytes.base64EncodedString())
        #expect(postData["_encoding"] as? String == "base64")
        #expect(postData["mimeType"] as? String == "application/octet-stream")
        #expect(content["text"] as? String == bytes.base64EncodedString())
        #expect(content["encoding"] as? String == "base64")
    }

    @Test("when a request fails without a response, should write status 0 with the URLError code")
    func transportError() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .error(.cannotConnectToHost))
        let recorder = HARRecordingSession(wrapping: backend)

        let answer = recorder.send(makeURLRequest("/")).log.single

        let entry = try #require(try entries(recorder).first)
        #expect((entry["response"] as? [String: Any])?["status"] as? Int == 0)
        #expect(entry["_urlErrorCode"] as? Int == URLError.Code.cannotConnectToHost.rawValue)
        #expect((entry["_error"] as? String)?.isEmpty == false)
        #expect(answer?.urlErrorCode == .cannotConnectToHost)
    }

    // MARK: Secrets never in clear (issue 38, items 11 to 14)

    @Test("when a request to a URL with a password and a token fails in transport, should mask both in _error")
    func transportErrorMasked() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .error(.cannotConnectToHost))
        let recorder = HARRecordingSession(wrapping: backend)
        var request = makeURLRequest("/")
        request.url = URL(string: "https://ada:hunter2@api.example.com/p?access_token=t0k3n#id_token=fr4g")

        let answer = recorder.send(request).log.single

        let entry = try #require(try entries(recorder).first)
        let error = try #require(entry["_error"] as? String)
        let har = String(decoding: try recorder.harData(), as: UTF8.self)
        for secret in ["hunter2", "t0k3n", "fr4g"] {
            #expect(!har.contains(secret), "\(secret) in \(error)")
        }
        #expect(error.hasPrefix("No connection could be made to the host"), "\(error)")
        #expect(answer?.urlErrorCode == .cannotConnectToHost, "the caller still gets the real error")
    }

    @Test("when Refresh quotes its URL and Location's fragment holds a token, should mask both")
    func refreshHeaderMasked() throws {
        let backend = FakeNetworkSession()
        backend.stub(
            .any,
            with: .status(
                200,
                headers: [
                    "Refresh": "0; URL = 'https://app.example.com/cb?access_token=t0k3n'",
                    "Location": "https://app.example.com/cb#access_token=fr4g&token_type=bearer",
                ]))
        let recorder = HARRecordingSession(wrapping: backend)

        _ = recorder.send(makeURLRequest("/"))

        let har = String(decoding: try recorder.harData(), as: UTF8.self)
        #expect(!har.contains("t0k3n"), "\(har)")
        #expect(!har.contains("fr4g"), "\(har)")
        #expect(har.contains("0; URL = 'https://app.example.com/cb?access_token=REDACTED'"))
    }

    private static let unusualJSONBodies: [Data] = [
        Data([0xEF, 0xBB, 0xBF]) + Data(#"{"access_token":"t0k3n"}"#.utf8),
        Data(")]}',\n{\"access_token\":\"t0k3n\"}".utf8),
        #"{"access_token":"t0k3n"}"#.utf16BigEndianBytes,
    ]

    @Test(
        "when a JSON response has a byte-order mark, an anti-XSSI prefix or is UTF-16, should mask its token",
        arguments: HARRecordingSessionTests.unusualJSONBodies)
    func unusualJSONMasked(body: Data) throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .status(200, headers: ["Content-Type": "application/json"], body: body))
        let recorder = HARRecordingSession(wrapping: backend)

        _ = recorder.send(makeURLRequest("/token", method: "POST"))

        let har = String(decoding: try recorder.harData(), as: UTF8.self)
        let entry = try #require(try entries(recorder).first)
        let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
        let text = content["text"] as? String ?? ""
        // Read as written, base64 or not, without the zero bytes UTF-16 puts between letters.
        let decoded = (Data(base64Encoded: text).map { String(decoding: $0, as: UTF8.self) } ?? text)
            .replacingOccurrences(of: "\0", with: "")
        #expect(!har.contains("t0k3n") && !decoded.contains("t0k3n"), "\(decoded)")
        #expect(decoded.contains(#""access_token":"REDACTED""#), "\(decoded)")
    }

    @Test("when a request is cancelled, should not write it, and should pass the cancellation on")
    func cancelled() throws {
        let backend = FakeNetworkSession(holdingResponses: true)
        backend.stub(.any, with: .status(200))
        let recorder = HARRecordingSession(wrapping: backend)

        let (task, log) = recorder.send(makeURLRequest("/"))
        task.cancel()

        #expect(log.single?.urlErrorCode == .cancelled)
        #expect(recorder.entryCount == 0)
        #expect(try entries(recorder).isEmpty)
    }

    @Test(
        "when answers arrive out of order, should write entries in the order the requests were made, leaving out those in flight"
    )
    func order() throws {
        let backend = FakeNetworkSession(holdingResponses: true)
        backend.stub(.any, with: .status(200))
        let recorder = HARRecordingSession(wrapping: backend)
        for path in ["/1", "/2", "/3"] { recorder.send(makeURLRequest(path)) }

        backend.releaseLast()
        backend.releaseNext()

        let urls = try entries(recorder).compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
        #expect(urls == ["https://api.example.com/1", "https://api.example.com/3"])
    }

    @Test("when written to a file, should write the same archive as harData")
    func writeToFile() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .text("ok"))
        let recorder = HARRecordingSession(wrapping: backend)
        recorder.send(makeURLRequest("/"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }

        try recorder.write(to: file)

        #expect(try Data(contentsOf: file) == recorder.harData())
        #expect(recorder.entryCount == 1)
    }
}

extension String {
    /// The text in UTF-16, big-endian, without a byte-order mark.
    fileprivate var utf16BigEndianBytes: Data {
        Data(utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    }
}
