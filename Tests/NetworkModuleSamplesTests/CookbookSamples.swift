import Foundation
@testable import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct ServerProblem: Decodable, Sendable {
    let code: String
    let message: String
    let fields: [String: String]?
}

extension NetworkError {
    /// The server's own explanation of a status error, if it sent one in the API's format.
    var serverProblem: ServerProblem? { try? httpErrorResponse?.decodeBody(as: ServerProblem.self) }
}

/// The samples of docs/cookbook.md.
@Suite("Cookbook samples")
struct CookbookSamples {
    struct Note: Codable, Sendable, Equatable {
        let id: Int
        let title: String
    }

    struct GetNote: NetworkRequest {
        let id: Int
        var path: String { "/notes/\(id)" }
    }

    struct CreateNote: NetworkRequest {
        let title: String
        var path: String { "/notes" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .json(["title": title]) }
    }

    // MARK: - Paging

    // sample: cookbook-paging-pages
    struct NotesPage: Decodable, Sendable {
        let items: [Note]
        let nextPage: Int?
    }

    struct NotesFeed: TypedRequest {
        typealias Response = NotesPage
        var path = "/notes"
        var queryItems: [URLQueryItem] = []
    }

    func showAllNotes(from module: any NetworkModule) async throws {
        let linked = module.pages(startingWith: NotesFeed()) { _, response in
            response.linkedURL(rel: "next").map { NotesFeed(path: $0.absoluteString) }
        }
        for try await page in linked {
            print(page.items.map(\.title))
        }
        let numbered = module.pages(startingWith: NotesFeed().addingQueryItems([URLQueryItem(name: "page", value: "1")])) {
            page, _ in
            page.nextPage.map { NotesFeed().addingQueryItems([URLQueryItem(name: "page", value: "\($0)")]) }
        }
        for try await page in numbered {
            print(page.items.count)
        }
    }
    // end-sample

    @Test("when pages are walked by Link header and by page number, should print each page as it arrives")
    func pagingWithPages() async throws {
        let session = FakeNetworkSession()
        session.stub(
            .path("/v2/notes"),
            with: .json(
                #"{"items": [{"id": 1, "title": "A"}], "nextPage": null}"#,
                headers: ["Link": #"</v2/notes?page=2>; rel="next""#]))
        session.stub(.query("page", "2"), with: .json(#"{"items": [{"id": 2, "title": "B"}], "nextPage": null}"#))
        session.stub(.query("page", "1"), with: .json(#"{"items": [{"id": 1, "title": "A"}], "nextPage": 2}"#))
        session.stub(.query("page", "2"), with: .json(#"{"items": [{"id": 2, "title": "B"}], "nextPage": null}"#))
        let module = makeSampleModule(session: session)

        let printed = try await Transcript.recording {
            try await showAllNotes(from: module)
        }

        #expect(printed == ["[\"A\"]", "[\"B\"]", "1", "1"])
    }

    // MARK: - Uploading a file with multipart

    @Test("when a file is uploaded as multipart, should send its name, type and bytes in one form")
    func multipartUpload() async throws {
        let session = FakeNetworkSession()
        session.stub(.method(.post) && .path("/v2/notes/7/attachments"), with: .json(#"{"id": 40}"#, status: 201))
        let module = makeSampleModule(session: session)
        let receipt = FileManager.default.temporaryDirectory.appendingPathComponent("receipt-\(UUID().uuidString).pdf")
        try Data("%PDF-1.7 receipt".utf8).write(to: receipt)
        defer { try? FileManager.default.removeItem(at: receipt) }

        let printed = try await Transcript.recording {
            struct UploadAttachment: NetworkRequest {
                let noteID: Int
                let file: URL
                let contents: Data
                var path: String { "/notes/\(noteID)/attachments" }
                var method: HTTPMethod { .post }
                var timeout: TimeInterval? { 120 }
                var body: RequestBody? {
                    var form = MultipartFormData()
                    form.addField(name: "caption", value: "Scanned receipt")
                    form.addFile(name: "file", filename: file.lastPathComponent, contentType: "application/pdf", data: contents)
                    return .multipart(form)
                }
            }

            let contents = try Data(contentsOf: receipt)  // reading may fail; building the request should not
            let response = try await module.perform(request: UploadAttachment(noteID: 7, file: receipt, contents: contents))
            print(response.statusCode)
        }

        #expect(printed == ["201"])
        let sent = try #require(session.recordedRequests.first)
        let contentType = try #require(sent.value(forHTTPHeaderField: "Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let body = try sent.bodyText()
        #expect(body.contains(#"Content-Disposition: form-data; name="caption""#))
        #expect(body.contains(#"name="file"; filename="\#(receipt.lastPathComponent)""#))
        #expect(body.contains("Content-Type: application/pdf"))
        #expect(body.contains("%PDF-1.7 receipt"))
        #expect(sent.timeoutInterval == 120)
    }

    // MARK: - Downloading a large file

    struct DownloadExport: NetworkRequest {
        var path: String { "/exports/latest" }
    }

    @Test("when a module is made for downloads, should raise the transport's size limit and the timeout")
    func downloadModule() throws {
        // sample: cookbook-download-module
        let downloads = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(
                baseURL: URL(string: "https://files.example.com")!,
                defaultTimeout: 600
            ),
            session: URLSessionTransport(maximumResponseSize: 2 * 1024 * 1024 * 1024),  // 2 GiB
            completionExecutor: .background
        )
        // end-sample

        let transport = try #require(downloads.session as? URLSessionTransport)
        #expect(transport.maximumResponseSize == 2 * 1024 * 1024 * 1024)
        #expect(try downloads.requestBuilder.build(request: DownloadExport()).timeoutInterval == 600)
    }

    func download(_ request: some NetworkRequest, to destination: URL, with module: any NetworkModule) async throws {
        do {
            let download = try await module.download(request: request, to: DownloadDestination(destination))
            let size = try FileManager.default.attributesOfItem(atPath: download.fileURL.path)[.size] ?? 0
            print("Saved \(size) bytes")
        } catch NetworkError.responseTooLarge(let limit) {
            print("The file is larger than \(limit) bytes; nothing was saved")
            throw NetworkError.responseTooLarge(limit: limit)
        }
    }

    @Test("when a download fits, should save it; when it is too large, should say so and save nothing")
    func download() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/exports/latest"), with: .status(200, body: Data(repeating: 7, count: 1024)))
        session.stub(.path("/v2/exports/huge"), with: .failure(.responseTooLarge(limit: 2048)))
        struct DownloadHuge: NetworkRequest { var path: String { "/exports/huge" } }
        let module = makeSampleModule(session: session)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cookbook-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let saved = try await Transcript.recording {
            try await download(DownloadExport(), to: folder.appendingPathComponent("export.zip"), with: module)
        }
        var thrown: (any Error)?
        let refused = await Transcript.recording {
            do {
                try await download(DownloadHuge(), to: folder.appendingPathComponent("huge.zip"), with: module)
            } catch {
                thrown = error
            }
        }

        #expect(saved == ["Saved 1024 bytes"])
        #expect(try Data(contentsOf: folder.appendingPathComponent("export.zip")).count == 1024)
        #expect(refused == ["The file is larger than 2048 bytes; nothing was saved"])
        #expect(thrown as? NetworkError == .responseTooLarge(limit: 2048))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("huge.zip").path))
    }

    // MARK: - Refreshing a token

    struct GetMe: NetworkRequest {
        var path: String { "/me" }
        var requiresAuthentication: Bool { true }
    }

    struct Profile: Decodable, Sendable {
        let name: String
    }

    // sample: cookbook-token-store
    struct SignedOut: Error {}

    struct RefreshSession: NetworkRequest {
        let refreshToken: String
        var path: String { "/auth/refresh" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .json(["refresh_token": refreshToken]) }
    }

    struct Tokens: Decodable, Sendable {
        let accessToken: String
    }

    final class TokenStore: AccessTokenProvider, @unchecked Sendable {
        // @unchecked Sendable is safe: `accessToken` is only touched while holding `lock`.
        private let lock = NSLock()
        private var accessToken: String?
        private let refreshToken: String
        private let authModule: any NetworkModule  // a module without the authentication action

        init(accessToken: String?, refreshToken: String, authModule: any NetworkModule) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.authModule = authModule
        }

        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            let token = lock.withLock { accessToken }
            completion(token.map { .success($0) } ?? .failure(SignedOut()))
        }

        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            let request = RefreshSession(refreshToken: refreshToken)
            authModule.performAndDecode(request: request, responseType: Tokens.self) { result in
                if case .success(let tokens) = result { self.lock.withLock { self.accessToken = tokens.accessToken } }
                completion(result.map(\.accessToken).mapError { $0 })
            }
        }
    }
    // end-sample

    @Test("when the access token has expired, should refresh it once and send the request again with the new one")
    func tokenRefresh() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/me"), with: .status(401))
        session.stub(.path("/v2/me") && .header("Authorization", "Bearer fresh"), with: .json(#"{"name": "Ada"}"#))
        session.stub(.method(.post) && .path("/v2/auth/refresh"), with: .json(#"{"accessToken": "fresh"}"#))
        let authModule = makeSampleModule(session: session)

        let printed = try await Transcript.recording {
            let tokens = TokenStore(accessToken: "expired", refreshToken: "r-123", authModule: authModule)
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
                session: session,
                actions: [.authentication(tokens)],
                completionExecutor: .immediate
            )
            let me = try await module.performAndDecode(request: GetMe(), responseType: Profile.self)
            print(me.name)
        }

        #expect(printed == ["Ada"])
        #expect(session.recordedRequests.map { $0.url?.path ?? "" } == ["/v2/me", "/v2/auth/refresh", "/v2/me"])
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer expired", nil, "Bearer fresh"])
        #expect(try session.recordedRequests[1].bodyJSONObject() as? [String: String] == ["refresh_token": "r-123"])
    }

    // MARK: - Decoding a server error body

    @Test("when the server explains a rejection in JSON, should show its message and fields")
    func errorBody() async {
        let session = FakeNetworkSession()
        session.stub(
            .method(.post) && .path("/v2/notes"),
            with: .json(
                #"{"code": "invalid", "message": "The note needs a title.", "fields": {"title": "empty"}}"#, status: 422))
        let module = makeSampleModule(session: session)

        let printed = await Transcript.recording {
            do throws(NetworkError) {
                _ = try await module.performAndDecode(request: CreateNote(title: ""), responseType: Note.self)
            } catch {
                if let problem = error.serverProblem {
                    print(problem.message, problem.fields ?? [:])
                } else {
                    print(error)
                }
            }
        }

        #expect(printed == [#"The note needs a title. ["title": "empty"]"#])
    }

    // MARK: - Retrying with backoff

    // sample: cookbook-retry-policy
    struct CreatePayment: NetworkRequest {
        let amount: Int
        let idempotencyKey: String
        var path: String { "/payments" }
        var method: HTTPMethod { .post }
        var headers: HTTPHeaders { ["Idempotency-Key": idempotencyKey] }
        var body: RequestBody? { .json(["amount": amount]) }
        var retryPolicy: RetryPolicy? {
            var policy = RetryPolicy.default
            policy.retriesNonIdempotentMethods = true  // safe: the server sees the same key
            return policy
        }
    }
    // end-sample

    @Test("when a POST carries an idempotency key and its own policy, should be retried with the same key")
    func retryIdempotentPost() {
        let session = FakeNetworkSession()
        session.stub(.method(.post) && .path("/v2/payments"), sequence: [.status(503), .json(#"{"id": 1}"#, status: 201)])
        let scheduler = ManualDelayScheduler()
        let module = makeSampleModule(session: session, actions: [.retry()], delayScheduler: scheduler)
        let outcome = LockedLines()

        module.perform(request: CreatePayment(amount: 100, idempotencyKey: "pay-42")) { result in
            outcome.append("\((try? result.get())?.statusCode ?? -1)")
        }
        scheduler.runAll()

        #expect(outcome.lines == ["201"])
        #expect(session.recordedRequests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") } == ["pay-42", "pay-42"])
    }

    // MARK: - Cancelling when a screen closes

    // sample: cookbook-cancel-screen
    final class NoteScreen {
        private let module: any NetworkModule
        private var requests: [any NetworkCancellable] = []

        init(module: any NetworkModule) {
            self.module = module
        }

        func open(noteID: Int, show: @escaping @Sendable (String) -> Void) {
            let request = module.performAndDecode(request: GetNote(id: noteID), responseType: Note.self) { result in
                switch result {
                case .success(let note): show(note.title)
                case .failure(.cancelled): break  // the screen is closed: show nothing
                case .failure(let error): show("Could not load the note: \(error)")
                }
            }
            requests.append(request)
        }

        func close() {
            requests.forEach { $0.cancel() }
            requests.removeAll()
        }

        deinit {
            close()
        }
    }
    // end-sample

    @Test("when the screen closes before the answer arrives, should cancel the request and show nothing")
    func cancelOnClose() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.path("/v2/notes/1"), with: .json(Note(id: 1, title: "Groceries")))
        let shown = LockedLines()
        var screen: NoteScreen? = NoteScreen(module: makeSampleModule(session: session))

        screen?.open(noteID: 1) { shown.append($0) }
        screen = nil
        session.releaseAll()

        #expect(shown.lines.isEmpty)
        #expect(session.cancelledCount == 1)
    }

    @Test("when the screen stays open, should show the note")
    func screenShowsNote() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/notes/1"), with: .json(Note(id: 1, title: "Groceries")))
        let shown = LockedLines()
        let screen = NoteScreen(module: makeSampleModule(session: session))

        screen.open(noteID: 1) { shown.append($0) }

        #expect(shown.lines == ["Groceries"])
    }

    // MARK: - Offline tests with a recorded HAR

    // sample: cookbook-har-fixture
    /// Runs `exercise` against a session that replays `fixture`, or, when `record` is true,
    /// against `live` while recording the traffic into `fixture`.
    func withRecordedTraffic(
        fixture: URL, record: Bool, live: @autoclosure () -> any NetworkSession,
        _ exercise: (any NetworkSession) async throws -> Void
    ) async throws {
        let redaction = Redaction.default.adding(headers: ["X-API-Key"])
        if record {
            let recorder = HARRecordingSession(wrapping: live(), redaction: redaction)
            try await exercise(recorder)
            try recorder.write(to: fixture)
        } else {
            let replay = try HARReplaySession(contentsOf: fixture, redaction: redaction, onMiss: { message in
                Issue.record(Comment(rawValue: message))
            })
            try await exercise(replay)
        }
    }
    // end-sample

    @Test("when traffic is recorded once, should replay it offline with the same results and no secret in the file")
    func harFixture() async throws {
        let fixture = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: fixture) }
        let backend = FakeNetworkSession()
        backend.stub(.path("/v2/notes/1"), with: .json(Note(id: 1, title: "Groceries")))
        try await withRecordedTraffic(fixture: fixture, record: true, live: backend) { session in
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL, defaultHeaders: ["X-API-Key": "development-key"]),
                session: session, completionExecutor: .immediate)
            _ = try await module.performAndDecode(request: GetNote(id: 1), responseType: Note.self)
        }
        let archive = try String(contentsOf: fixture, encoding: .utf8)
        #expect(!archive.contains("development-key"))
        #expect(archive.contains("Groceries"))

        // sample: cookbook-har-test
        // Run once with RECORD_FIXTURES=1 against the real backend, and commit the file.
        let recording = ProcessInfo.processInfo.environment["RECORD_FIXTURES"] == "1"
        try await withRecordedTraffic(fixture: fixture, record: recording, live: URLSessionTransport.shared) { session in
            let module = DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(
                    baseURL: URL(string: "https://api.example.com/v2")!,
                    defaultHeaders: ["X-API-Key": "development-key"]
                ),
                session: session,
                completionExecutor: .immediate
            )
            let note = try await module.performAndDecode(request: GetNote(id: 1), responseType: Note.self)
            #expect(note.title == "Groceries")
        }
        // end-sample

        #expect(backend.recordedRequests.count == 1, "the replay did not reach the backend")
    }

    // MARK: - A custom action

    // sample: cookbook-circuit-breaker
    /// Fails requests at once, without sending them, for `coolDown` seconds after `threshold`
    /// failures in a row that suggest the server is down, so an app stops hammering it.
    final class CircuitBreaker: NetworkModuleAction, @unchecked Sendable {
        // @unchecked Sendable is safe: `failuresInARow` and `openUntil` are only touched while holding `lock`.
        private let lock = NSLock()
        private var failuresInARow = 0
        private var openUntil: Date?
        private let threshold: Int
        private let coolDown: TimeInterval
        private let now: @Sendable () -> Date

        init(threshold: Int = 5, coolDown: TimeInterval = 30, now: @escaping @Sendable () -> Date = { Date() }) {
            self.threshold = threshold
            self.coolDown = coolDown
            self.now = now
        }

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            let isOpen = lock.withLock { openUntil.map { now() < $0 } ?? false }
            completion(isOpen ? .failure(NetworkError.cannotConnectToHost) : .success(urlRequest))
        }

        func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            lock.lock()
            defer { lock.unlock() }
            switch result {
            case .success:
                failuresInARow = 0
            case .failure(let error) where error.isRetryable:
                failuresInARow += 1
                if failuresInARow >= threshold { openUntil = now().addingTimeInterval(coolDown) }
            case .failure:
                break  // a 404 or a decoding error says nothing about the server's health
            }
        }
    }
    // end-sample

    @Test("when the server fails again and again, should fail fast until the cool-down has passed")
    func circuitBreaker() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(503))
        let clock = ManualDelayScheduler()
        let breaker = CircuitBreaker(threshold: 2, coolDown: 30, now: { Date(timeIntervalSince1970: clock.now) })
        let module = makeSampleModule(session: session, actions: [breaker])
        let outcomes = LockedLines()
        let send: () -> Void = {
            module.perform(request: GetNote(id: 1)) { result in
                if case .failure(let error) = result { outcomes.append(error.statusCode.map { "\($0)" } ?? "\(error)") }
            }
        }

        send()
        send()
        send()
        clock.advance(by: 31)
        send()

        #expect(outcomes.lines == ["503", "503", NetworkError.cannotConnectToHost.description, "503"])
        #expect(session.recordedRequests.count == 3, "the third request is failed without being sent")
    }

    // MARK: - A custom session decorator

    // sample: cookbook-session-decorator
    /// A session for debug builds that can simulate being offline, without touching the
    /// network, so the app's offline screens can be tried on a working connection.
    struct OfflineSwitchSession: NetworkSession {
        let wrapped: any NetworkSession
        let isOffline: @Sendable () -> Bool

        func dataTask(
            with request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            guard isOffline() else { return wrapped.dataTask(with: request, completionHandler: completionHandler) }
            return FailingTask { completionHandler(nil, nil, URLError(.notConnectedToInternet)) }
        }
    }

    /// Reports its failure when resumed: exactly once, as a session must.
    struct FailingTask: NetworkSessionTask {
        let fail: @Sendable () -> Void

        func resume() { fail() }
        func cancel() {}
    }
    // end-sample

    @Test("when the offline switch is on, should fail with notConnectedToInternet without sending; off, should send")
    func sessionDecorator() {
        let backend = FakeNetworkSession()
        backend.stub(.path("/v2/notes/1"), with: .json(Note(id: 1, title: "Groceries")))
        let offline = LockedLines()

        let session = OfflineSwitchSession(wrapped: backend, isOffline: { !offline.lines.isEmpty })
        let switched = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: session, completionExecutor: .immediate)
        let outcomes = LockedLines()

        switched.perform(request: GetNote(id: 1)) { result in outcomes.append("\((try? result.get())?.statusCode ?? -1)") }
        offline.append("on")
        switched.perform(request: GetNote(id: 1)) { result in
            if case .failure(let error) = result { outcomes.append("\(error == .notConnectedToInternet)") }
        }

        #expect(outcomes.lines == ["200", "true"])
        #expect(backend.recordedRequests.count == 1)
    }

    // MARK: - Switching environments

    // sample: cookbook-environments
    enum APIEnvironment: String, CaseIterable, Sendable {
        case production, staging, local

        var baseURL: URL {
            switch self {
            case .production: URL(string: "https://api.example.com/v2")!
            case .staging: URL(string: "https://staging.api.example.com/v2")!
            case .local: URL(string: "http://localhost:8080/v2")!
            }
        }
    }

    func makeModule(
        for environment: APIEnvironment,
        tokens: any AccessTokenProvider,
        session: some NetworkSession = URLSessionTransport.shared,
        completionExecutor: some CompletionExecutor = .main
    ) -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: environment.baseURL),
            session: session,
            actions: [.authentication(tokens), .retry()],
            completionExecutor: completionExecutor
        )
    }
    // end-sample

    struct FixedTokens: AccessTokenProvider {
        let token: String
        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) { completion(.success(token)) }
        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) { completion(.success(token)) }
    }

    @Test("when the environment changes, should send to its base URL, with the token for its origin only")
    func environments() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/me"), with: .json(#"{"name": "Ada"}"#))

        let module = makeModule(
            for: .staging, tokens: FixedTokens(token: "staging-token"), session: session, completionExecutor: .immediate)
        let sent = try await module.perform(request: GetMe()).request

        #expect(sent.url?.absoluteString == "https://staging.api.example.com/v2/me")
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer staging-token")
        #expect(APIEnvironment.allCases.map(\.baseURL.host) == ["api.example.com", "staging.api.example.com", "localhost"])
    }

    // MARK: - Logging safely

    struct SignIn: NetworkRequest {
        let user: String
        let password: String
        var path: String { "/sessions" }
        var method: HTTPMethod { .post }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "api_key", value: "k-123")] }
        var body: RequestBody? { .formURLEncoded(["user": user, "password": password]) }
    }

    func debugLogging(to sink: @escaping @Sendable (String) -> Void) -> [any NetworkModuleAction] {
        #if DEBUG
            return [
                .logging(
                    redaction: .default.adding(headers: ["X-API-Key"], queryItems: ["api_key"]),
                    bodies: false,  // form bodies here carry passwords, which no redaction can see
                    sink: sink
                )
            ]
        #else
            return []
        #endif
    }

    @Test("when a sign-in is logged, should mask the key in the URL and headers and leave out the password")
    func loggingSafely() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/sessions"), with: .status(201))
        let log = LockedLines()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL, defaultHeaders: ["X-API-Key": "k-123"]),
            session: session, actions: debugLogging(to: { log.append($0) }), completionExecutor: .immediate)

        module.perform(request: SignIn(user: "ada", password: "s3cret")) { _ in }

        let text = log.lines.joined(separator: "\n")
        #if DEBUG
            #expect(text.contains("POST https://api.example.com/v2/sessions?api_key=REDACTED"))
            #expect(text.contains("X-Api-Key: REDACTED") || text.contains("X-API-Key: REDACTED"))
        #endif
        #expect(!text.contains("k-123"))
        #expect(!text.contains("s3cret"))
    }

    // MARK: - Signing requests

    @Test("when Marvel-style signing is on, should add ts, apikey and hash, and mask the key and hash in logs")
    func signingRequests() throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"data": {"results": []}}"#))
        let log = LockedLines()
        let publicKey = "pub-123"
        let privateKey = "priv-456"

        // sample: cookbook-signing
        let signing: any NetworkModuleAction = .signing(secrets: ["apikey", "hash"]) { _ in
            let ts = String(Int(Date().timeIntervalSince1970))
            return .queryItems([
                URLQueryItem(name: "ts", value: ts),
                URLQueryItem(name: "apikey", value: publicKey),
                URLQueryItem(name: "hash", value: md5Hex(ts + privateKey + publicKey)),
            ])
        }
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://gateway.marvel.com/v1/public")!),
            session: session,
            actions: [signing, .logging(sink: { log.append($0) })],
            completionExecutor: .immediate
        )
        // end-sample

        module.perform(request: ListCharacters()) { _ in }

        let query = try #require(session.recordedRequests.first?.url?.query)
        #expect(query.hasPrefix("nameStartsWith=Spider&ts="))
        #expect(query.contains("&apikey=pub-123&hash="))
        let text = log.lines.joined(separator: "\n")
        #expect(text.contains("apikey=REDACTED&hash=REDACTED"))
        #expect(!text.contains("pub-123"))
    }

    struct ListCharacters: NetworkRequest {
        var path: String { "/characters" }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "nameStartsWith", value: "Spider")] }
    }
}

/// A stand-in for the MD5 the Marvel API asks for, so the recipe runs without cryptography
/// (the framework ships none): hex digits of FNV-1a, not MD5.
func md5Hex(_ text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return String(hash, radix: 16)
}
