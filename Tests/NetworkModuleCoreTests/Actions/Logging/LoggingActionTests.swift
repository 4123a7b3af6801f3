import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Logging action")
struct LoggingActionTests {
    /// `text` with every duration written as `N ms`, so that expectations do not depend on time.
    func timeless(_ text: String) -> String {
        text.replacingOccurrences(of: "[0-9]+ ms", with: "N ms", options: .regularExpression)
    }

    @Test("when a JSON request succeeds, should write the request, the status, time, size, headers and pretty JSON")
    func readableEntry() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"name":"Ada","id":1}"#))
        let log = LogEntries()

        makeModule(session: session, actions: [.logging(sink: log.sink)])
            .perform(request: TestRequest(headers: ["Accept": "application/json"])) { _ in }

        #expect(log.entries.count == 1)
        #expect(
            timeless(log.text) == """
                → GET https://api.example.com/v2/users/1
                  Accept: application/json
                ← 200 GET https://api.example.com/v2/users/1 (N ms, 21 bytes)
                  Content-Type: application/json
                  {
                    "id" : 1,
                    "name" : "Ada"
                  }
                """)
    }

    @Test("when secrets are in headers, cookies, the query or the URL, should mask them in every line, curl included")
    func noSecretReachesAnyLine() throws {
        let session = FakeNetworkSession()
        session.stub(
            .any, with: .status(401, headers: ["Set-Cookie": "session=cookie-secret", "WWW-Authenticate": "Bearer"]))
        let log = LogEntries()
        let redaction = Redaction.default.adding(headers: ["X-API-Key"], queryItems: ["token"])
        let module = makeModule(
            session: session,
            actions: [
                .authentication(
                    FakeTokenProvider(current: .success("bearer-secret"), refreshed: [.success("fresh-secret")])),
                .logging(redaction: redaction, curl: true, sink: log.sink),
            ])
        var urlRequest = URLRequest(
            url: try #require(URL(string: "https://ada:url-secret@api.example.com/v2/me?token=query-secret&page=2")))
        urlRequest.setValue("key-secret", forHTTPHeaderField: "X-API-Key")
        urlRequest.setValue("session=cookie-secret", forHTTPHeaderField: "Cookie")
        urlRequest.setValue("Basic proxy-secret", forHTTPHeaderField: "Proxy-Authorization")

        module.perform(urlRequest: urlRequest) { _ in }

        #expect(log.entries.count == 2, "the 401 and the attempt after the refresh")
        for secret in [
            "bearer-secret", "fresh-secret", "url-secret", "query-secret", "key-secret", "cookie-secret",
            "proxy-secret",
        ] {
            #expect(!log.text.contains(secret), "\(secret) leaked")
        }
        #expect(log.text.contains("token=REDACTED&page=2"))
        #expect(log.text.contains("-H 'Authorization: REDACTED'"))
        #expect(log.text.contains("Set-Cookie: REDACTED"))
        #expect(log.text.contains("WWW-Authenticate: Bearer"), "other headers are written as they are")
    }

    @Test("when a JSON body holds a key named like a secret, should mask its value in the log and in curl")
    func jsonSecretsMasked() throws {
        let session = FakeNetworkSession()
        session.stub(
            .any, with: .json(#"{"headers":{"Authorization":"Bearer echoed-secret"},"token":"body-secret","page":2}"#))
        let log = LogEntries()
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/v2/login")))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"user":"ada","token":"sent-secret"}"#.utf8)

        makeModule(
            session: session,
            actions: [
                .logging(redaction: .default.adding(queryItems: ["token"]), headers: false, curl: true, sink: log.sink)
            ]
        ).perform(urlRequest: request) { _ in }

        for secret in ["echoed-secret", "body-secret", "sent-secret"] {
            #expect(!log.text.contains(secret), "\(secret) leaked")
        }
        #expect(log.text.contains(#""page" : 2"#))
        #expect(log.text.contains(#"--data-binary '{"token":"REDACTED","user":"ada"}'"#))
    }

    @Test("when a JSON body is too large to parse, should not show it at all")
    func largeJSONHidden() {
        let session = FakeNetworkSession()
        let huge = "[" + String(repeating: "1,", count: 600_000) + "1]"
        session.stub(.any, with: .json(huge))
        let log = LogEntries()

        makeModule(session: session, actions: [.logging(headers: false, sink: log.sink)]).perform(
            request: TestRequest()
        ) { _ in }

        #expect(log.text.hasSuffix("\n  (1200003 bytes of JSON left out: too large to mask)"))
    }

    @Test("when a form body larger than 1 MiB holds a secret field, should mask it, not print it cut")
    func largeFormMasked() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let log = LogEntries()
        let form = "password=hunter2&filler=" + String(repeating: "a", count: 1_100_000)
        var request = URLRequest(url: URL(string: "https://api.example.com/v2/login")!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(form.utf8)

        makeModule(session: session, actions: [.logging(headers: false, sink: log.sink)]).perform(urlRequest: request) {
            _ in
        }

        #expect(!log.text.contains("hunter2"), "\(log.text.prefix(200))")
        #expect(log.text.contains("password=REDACTED&filler=aaa"))
    }

    @Test("when a body is longer than the limit, should cut it and say how much was left out")
    func bodyIsCut() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .text(String(repeating: "a", count: 50)))
        let log = LogEntries()

        makeModule(session: session, actions: [.logging(headers: false, maxBodyLength: 10, sink: log.sink)])
            .perform(request: TestRequest()) { _ in }

        #expect(log.text.hasSuffix("\n  aaaaaaaaaa… (40 more characters)"))
    }

    @Test("when the body is binary, should write its size only")
    func binaryBody() {
        let session = FakeNetworkSession()
        session.stub(
            .any, with: .status(200, headers: ["Content-Type": "image/png"], body: Data([0xFF, 0xD8, 0xFF, 0x00])))
        let log = LogEntries()

        makeModule(session: session, actions: [.logging(headers: false, sink: log.sink)])
            .perform(request: TestRequest()) { _ in }

        #expect(timeless(log.text).hasSuffix("(N ms, 4 bytes)\n  (4 bytes of binary data)"))
    }

    @Test("when the body goes to a file or a stream, should write the bytes the attempt moved as its size")
    func transferSize() throws {
        let session = FakeNetworkSession()
        session.stub(
            .any, with: .status(200, headers: ["Content-Type": "application/octet-stream"], body: Data(count: 10_000)))
        let log = LogEntries()
        let module = makeModule(session: session, actions: [.logging(headers: false, sink: log.sink)])
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }

        module.download(
            request: TestRequest(), to: DownloadDestination(folder.appendingPathComponent("file.bin")),
            completion: { _ in })
        module.stream(request: TestRequest(), onChunk: { _ in }, completion: { _ in })

        #expect(log.entries.count == 2)
        #expect(log.entries.allSatisfy { timeless($0).hasSuffix("(N ms, 10000 bytes)") })
    }

    @Test("when a request is retried, should write each attempt's own size, not the total so far")
    func retriedAttemptSizes() {
        let session = FakeNetworkSession()
        session.stub(.any, sequence: [.status(503, body: Data(count: 3)), .status(200, body: Data(count: 5))])
        let log = LogEntries()
        let scheduler = ManualDelayScheduler()

        makeModule(
            session: session,
            actions: [
                .retry(RetryPolicy(maxAttempts: 2, jitter: 0)), .logging(headers: false, bodies: false, sink: log.sink),
            ],
            scheduler: scheduler
        ).perform(request: TestRequest()) { _ in }
        scheduler.runAll()

        #expect(log.entries.map { timeless($0).hasSuffix("(N ms, 3 bytes)") } == [true, false])
        #expect(log.entries.last.map { timeless($0).hasSuffix("(N ms, 5 bytes)") } == true)
    }

    @Test("when an attempt fails in transport, is cancelled, or is failed before sending, should write one line for it")
    func failureLines() {
        struct Offline: NetworkModuleAction {
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest)
                throws
            {
                throw NetworkError.notConnectedToInternet
            }
        }
        let session = FakeNetworkSession()
        session.stub(.path("/v2/timeout"), with: .error(.timedOut))
        session.stub(.path("/v2/slow"), with: .status(200))
        let heldSession = FakeNetworkSession(holdingResponses: true)
        heldSession.stub(.any, with: .status(200))
        let log = LogEntries()

        makeModule(session: session, actions: [.logging(sink: log.sink)])
            .perform(request: TestRequest(path: "/timeout")) { _ in }
        makeModule(session: heldSession, actions: [.logging(sink: log.sink)])
            .perform(request: TestRequest(path: "/slow")) { _ in }.cancel()
        makeModule(session: session, actions: [.logging(sink: log.sink), Offline()])
            .perform(request: TestRequest(path: "/offline?token=x")) { _ in }

        let lines = log.entries.map(timeless)
        #expect(lines.count == 3)
        #expect(
            lines.first?.hasSuffix(
                "← ✗ GET https://api.example.com/v2/timeout \(NetworkError.timedOut.localizedDescription) (N ms)")
                == true)
        #expect(lines.dropFirst().first == "✗ GET https://api.example.com/v2/slow cancelled (N ms)")
        #expect(
            lines.last
                == "✗ GET /offline?token=REDACTED not sent: \(NetworkError.notConnectedToInternet.localizedDescription) (N ms)"
        )
    }

    @Test("when a retry fails before it is sent, should write the first attempt and a line for the failure")
    func retryFailingInPreparation() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(401))
        let log = LogEntries()
        let tokens = FakeTokenProvider(
            current: .success("stale"), refreshed: [.failure(NetworkError.notConnectedToInternet)])

        makeModule(session: session, actions: [.authentication(tokens), .logging(headers: false, sink: log.sink)])
            .perform(request: AuthenticatedRequest()) { _ in }

        #expect(
            log.entries.map(timeless) == [
                "→ GET https://api.example.com/v2/me\n← 401 GET https://api.example.com/v2/me (N ms, 0 bytes)",
                "✗ GET https://api.example.com/v2/me not sent: \(NetworkError.notConnectedToInternet.localizedDescription) (N ms)",
            ])
    }

    @Test("when curl is on, should write a command a shell reads back as the same request")
    func curlCommand() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(201))
        let log = LogEntries()
        let body = #"{"note":"it's a \"test\" $HOME `id`"}"#

        makeModule(session: session, actions: [.logging(headers: false, bodies: false, curl: true, sink: log.sink)])
            .perform(
                request: TestRequest(
                    path: "/notes", method: .post, headers: ["Content-Type": "application/json", "X-Quote": "a'b"])
            ) { _ in }
        // The body goes in through the raw-request path so that it is sent byte for byte.
        var raw = URLRequest(url: try #require(URL(string: "https://api.example.com/v2/notes")))
        raw.httpMethod = "POST"
        raw.httpBody = Data(body.utf8)
        makeModule(session: session, actions: [.logging(headers: false, bodies: false, curl: true, sink: log.sink)])
            .perform(urlRequest: raw) { _ in }

        let commands = log.entries.compactMap { entry in
            entry.range(of: "curl ").map { String(entry[$0.lowerBound...]) }
        }
        #expect(
            commands.first == """
                curl \\
                  -X 'POST' \\
                  'https://api.example.com/v2/notes' \\
                  -H 'Content-Type: application/json' \\
                  -H 'X-Quote: a'\\''b'
                """)
        #if os(Linux) || os(macOS)
            let arguments = try shellArguments(of: try #require(commands.last))
            #expect(arguments == ["-X", "POST", "https://api.example.com/v2/notes", "--data-binary", body])
        #endif
    }

    #if os(Linux) || os(macOS)
        /// The arguments `/bin/sh` passes to `curl` for `command`, one per line (NUL-separated).
        func shellArguments(of command: String) throws -> [String] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "curl() { printf '%s\\0' \"$@\"; }\n" + command]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false)
                .dropLast().map(String.init)
        }
    #endif

    // MARK: Secrets never in clear (issue 38, items 11 to 14)

    @Test("when a transport error's message holds the URL's secrets, should mask them with the action's redaction")
    func transportErrorMessageMasked() {
        let session = FakeNetworkSession()
        session.stub(
            .any,
            with: .failure(
                .transportError(
                    TransportFailure(
                        code: .unknown,
                        message: "GET https://ada:hunter2@api.example.com/v2/users/1?sig=s1gn4ture failed"))))
        let log = LogEntries()

        makeModule(
            session: session, actions: [.logging(redaction: .default.adding(queryItems: ["sig"]), sink: log.sink)]
        )
        .perform(request: TestRequest()) { _ in }

        #expect(log.entries.count == 1)
        #expect(!log.text.contains("hunter2"), "\(log.text)")
        #expect(!log.text.contains("s1gn4ture"), "\(log.text)")
    }

    @Test(
        "when JSON hides behind an anti-XSSI prefix, Refresh quotes a URL and the URL's fragment holds a token, should mask each"
    )
    func unusualPlacesMasked() throws {
        let session = FakeNetworkSession()
        session.stub(
            .any,
            with: .status(
                200,
                headers: [
                    "Content-Type": "application/json; charset=utf-8",
                    "Refresh": "0; url='https://app.example.com/?access_token=t0k3n'",
                ],
                body: Data(")]}',\n{\"access_token\":\"t0k3n\"}".utf8)))
        let log = LogEntries()
        let url = try #require(URL(string: "https://api.example.com/v2/cb#access_token=fr4g&token_type=bearer"))

        makeModule(session: session, actions: [.logging(curl: true, sink: log.sink)])
            .perform(urlRequest: URLRequest(url: url)) { _ in }

        #expect(!log.text.contains("t0k3n"), "\(log.text)")
        #expect(!log.text.contains("fr4g"), "\(log.text)")
        #expect(log.text.contains(")]}',\n  {\n    \"access_token\" : \"REDACTED\""), "\(log.text)")
        #expect(log.text.contains("#access_token=REDACTED&token_type=bearer"), "\(log.text)")
    }
}
