import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Combine)
    import Combine
#endif

/// The examples in the libraries' `///` comments, each compiled here word for word as the
/// region `doc: <file under Sources>#<number in that file>` (checked by
/// ``DocumentationSamplesTests``). Each is a method of ``DocCommentSamples``, whose members
/// stand for what the examples name without declaring: the module, the builder, a response.
/// They are compiled, not run: many would reach the network, the file system or a player.
struct DocCommentSamples: Sendable {

    struct User: Codable, Sendable {
        let id: Int
        let name: String
    }

    struct GetUser: TypedRequest {
        typealias Response = User
        let id: Int
        var path: String { "/users/\(id)" }
    }

    struct GetVideo: NetworkRequest {
        let id: Int
        var path: String { "/videos/\(id)" }
    }

    struct GetExport: NetworkRequest {
        let id: Int
        var path: String { "/exports/\(id)" }
    }

    struct GetLog: NetworkRequest {
        let id: Int
        var path: String { "/logs/\(id)" }
    }

    struct ListNotes: TypedRequest {
        typealias Response = [String]
        var url: URL?
        var path: String { url?.path ?? "/notes" }
        var queryItems: [URLQueryItem] {
            url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []
        }
    }

    struct NotesPage: TypedRequest {
        struct Response: Decodable, Sendable {
            let items: [String]
            let nextCursor: String?
        }
        let cursor: String?
        var path: String { "/notes" }
    }

    struct SearchNotes: TypedRequest {
        typealias Response = [String]
        let term: String
        var path: String { "/notes/search" }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "q", value: term)] }
    }

    struct UploadVideo: NetworkRequest {
        let file: URL
        var path: String { "/videos" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .file(file, contentType: "video/mp4") }
    }

    struct UploadPhoto: NetworkRequest {
        let body: RequestBody?
        var path: String { "/photos" }
        var method: HTTPMethod { .post }
    }

    struct NewUser: Encodable, Sendable {
        let name: String
    }

    struct APIError: Decodable, Sendable {
        let message: String
    }

    struct ErrorEnvelope: Decodable, Error {
        let error: String
    }

    struct SignedOut: Error {}

    struct MyXMLDecoder {
        func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
            try JSONDecoder().decode(type, from: data)
        }
    }

    struct Keychain: Sendable {
        let accessToken: String? = "t0ken"
        let refreshToken: String? = "r3fresh"
    }

    struct AuthServer: Sendable {
        func refresh(using token: String?, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(.success("fresh"))
        }
        func refresh() async throws -> String { "fresh" }
    }

    actor TokenStore {
        func accessToken() async throws -> String { "t0ken" }
    }

    /// The app's token provider, as the examples name it (`tokens`).
    struct Tokens: AccessTokenProvider {
        func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(.success("t0ken"))
        }
        func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            completion(.success("fresh"))
        }
    }

    struct Player: Sendable {
        func play(_ url: URL) {}
    }

    final class ProgressBar: Sendable {
        private let value = LockedState<Float>(0)
        var progress: Float {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }

    struct Parser: Sendable {
        func consume(_ chunk: Data) {}
    }

    struct Analytics: Sendable {
        func track(_ event: String, _ duration: TimeInterval, _ status: Int?) {}
    }

    struct Logger: Sendable {
        func debug(_ message: String) {}
    }

    struct Page: Encodable, Sendable {
        let items: [String]
    }

    let builder = DefaultRequestBuilder(baseURL: sampleBaseURL)
    let apiURL = sampleBaseURL
    let api = sampleBaseURL
    let exporter = OTLPJSONExporter(serviceName: "notes")
    let session = FakeNetworkSession()
    var fake: FakeNetworkSession { session }
    var module: DefaultNetworkModule {
        DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: .immediate)
    }
    let request = GetUser(id: 1)
    let response = NetworkResponse(
        data: Data(), httpResponse: HTTPURLResponse(url: sampleBaseURL, statusCode: 200, httpVersion: nil, headerFields: nil)!,
        request: URLRequest(url: sampleBaseURL))
    let result = Result<User, NetworkError>.failure(.cancelled)
    let error = NetworkError.cancelled
    let tokens = Tokens()
    let store = TokenStore()
    let publicKey = "public"
    let privateKey = "private"
    let player = Player()
    let bar = ProgressBar()
    let parser = Parser()
    let analytics = Analytics()
    let logger = Logger()
    let imageQueue = DispatchQueue(label: "com.example.images")
    let documents = FileManager.default.temporaryDirectory
    let videoURL = FileManager.default.temporaryDirectory.appendingPathComponent("intro.mp4")
    let movieURL = FileManager.default.temporaryDirectory.appendingPathComponent("movie.mp4")
    let destination = DownloadDestination(FileManager.default.temporaryDirectory.appendingPathComponent("video.mp4"))
    let jpeg = Data([0xFF, 0xD8])
    let pngData = Data([0x89, 0x50])
    let export = Data(count: 4_096)
    let page = Page(items: [])
    let size: Int64 = 1_024
    let form = MultipartFormData()

    func show(_ value: Any) {}
    func openArchive() throws -> InputStream { InputStream(data: Data()) }
    func md5Hex(_ text: String) -> String { text }

    func exampleAccessTokenProvider1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Authentication/AccessTokenProvider.swift#1
        final class SessionTokens: AccessTokenProvider {
            func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
                completion(keychain.accessToken.map(Result.success) ?? .failure(SignedOut()))
            }
            func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
                authServer.refresh(using: keychain.refreshToken) { completion($0) }  // and store it
            }
        }
        // end-sample
    }

    func exampleAuthenticationAction1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Authentication/AuthenticationAction.swift#1
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiURL),
            actions: [.authentication(tokens), .retry(.default), .logging()])
        // end-sample
        _ = module
    }

    func exampleAuthenticationAction2() async throws {
        // sample: doc: NetworkModuleCore/Actions/Authentication/AuthenticationAction.swift#2
        let bearer: AuthenticationAction = .authentication("secret-token")  // Authorization: Bearer secret-token
        let raw: AuthenticationAction = .authentication("secret-token", scheme: .header("Access-Token"))  // Access-Token: secret-token
        // end-sample
        _ = (bearer, raw)
    }

    func exampleAuthenticationAction3() async throws {
        // sample: doc: NetworkModuleCore/Actions/Authentication/AuthenticationAction.swift#3
        let actions: [any NetworkModuleAction] = [
            .authentication(
                current: { try await store.accessToken() },
                refresh: { try await authServer.refresh() })
        ]
        // end-sample
        _ = actions
    }

    func exampleAuthorizationScheme1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Authentication/AuthorizationScheme.swift#1
        let schemes: [AuthorizationScheme] = [
            .bearer,                                     // Authorization: Bearer <token>
            .basic,                                      // Authorization: Basic <base64 of "user:password">
            .header("X-API-Key"),                        // X-API-Key: <token>
            .header("Access-Token"),                     // Access-Token: <token> (the ancestor module's raw token)
            .header("Authorization", prefix: "Token "),  // Authorization: Token <token>
        ]
        // end-sample
        _ = schemes
    }

    func exampleDelayAction1() -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: builder,
            // sample: doc: NetworkModuleCore/Actions/DelayAction.swift#1
            actions: [.delay(1.5)]   // each attempt waits 1.5 s before it is sent
            // end-sample
        )
    }

    func exampleHeadersAction1() -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: builder,
            // sample: doc: NetworkModuleCore/Actions/HeadersAction.swift#1
            actions: [
                .headers(["User-Agent": "Notes/2.4.1", "Accept-Language": "pl-PL"]),
                .requestID(),                                   // X-Request-ID: <UUID>, per request
                .header("X-Client-Time") { _ in "\(Date().timeIntervalSince1970)" },
            ]
            // end-sample
        )
    }

    func exampleLoggingAction1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Logging/LoggingAction.swift#1
        let toStandardError: any NetworkModuleAction = .logging()
        let toLogger: any NetworkModuleAction = .logging(curl: true, sink: { logger.debug("\($0)") })
        // end-sample
        _ = (toStandardError, toLogger)
    }

    func exampleMetricsAction1() -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: builder,
            // sample: doc: NetworkModuleCore/Actions/Metrics/MetricsAction.swift#1
            actions: [.metrics { metrics in analytics.track("request", metrics.totalDuration, metrics.statusCode) }]
            // end-sample
        )
    }

    func exampleTraceContext1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Tracing/TraceContext.swift#1
        let parent = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        // end-sample
        _ = parent
    }

    func exampleTracingAction1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Tracing/TracingAction.swift#1
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: api),
            actions: [.tracing { span in exporter.export(span) }, .retry(.default)])
        // end-sample
        _ = module
    }

    func exampleNetworkModuleAction1() async throws {
        // sample: doc: NetworkModuleCore/Actions/NetworkModuleAction.swift#1
        struct APIKeyAction: NetworkModuleAction {
            let key: String
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
                urlRequest.setValue(key, forHTTPHeaderField: "X-API-Key")
            }
        }
        // end-sample
    }

    func exampleResponseValidationAction1() -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: builder,
            // sample: doc: NetworkModuleCore/Actions/ResponseValidationAction.swift#1
            actions: [
                .failing(statusCodes: [299]),            // .unacceptableStatusCode, with the body
                .validate { response in
                    if let envelope = try? response.decode(ErrorEnvelope.self) { throw envelope }
                },
            ]
            // end-sample
        )
    }

    func exampleRetryAction1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Retry/RetryAction.swift#1
        let module = DefaultNetworkModule(requestBuilder: builder, actions: [.retry(.default)])
        // end-sample
        _ = module
    }

    func exampleRetryPolicy1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Retry/RetryPolicy.swift#1
        var policy = RetryPolicy.default              // 3 attempts, 0.5 s, 1 s, … ±20 %
        policy.maxAttempts = 5
        policy.retriesNonIdempotentMethods = true     // a POST whose server de-duplicates
        let module = DefaultNetworkModule(requestBuilder: builder, actions: [.retry(policy)])
        // end-sample
        _ = module
    }

    func exampleSigningAction1() async throws {
        // sample: doc: NetworkModuleCore/Actions/Signing/SigningAction.swift#1
        let signing: any NetworkModuleAction = .signing(secrets: ["apikey", "hash"]) { _ in
            let ts = String(Int(Date().timeIntervalSince1970))
            return .queryItems([
                URLQueryItem(name: "ts", value: ts),
                URLQueryItem(name: "apikey", value: publicKey),
                URLQueryItem(name: "hash", value: md5Hex(ts + privateKey + publicKey)),
            ])
        }
        // end-sample
        _ = signing
    }

    func exampleDefaultRequestBuilder1() async throws {
        // sample: doc: NetworkModuleCore/Building/DefaultRequestBuilder.swift#1
        let builder = DefaultRequestBuilder(
            baseURL: URL(string: "https://api.example.com/v2")!,
            defaultHeaders: ["Accept": "application/json"]
        )
        // end-sample
        _ = builder
    }

    func exampleDecodingFailure1() async throws {
        // sample: doc: NetworkModuleCore/Errors/DecodingFailure.swift#1
        if case .failure(.decodingFailed(let failure)) = result {
            print(failure)  // "User: key "email" not found at "profile""
        }
        // end-sample
    }

    func exampleHTTPErrorResponse1() async throws {
        let result = Result<NetworkResponse, NetworkError>.failure(.cancelled)
        // sample: doc: NetworkModuleCore/Errors/HTTPErrorResponse.swift#1
        if case .failure(.clientError(let response)) = result {
            let apiError = try response.decodeBody(as: APIError.self)
            show(apiError.message)
        }
        // end-sample
    }

    func exampleNetworkError1() async throws {
        // sample: doc: NetworkModuleCore/Errors/NetworkError.swift#1
        let error = NetworkError(NSError(domain: "com.example.vpn", code: 420))
        // .underlying(the NSError), whose domain and code count for equality
        // end-sample
        _ = error
    }

    func exampleTransportFailure1() async throws {
        // sample: doc: NetworkModuleCore/Errors/TransportFailure.swift#1
        if case .secureConnectionFailed(let failure) = error {
            print(failure.code, failure.failingURL?.absoluteString ?? "-", failure.message ?? "-")
        }
        // end-sample
    }

    func exampleCompletionExecutor1() async throws {
        // sample: doc: NetworkModuleCore/Executors/CompletionExecutor.swift#1
        let app = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .main)
        let images = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .queue(imageQueue))
        let worker = DefaultNetworkModule(requestBuilder: builder, completionExecutor: .background)
        let tests = DefaultNetworkModule(requestBuilder: builder, session: fake, completionExecutor: .immediate)
        // end-sample
        _ = (app, images, worker, tests)
    }

    func exampleDefaultNetworkModule1() async throws {
        // sample: doc: NetworkModuleCore/Module/DefaultNetworkModule.swift#1
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: URLSession.shared,
            actions: [],
            completionExecutor: .main
        )
        let task = module.performAndDecode(request: GetUser(id: 1), responseType: User.self) { result in
            // Result<User, NetworkError>, on the main queue, exactly once
        }
        task.cancel()  // the completion gets .failure(.cancelled), exactly once
        // end-sample
    }

    func exampleNetworkModuleAsync1() async throws {
        // sample: doc: NetworkModuleCore/Module/NetworkModule+Async.swift#1
        let response = try await module.perform(request: GetUser(id: 1))
        // end-sample
        _ = response
    }

    func exampleNetworkModuleAsync2() async throws {
        // sample: doc: NetworkModuleCore/Module/NetworkModule+Async.swift#2
        let user = try await module.send(GetUser(id: 1))
        // end-sample
        _ = user
    }

    func exampleNetworkModuleAsync3() async throws {
        // sample: doc: NetworkModuleCore/Module/NetworkModule+Async.swift#3
        let user = try await module.performAndDecode(request: GetUser(id: 1), responseType: User.self)
        // end-sample
        _ = user
    }

    #if canImport(Combine)
    func exampleNetworkModuleCombine1() {
        var cancellables = Set<AnyCancellable>()
        // sample: doc: NetworkModuleCore/Module/NetworkModule+Combine.swift#1
        module.performPublisher(request: GetUser(id: 1))
            .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.statusCode) })
            .store(in: &cancellables)
        // end-sample
    }
    #endif

    #if canImport(Combine)
    func exampleNetworkModuleCombine2() {
        var cancellables = Set<AnyCancellable>()
        // sample: doc: NetworkModuleCore/Module/NetworkModule+Combine.swift#2
        module.performAndDecodePublisher(request: GetUser(id: 1), responseType: User.self)
            .sink(receiveCompletion: { _ in }, receiveValue: { user in print(user.name) })
            .store(in: &cancellables)
        // end-sample
    }
    #endif

    func exampleNetworkModulePages1() async throws {
        // sample: doc: NetworkModuleCore/Module/NetworkModule+Pages.swift#1
        let linked = module.pages(startingWith: ListNotes()) { _, response in
            response.linkedURL(rel: "next").map { ListNotes(url: $0) }
        }
        let cursored = module.pages(startingWith: NotesPage(cursor: nil)) { page, _ in
            page.nextCursor.map { NotesPage(cursor: $0) }
        }
        for try await page in cursored { show(page.items) }
        // end-sample
        _ = linked
    }

    func exampleNetworkModule1() async throws {
        // sample: doc: NetworkModuleCore/Module/NetworkModule.swift#1
        module.perform(GetUser(id: 1)) { result in
            // Result<User, NetworkError>, through the completion executor, exactly once
        }
        // end-sample
    }

    func exampleNetworkModule2() async throws {
        // sample: doc: NetworkModuleCore/Module/NetworkModule.swift#2
        module.performAndDecode(request: GetUser(id: 1), responseType: User.self) { result in
            switch result {
            case .success(let user): show(user)
            case .failure(let error): show(error)
            }
        }
        // end-sample
    }

    func exampleAcceptableStatusCodes1() async throws {
        // sample: doc: NetworkModuleCore/Requests/AcceptableStatusCodes.swift#1
        // Every request that does not name its own codes accepts 200 to 399, as the ancestor module did.
        let module = DefaultNetworkModule(requestBuilder: builder, acceptableStatusCodes: AcceptableStatusCodes(200..<400))
        // end-sample
        _ = module
    }

    struct RequestAcceptableStatusCodes2: NetworkRequest {
        var path: String { "/notes" }
        // sample: doc: NetworkModuleCore/Requests/AcceptableStatusCodes.swift#2
        var acceptableStatusCodes: AcceptableStatusCodes { [200, 304] }  // or AcceptableStatusCodes(200..<400)
        // end-sample
    }

    func exampleHTTPHeaders1() async throws {
        // sample: doc: NetworkModuleCore/Requests/HTTPHeaders.swift#1
        var headers: HTTPHeaders = ["Accept": "application/json"]
        headers["X-Request-ID"] = UUID().uuidString
        // end-sample
        _ = headers
    }

    func exampleMultipartFormData1() async throws {
        // sample: doc: NetworkModuleCore/Requests/MultipartFormData.swift#1
        var form = MultipartFormData()
        form.addField(name: "title", value: "Holiday")
        form.addFile(name: "photo", filename: "beach.jpg", contentType: "image/jpeg", data: jpeg)
        form.addFile(name: "video", contentType: "video/mp4", fileURL: movieURL)
        let request = UploadPhoto(body: .multipart(form))
        // end-sample
        _ = request
    }

    func exampleNetworkRequest1() async throws {
        // sample: doc: NetworkModuleCore/Requests/NetworkRequest.swift#1
        struct GetUser: NetworkRequest {
            let id: Int
            var path: String { "/users/\(id)" }
            var queryItems: [URLQueryItem] { [URLQueryItem(name: "fields", value: "name,email")] }
            var requiresAuthentication: Bool { true }
        }
        // end-sample
    }

    func exampleRequestBody1() async throws {
        // sample: doc: NetworkModuleCore/Requests/RequestBody.swift#1
        let json: RequestBody = .json(NewUser(name: "Ada"))
        let fields: RequestBody = .formURLEncoded(["grant_type": "password", "username": "ada"])
        let png: RequestBody = .data(pngData, contentType: "image/png")
        let upload: RequestBody = .multipart(form)
        let video: RequestBody = .file(videoURL, contentType: "video/mp4")
        let archive: RequestBody = .stream(length: size, contentType: "application/octet-stream") { try openArchive() }
        // end-sample
        _ = (json, fields, png, upload, video, archive)
    }

    func exampleRequestWithQueryItems1() async throws {
        // sample: doc: NetworkModuleCore/Requests/RequestWithQueryItems.swift#1
        module.perform(request: ListNotes().addingQueryItems([URLQueryItem(name: "page", value: "2")])) { result in show(result) }
        // end-sample
    }

    func exampleRequestWithQueryItems2() async throws {
        // sample: doc: NetworkModuleCore/Requests/RequestWithQueryItems.swift#2
        let request = SearchNotes(term: "swift").addingQueryItems([URLQueryItem(name: "page", value: "2")])
        let notes = try await module.send(request)   // SearchNotes.Response
        // end-sample
        _ = notes
    }

    func exampleTypedRequest1() async throws {
        // sample: doc: NetworkModuleCore/Requests/TypedRequest.swift#1
        struct GetUser: TypedRequest {
            typealias Response = User
            let id: Int
            var path: String { "/users/\(id)" }
        }

        module.perform(GetUser(id: 1)) { result in show(result) }        // Result<User, NetworkError>
        let user = try await module.send(GetUser(id: 1))       // User
        // end-sample
        _ = user
    }

    func exampleJSONResponseDecoder1() async throws {
        // sample: doc: NetworkModuleCore/Responses/JSONResponseDecoder.swift#1
        let module = DefaultNetworkModule(
            requestBuilder: builder,
            decoder: JSONResponseDecoder { decoder in
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                decoder.dateDecodingStrategy = .iso8601
            })
        // end-sample
        _ = module
    }

    func exampleLinkHeader1() async throws {
        // sample: doc: NetworkModuleCore/Responses/LinkHeader.swift#1
        // Link: <https://api.example.com/notes?page=2>; rel="next", <…?page=9>; rel="last"
        let next = response.linkedURL(rel: "next")   // https://api.example.com/notes?page=2
        // end-sample
        _ = next
    }

    func exampleResponseDecoder1() async throws {
        // sample: doc: NetworkModuleCore/Responses/ResponseDecoder.swift#1
        struct XMLBodyDecoder: ResponseDecoder {
            func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
                try MyXMLDecoder().decode(type, from: data)
            }
        }
        // end-sample
    }

    func exampleRedaction1() async throws {
        // sample: doc: NetworkModuleCore/Security/Redaction.swift#1
        let redaction = Redaction.default.adding(headers: ["X-Tenant-Key"], queryItems: ["sig"])
        // end-sample
        _ = redaction
    }

    func exampleServerTrustPolicy1() async throws {
        // sample: doc: NetworkModuleCore/Security/ServerTrustPolicy.swift#1
        // openssl x509 -in server.pem -outform der -out server.der
        let certificate = try Data(contentsOf: Bundle.main.url(forResource: "server", withExtension: "der")!)
        let transport = URLSessionTransport(serverTrust: .pinnedCertificates([certificate]))
        // end-sample
        _ = transport
    }

    func exampleNetworkConnectivity1() async throws {
        let builder = DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!)
        // sample: doc: NetworkModuleCore/Actions/Retry/NetworkConnectivity.swift#1
        let connectivity = NetworkConnectivity()
        let module = DefaultNetworkModule(
            requestBuilder: builder,
            actions: [.retry(RetryPolicy.default.waitingForNetwork(on: connectivity, upTo: 120))]
        )
        // end-sample
        _ = module
    }

    func exampleCachedSession1() async throws {
        // sample: doc: NetworkModuleCore/Sessions/Decorators/CachedSession.swift#1
        let session = URLSessionTransport.shared.cached(maximumBytes: 5_000_000)
        // end-sample
        _ = session
    }

    func exampleDeduplicatedSession1() async throws {
        // sample: doc: NetworkModuleCore/Sessions/Decorators/DeduplicatedSession.swift#1
        let session = URLSessionTransport.shared.deduplicated()
        // end-sample
        _ = session
    }

    func exampleThrottledSession1() async throws {
        // sample: doc: NetworkModuleCore/Sessions/Decorators/ThrottledSession.swift#1
        let session = URLSessionTransport.shared.throttled(maxConcurrent: 4)
        // end-sample
        _ = session
    }

    func exampleRedirectPolicy1() async throws {
        // sample: doc: NetworkModuleCore/Sessions/RedirectPolicy.swift#1
        struct StartLogin: NetworkRequest {
            var path: String { "/oauth/authorize" }
            var redirectPolicy: RedirectPolicy? { .refuse }   // the caller reads `Location` itself
            var acceptableStatusCodes: AcceptableStatusCodes { [302] }
        }
        // end-sample
    }

    func exampleBackgroundTransfers1() throws {
        // sample: doc: NetworkModuleCore/Transfers/Background/BackgroundTransfers.swift#1
        let transfers = BackgroundTransfers(identifier: "com.example.app.transfers", module: module) { id, result in
            // Once per transfer ID, on the module's completion executor: in this launch or a later one.
            print(id, (try? result.get())?.statusCode ?? 0)
        }
        try transfers.upload(request: UploadVideo(file: videoURL), id: "video-42")
        try transfers.download(request: GetVideo(id: 7), to: DownloadDestination(videoURL), id: "video-7")
        // end-sample
    }

    func exampleDownloadDestination1() {
        // sample: doc: NetworkModuleCore/Transfers/DownloadDestination.swift#1
        let destination = DownloadDestination(documents.appendingPathComponent("videos/intro.mp4"))
        module.download(request: GetVideo(id: 7), to: destination) { result in show(result) }
        // end-sample
    }

    func exampleDownloadResponse1() {
        // sample: doc: NetworkModuleCore/Transfers/DownloadResponse.swift#1
        module.download(request: GetVideo(id: 7), to: destination) { result in
            if case .success(let download) = result { player.play(download.fileURL) }
        }
        // end-sample
    }

    func exampleNetworkModuleStreams1() {
        let file = FileHandle.nullDevice
        // sample: doc: NetworkModuleCore/Transfers/NetworkModule+Streams.swift#1
        module.stream(request: GetExport(id: 7), onChunk: { chunk in file.write(chunk) }) { result in
            if case .failure(let error) = result { show(error) }
        }
        // end-sample
    }

    @available(iOS 13.4, macOS 10.15.4, tvOS 13.4, watchOS 6.2, *)  // FileHandle.write(contentsOf:)
    func exampleNetworkModuleStreams2() async throws {
        let file = FileHandle.nullDevice
        // sample: doc: NetworkModuleCore/Transfers/NetworkModule+Streams.swift#2
        for try await chunk in module.stream(request: GetExport(id: 7)) {
            try file.write(contentsOf: chunk)
        }
        // end-sample
    }

    func exampleNetworkModuleTransfers1() {
        // sample: doc: NetworkModuleCore/Transfers/NetworkModule+Transfers.swift#1
        module.download(request: GetVideo(id: 7), to: DownloadDestination(videoURL)) { result in
            if case .success(let download) = result { player.play(download.fileURL) }
        }
        // end-sample
    }

    func exampleResponseStream1() async throws {
        // sample: doc: NetworkModuleCore/Transfers/ResponseStream.swift#1
        for try await chunk in module.stream(request: GetLog(id: 7)) {
            parser.consume(chunk)
        }
        // end-sample
    }

    func exampleTransferProgress1() {
        // sample: doc: NetworkModuleCore/Transfers/TransferProgress.swift#1
        module.download(request: GetVideo(id: 7), to: DownloadDestination(videoURL), progress: { progress in
            guard !progress.isUpload else { return }
            bar.progress = Float(progress.fractionCompleted ?? 0)
        }) { result in show(result) }
        // end-sample
    }

    func exampleTransferTask1() async throws {
        // sample: doc: NetworkModuleCore/Transfers/TransferTask.swift#1
        let transfer = module.downloadTask(request: GetVideo(id: 7), to: DownloadDestination(videoURL))
        Task { @MainActor in
            for await progress in transfer.progress { bar.progress = Float(progress.fractionCompleted ?? 0) }
        }
        let download = try await transfer.value
        // end-sample
        _ = download
    }

    func exampleURLSessionTransport1() async throws {
        // sample: doc: NetworkModuleCore/Transport/URLSessionTransport.swift#1
        let transport = URLSessionTransport(configuration: .ephemeral, maximumResponseSize: 20 * 1024 * 1024)
        let module = DefaultNetworkModule(requestBuilder: builder, session: transport)
        // end-sample
        _ = module
    }

    func exampleURLRequestRecordedBody1() throws {
        let request = URLRequest(url: sampleBaseURL)
        // sample: doc: NetworkModuleTesting/Bodies/URLRequest+RecordedBody.swift#1
        #expect(try request.bodyFormFields() == [URLQueryItem(name: "q", value: "a b&c")])
        // end-sample
    }

    func exampleHARRecordingSession1() async throws {
        // sample: doc: NetworkModuleTesting/HAR/HARRecordingSession.swift#1
        let recorder = HARRecordingSession(wrapping: URLSessionTransport.shared,
                                           redaction: .default.adding(headers: ["X-API-Key"]))
        let module = DefaultNetworkModule(requestBuilder: builder, session: recorder)
        // … run the scenario …
        try recorder.write(to: URL(fileURLWithPath: "Fixtures/checkout.har"))
        // end-sample
        _ = module
    }

    func exampleHARReplaySession1() async throws {
        // sample: doc: NetworkModuleTesting/HAR/HARReplaySession.swift#1
        let replay = try HARReplaySession(contentsOf: URL(fileURLWithPath: "Fixtures/checkout.har"))
        let module = DefaultNetworkModule(requestBuilder: builder, session: replay, completionExecutor: .immediate)
        // end-sample
        _ = module
    }

    @MainActor
    func exampleFakeNetworkModule1() {
        typealias ProfileViewModel = TestingSamples.ProfileViewModel
        typealias GetUser = TestingSamples.GetUser
        typealias User = TestingSamples.User
        // sample: doc: NetworkModuleTesting/Module/FakeNetworkModule.swift#1
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .json(#"{"id": 1, "name": "Ada"}"#))
        module.stub(GetUser.self, where: { $0.id == 2 }, with: .status(404))
        let viewModel = ProfileViewModel(module: module)   // depends on `any NetworkModule`
        viewModel.load(userID: 1)
        #expect(module.performed(GetUser.self).map(\.id) == [1])
        // end-sample
    }

    func exampleManualDelayScheduler1() async throws {
        // sample: doc: NetworkModuleTesting/Scheduling/ManualDelayScheduler.swift#1
        let scheduler = ManualDelayScheduler()
        let module = DefaultNetworkModule(requestBuilder: builder, session: session,
                                          completionExecutor: .immediate, delayScheduler: scheduler)
        module.perform(request: request) { result in show(result) }  // first attempt fails, retry in 2 s
        scheduler.advance(by: 2)                            // the retry runs now, on this thread
        // end-sample
    }

    func exampleRecordingExecutor1() async throws {
        // sample: doc: NetworkModuleTesting/Scheduling/RecordingExecutor.swift#1
        let executor = RecordingExecutor()
        let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: executor)
        module.perform(request: request) { _ in }.cancel()
        #expect(executor.deliveryCount == 1)   // XCTAssertEqual(executor.deliveryCount, 1)
        // end-sample
    }

    func exampleRecordingExecutor2() async throws {
        // sample: doc: NetworkModuleTesting/Scheduling/RecordingExecutor.swift#2
        let executor = RecordingExecutor(holdingDeliveries: true)
        let module = DefaultNetworkModule(
            requestBuilder: builder, session: session, actions: [.authentication(tokens)], completionExecutor: executor)
        module.perform(request: GetUser(id: 1)) { result in show(result) }  // the token comes later
        #expect(await executor.deliver())  // the completion ran here, on the test's actor
        // end-sample
    }

    func exampleFakeNetworkSession1() async throws {
        // sample: doc: NetworkModuleTesting/Session/FakeNetworkSession.swift#1
        let session = FakeNetworkSession()
        session.stub(.path("/users/1"), with: .json(User(id: 1, name: "Ada")))
        session.stub(.path("/flaky"), with: .status(503), .status(200))  // first 503, then 200
        let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: .immediate)
        // end-sample
        _ = module
    }

    func exampleFakeNetworkSession2() async throws {
        // sample: doc: NetworkModuleTesting/Session/FakeNetworkSession.swift#2
        session.stub(.pathPrefix("/echo")) { request in .text(request.url?.query ?? "") }
        // end-sample
    }

    func exampleFakeNetworkSession3() async throws {
        // sample: doc: NetworkModuleTesting/Session/FakeNetworkSession.swift#3
        session.release(.path("/users/2"))   // answer the second request before the first
        // end-sample
    }

    func exampleSpanRecorder1() async throws {
        // sample: doc: NetworkModuleTesting/Tracing/SpanRecorder.swift#1
        let spans = SpanRecorder()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: api), session: session,
            actions: [.tracing(report: spans.record), .retry(.default)], completionExecutor: .immediate)
        module.perform(request: GetUser(id: 1)) { _ in }
        let request = try #require(spans.requests.first)
        #expect(spans.attempts(of: request).map(\.statusCode) == [503, 200])
        #expect(session.recordedRequests.last?.value(forHTTPHeaderField: "traceparent")
            == spans.attempts(of: request).last?.context.traceparent)
        // end-sample
    }

    func exampleRequestMatcher1() async throws {
        // sample: doc: NetworkModuleTesting/Stubs/RequestMatcher.swift#1
        session.stub(.method(.post) && .path("/users"), with: .json(User(id: 1, name: "Ada"), status: 201))
        // end-sample
    }

    func exampleStubbedResponse1() async throws {
        // sample: doc: NetworkModuleTesting/Stubs/StubbedResponse.swift#1
        let responses: [StubbedResponse] = [
            .json(User(id: 1, name: "Ada")),
            .status(204),
            .text("Service Unavailable", status: 503, headers: ["Retry-After": "2"]),
            .error(.timedOut),
            .failure(.invalidResponse),
            .json(page, status: 200).delayed(by: 0.5),
            .status(200, body: export).inChunks(of: 1_024),
        ]
        // end-sample
        _ = responses
    }

    func exampleStubbedResponse2() async throws {
        // sample: doc: NetworkModuleTesting/Stubs/StubbedResponse.swift#2
        session.stub(.path("/export"), with: .status(200, body: Data(count: 10_000)).inChunks(of: 1_000))
        // end-sample
    }

}

// What the examples' own types (a token provider) reach: no instance of DocCommentSamples.
private let keychain = DocCommentSamples.Keychain()
private let authServer = DocCommentSamples.AuthServer()
