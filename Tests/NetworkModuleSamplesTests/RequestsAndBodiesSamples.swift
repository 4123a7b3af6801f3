import Foundation
@testable import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of docs/requests-and-bodies.md.
@Suite("Requests and bodies samples")
struct RequestsAndBodiesSamples {
    struct GetUser: NetworkRequest {
        let id: Int
        var path: String { "/users/\(id)" }
    }

    /// A request to any path, for the joining table.
    struct PathOnly: NetworkRequest {
        let path: String
    }

    let builder = DefaultRequestBuilder(baseURL: sampleBaseURL)

    // MARK: - Typed requests

    struct User: Codable, Equatable, Sendable {
        let id: Int
        let name: String
    }

    // sample: requests-typed
    struct FetchUser: TypedRequest {
        typealias Response = User
        let id: Int
        var path: String { "/users/\(id)" }
    }

    struct DeleteUser: TypedRequest {
        typealias Response = Void      // no body expected; any body is ignored
        let id: Int
        var path: String { "/users/\(id)" }
        var method: HTTPMethod { .delete }
    }

    struct DownloadAvatar: TypedRequest {
        typealias Response = Data      // the body as it came
        var path: String { "/me/avatar.png" }
    }

    struct FetchLicense: TypedRequest {
        typealias Response = String    // the body as UTF-8 text
        var path: String { "/license.txt" }
    }
    // end-sample

    // sample: requests-typed-plist
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    struct FetchSettings: TypedRequest {
        typealias Response = [String: String]
        var path: String { "/settings.plist" }
        var decoder: (any ResponseDecoder)? { PropertyListDecoder() }
    }
    // end-sample

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test("when a typed request is performed, should deliver its own response type")
    func typedRequests() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .json(User(id: 1, name: "Ada")))
        session.stub(.path("/v2/users/2"), with: .status(204))
        session.stub(.path("/v2/me/avatar.png"), with: .status(200, body: Data([0x89, 0x50])))
        session.stub(.path("/v2/license.txt"), with: .text("MIT"))
        session.stub(
            .path("/v2/settings.plist"),
            with: .status(200, body: try PropertyListEncoder().encode(["theme": "dark"])))
        let module = makeSampleModule(session: session)

        let printed = try await Transcript.recording {
            // sample: requests-typed-perform
            module.perform(FetchUser(id: 1)) { result in
                switch result {
                case .success(let user): print("Hello, \(user.name)")   // user: User
                case .failure(let error): print("Failed: \(error)")
                }
            }

            let user = try await module.send(FetchUser(id: 1))
            try await module.send(DeleteUser(id: 2))
            let avatar = try await module.send(DownloadAvatar())
            let license = try await module.send(FetchLicense())
            let settings = try await module.send(FetchSettings())
            print(user.name, avatar.count, license, settings["theme"] ?? "")
            // end-sample
        }

        #expect(printed == ["Hello, Ada", "Ada 2 MIT dark"])
    }

    @Test("when query items are added to a typed request, should send them and stay typed")
    func addingQueryItems() async throws {
        let session = FakeNetworkSession()
        session.stub(.query("fields", "name"), with: .json(User(id: 1, name: "Ada")))
        let module = makeSampleModule(session: session)

        // sample: requests-adding-query-items
        let secondPage = FetchUser(id: 1).addingQueryItems([URLQueryItem(name: "fields", value: "name")])
        let user = try await module.send(secondPage)  // still a User
        // end-sample

        #expect(user == User(id: 1, name: "Ada"))
        #expect(session.recordedRequests.first?.url?.query == "fields=name")
    }

    @Test("when the module decodes snake-case JSON with ISO 8601 dates, should read both through JSONResponseDecoder")
    func jsonDecoderSettings() async throws {
        struct Event: Decodable, Sendable, Equatable {
            let startsAt: Date
        }
        struct FetchEvent: TypedRequest {
            typealias Response = Event
            var path: String { "/events/1" }
        }
        let session = FakeNetworkSession()
        session.stub(.path("/v2/events/1"), with: .json(#"{"starts_at": "2026-11-23T10:00:00Z"}"#))

        // sample: requests-decoder-json
        let decoder = JSONResponseDecoder { decoder in
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = .iso8601
        }
        // end-sample
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: session, completionExecutor: .immediate, decoder: decoder)

        let event = try await module.send(FetchEvent())

        #expect(event == Event(startsAt: Date(timeIntervalSince1970: 1_795_428_000)))
    }

    // sample: requests-decoder-xml
    struct XMLDecoderAdapter: ResponseDecoder {
        func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
            try PropertyListDecoder().decode(type, from: data)  // your XML decoder here
        }
    }
    // end-sample

    @Test("when the module has its own decoder, should decode typed requests and error bodies with it")
    func moduleDecoder() async throws {
        struct APIError: Codable, Sendable {
            let message: String
        }
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(200, body: try PropertyListEncoder().encode(User(id: 1, name: "Ada"))))
        session.stub(.path("/v2/users/9"), with: .status(404, body: try PropertyListEncoder().encode(APIError(message: "No such user"))))

        let printed = try await Transcript.recording {
            // sample: requests-decoder-module
            let module = DefaultNetworkModule(
                requestBuilder: builder, session: session, completionExecutor: .immediate, decoder: XMLDecoderAdapter())
            let user = try await module.send(FetchUser(id: 1))  // decoded from XML
            do throws(NetworkError) {
                _ = try await module.send(FetchUser(id: 9))
            } catch {
                let apiError = try? error.httpErrorResponse?.decodeBody(as: APIError.self, decoder: module.decoder)
                print(user.name, apiError?.message ?? "")
            }
            // end-sample
        }

        #expect(printed == ["Ada No such user"])
    }

    // MARK: - Paths

    @Test("when a request is built, should show the URL it will be sent to")
    func building() throws {
        let printed = try Transcript.recording {
            // sample: requests-build
            let builder = DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!)
            let urlRequest = try builder.build(request: GetUser(id: 1))
            print(urlRequest.httpMethod ?? "", urlRequest.url?.absoluteString ?? "")  // GET https://api.example.com/v2/users/1
            // end-sample
        }

        #expect(printed == ["GET https://api.example.com/v2/users/1"])
    }

    @Test(
        "when base URL and path are joined, should follow every row of the guide's table",
        arguments: [
            ("https://api.example.com", "users", "https://api.example.com/users"),
            ("https://api.example.com/", "/users", "https://api.example.com/users"),
            ("https://api.example.com/v2", "users/1", "https://api.example.com/v2/users/1"),
            ("https://api.example.com/v2/", "/users/1", "https://api.example.com/v2/users/1"),
            ("https://api.example.com/v2", "//users", "https://api.example.com/v2/users"),
            ("https://api.example.com/v2", "users/", "https://api.example.com/v2/users/"),
            ("https://api.example.com/v2", "", "https://api.example.com/v2"),
            ("https://api.example.com/v2", "/", "https://api.example.com/v2/"),
            ("https://api.example.com/v2", "/search?sort=asc", "https://api.example.com/v2/search?sort=asc"),
            ("https://api.example.com/v2", "/café/a b", "https://api.example.com/v2/caf%C3%A9/a%20b"),
            ("https://api.example.com/v2", "/files/100%25", "https://api.example.com/v2/files/100%25"),
            ("https://api.example.com/v2", "https://cdn.example.com/a.png", "https://cdn.example.com/a.png"),
        ])
    func joiningTable(base: String, path: String, expected: String) throws {
        let builder = DefaultRequestBuilder(baseURL: try #require(URL(string: base)))

        let urlRequest = try builder.build(request: PathOnly(path: path))

        #expect(urlRequest.url?.absoluteString == expected)
    }

    @Test("when the base URL has no scheme or has a query, should fail when a request is built")
    func invalidBaseURL() throws {
        for base in ["api.example.com", "https://api.example.com/v2?key=1"] {
            let builder = DefaultRequestBuilder(baseURL: try #require(URL(string: base)))
            #expect(throws: NetworkError.invalidRequest(.invalidBaseURL(base))) {
                try builder.build(request: PathOnly(path: "users"))
            }
        }
    }

    // sample: requests-path-segment
    struct GetFile: NetworkRequest {
        let name: String  // from the user: may hold "/", "?", "#" or "%"

        var path: String {
            let segment = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
            return "/files/" + (name.addingPercentEncoding(withAllowedCharacters: segment) ?? name)
        }
    }
    // end-sample

    @Test("when a path segment comes from the user, should escape it so it stays one segment")
    func pathSegment() throws {
        struct Unescaped: NetworkRequest {
            let name: String
            var path: String { "/files/\(name)" }
        }

        let escaped = try builder.build(request: GetFile(name: "why?/100%.txt"))
        let unescaped = try builder.build(request: Unescaped(name: "why?/100%.txt"))

        #expect(escaped.url?.absoluteString == "https://api.example.com/v2/files/why%3F%2F100%25.txt")
        #expect(escaped.url?.query == nil)
        #expect(unescaped.url?.path == "/v2/files/why", "unescaped, the ? starts a query")
        #expect(unescaped.url?.query == "/100%25.txt")
    }

    // MARK: - Query

    // sample: requests-query
    struct SearchUsers: NetworkRequest {
        let term: String
        var path: String { "/users" }
        var queryItems: [URLQueryItem] {
            [
                URLQueryItem(name: "q", value: term),
                URLQueryItem(name: "sort", value: "name"),
                URLQueryItem(name: "active", value: nil),
            ]
        }
    }
    // end-sample

    @Test("when query items hold reserved characters, should encode them per RFC 3986 in order")
    func query() throws {
        let printed = try Transcript.recording {
            // sample: requests-query-built
            let urlRequest = try builder.build(request: SearchUsers(term: "C++ & Swift = fun #1"))
            print(urlRequest.url?.absoluteString ?? "")
            // https://api.example.com/v2/users?q=C%2B%2B%20%26%20Swift%20%3D%20fun%20%231&sort=name&active
            // end-sample
        }

        #expect(printed == ["https://api.example.com/v2/users?q=C%2B%2B%20%26%20Swift%20%3D%20fun%20%231&sort=name&active"])
    }

    @Test("when the path carries a query, should append the query items after it, and keep its text as written")
    func pathQuery() throws {
        struct Mixed: NetworkRequest {
            var path: String { "/users?sort=name&q=a+b" }
            var queryItems: [URLQueryItem] { [URLQueryItem(name: "page", value: "2")] }
        }

        let urlRequest = try builder.build(request: Mixed())

        #expect(urlRequest.url?.absoluteString == "https://api.example.com/v2/users?sort=name&q=a+b&page=2")
    }

    // MARK: - Headers and methods

    @Test("when a request sets a default header's name in other case, should replace the default")
    func headers() throws {
        let printed = try Transcript.recording {
            // sample: requests-headers
            struct DownloadReport: NetworkRequest {
                var path: String { "/reports/latest" }
                var headers: HTTPHeaders { ["accept": "text/csv", "X-Request-ID": "7f3c"] }
            }

            let builder = DefaultRequestBuilder(
                baseURL: URL(string: "https://api.example.com/v2")!,
                defaultHeaders: ["Accept": "application/json", "User-Agent": "MyApp/1.0"]
            )
            let urlRequest = try builder.build(request: DownloadReport())
            print(urlRequest.value(forHTTPHeaderField: "Accept") ?? "")  // text/csv
            print(urlRequest.value(forHTTPHeaderField: "User-Agent") ?? "")  // MyApp/1.0
            print(urlRequest.value(forHTTPHeaderField: "X-Request-ID") ?? "")  // 7f3c
            // end-sample
        }

        #expect(printed == ["text/csv", "MyApp/1.0", "7f3c"])
    }

    struct TaggedRequest: NetworkRequest {
        let tag: String
        var path: String { "/items" }
        var headers: HTTPHeaders { ["X-Tag": tag] }
    }

    @Test("when a header value holds CR/LF, should fail to build and name the header, not the value")
    func headerInjection() {
        let printed = Transcript.recording {
            do {
                _ = try builder.build(request: TaggedRequest(tag: "blue\r\nX-Admin: true"))
            } catch {
                print(error)
            }
        }

        #expect(
            printed == [
                #"The request could not be built, so nothing was sent: the value of header "X-Tag" contains a line break or another control character. Check where the value comes from (a token read with a trailing newline is a common cause); it is not shown here, as it may be a secret."#
            ])
    }

    struct PurgeCache: NetworkRequest {
        var path: String { "/cache/users" }
        var method: HTTPMethod { "PURGE" }
    }

    @Test("when a request uses a custom method, should send it as written; an invalid token should fail")
    func methods() throws {
        struct Bad: NetworkRequest {
            var path: String { "/x" }
            var method: HTTPMethod { "GET X" }
        }

        #expect(try builder.build(request: PurgeCache()).httpMethod == "PURGE")
        #expect(throws: NetworkError.invalidRequest(.invalidMethod("GET X"))) { try builder.build(request: Bad()) }
        #expect(HTTPMethod.put.isIdempotent)
        #expect(!HTTPMethod.post.isIdempotent)
    }

    // MARK: - Bodies

    // sample: requests-json-body
    struct Profile: Encodable, Sendable {
        let displayName: String
        let birthday: Date
    }

    struct UpdateProfile: NetworkRequest {
        let profile: Profile
        var path: String { "/me/profile" }
        var method: HTTPMethod { .put }
        var body: RequestBody? { .json(profile) }  // or .json(profile, encoder: anotherEncoder)
    }
    // end-sample

    @Test("when the builder has an encoder, should encode JSON bodies with it and set the JSON content type")
    func jsonBody() throws {
        let printed = try Transcript.recording {
            // sample: requests-json-body-built
            let encoder = JSONEncoder()  // the builder's, for every JSON body that names none
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = .sortedKeys
            let builder = DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!, jsonEncoder: encoder)
            let profile = Profile(displayName: "Ada", birthday: Date(timeIntervalSince1970: 0))
            let urlRequest = try builder.build(request: UpdateProfile(profile: profile))
            print(urlRequest.value(forHTTPHeaderField: "Content-Type") ?? "")  // application/json
            print(String(decoding: urlRequest.httpBody ?? Data(), as: UTF8.self))
            // {"birthday":"1970-01-01T00:00:00Z","display_name":"Ada"}
            // end-sample
        }

        #expect(printed == ["application/json", #"{"birthday":"1970-01-01T00:00:00Z","display_name":"Ada"}"#])
    }

    @Test("when a JSON body names its encoder, should use it rather than the builder's")
    func requestEncoder() throws {
        struct Keyed: Encodable, Sendable { let displayName: String }
        struct CreateKeyed: NetworkRequest {
            var path: String { "/profiles" }
            var method: HTTPMethod { .post }
            var body: RequestBody? {
                let encoder = JSONEncoder()
                encoder.keyEncodingStrategy = .convertToSnakeCase
                return .json(Keyed(displayName: "Ada"), encoder: encoder)
            }
        }

        let urlRequest = try builder.build(request: CreateKeyed())
        #expect(String(decoding: urlRequest.httpBody ?? Data(), as: UTF8.self) == #"{"display_name":"Ada"}"#)
    }

    struct UploadAvatar: NetworkRequest {
        let png: Data
        var path: String { "/me/avatar" }
        var method: HTTPMethod { .put }
        var body: RequestBody? { .data(png, contentType: "image/png") }
    }

    @Test("when the body is raw data, should send the bytes as they are with the given content type")
    func dataBody() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47])

        let urlRequest = try builder.build(request: UploadAvatar(png: png))

        #expect(urlRequest.httpBody == png)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "image/png")
    }

    @Test("when the body is a form, should encode the fields in order, with a space as +")
    func formBody() throws {
        let printed = try Transcript.recording {
            // sample: requests-form-body
            struct SignIn: NetworkRequest {
                let email: String
                let password: String
                var path: String { "/oauth/token" }
                var method: HTTPMethod { .post }
                var body: RequestBody? {
                    .formURLEncoded(["grant_type": "password", "username": email, "password": password])
                }
            }

            let urlRequest = try builder.build(request: SignIn(email: "ada@example.com", password: "pa ss&word"))
            print(urlRequest.value(forHTTPHeaderField: "Content-Type") ?? "")  // application/x-www-form-urlencoded
            print(String(decoding: urlRequest.httpBody ?? Data(), as: UTF8.self))
            // grant_type=password&username=ada%40example.com&password=pa+ss%26word
            // end-sample
        }

        #expect(
            printed == [
                "application/x-www-form-urlencoded",
                "grant_type=password&username=ada%40example.com&password=pa+ss%26word",
            ])
    }

    // sample: requests-multipart-body
    struct UploadPhoto: NetworkRequest {
        let title: String
        let jpeg: Data
        var path: String { "/photos" }
        var method: HTTPMethod { .post }
        var body: RequestBody? {
            var form = MultipartFormData()
            form.addField(name: "title", value: title)
            form.addFile(name: "photo", filename: "beach.jpg", contentType: "image/jpeg", data: jpeg)
            return .multipart(form)
        }
    }
    // end-sample

    @Test("when the body is multipart, should set the boundary in the content type and frame each part")
    func multipartBody() throws {
        let urlRequest = try builder.build(request: UploadPhoto(title: "Holiday", jpeg: Data("JPEG".utf8)))

        let contentType = try #require(urlRequest.value(forHTTPHeaderField: "Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        let body = String(decoding: urlRequest.httpBody ?? Data(), as: UTF8.self)
        #expect(
            body == "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"beach.jpg\"\r\n"
                + "Content-Type: image/jpeg\r\n\r\nJPEG\r\n--\(boundary)--\r\n")
    }

    // sample: requests-file-body
    struct UploadVideo: NetworkRequest {
        let movie: URL
        var path: String { "/videos" }
        var method: HTTPMethod { .put }
        var body: RequestBody? { .file(movie, contentType: "video/mp4") }
    }
    // end-sample

    /// A temporary file of `count` bytes, removed by the caller.
    static func temporaryFile(bytes count: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sample-\(UUID().uuidString)")
        try Data(repeating: 0x2A, count: count).write(to: url)
        return url
    }

    @Test("when the body is a file, should stream it with its size as Content-Length")
    func fileBody() throws {
        let movieURL = try Self.temporaryFile(bytes: 3 << 20)
        defer { try? FileManager.default.removeItem(at: movieURL) }

        let printed = try Transcript.recording {
            let urlRequest = try builder.build(request: UploadVideo(movie: movieURL))
            print(urlRequest.value(forHTTPHeaderField: "Content-Length") ?? "")
            print(urlRequest.httpBody == nil, urlRequest.httpBodyStream != nil)
        }

        #expect(printed == ["3145728", "true true"])
    }

    // sample: requests-stream-body
    struct UploadSnapshot: NetworkRequest {
        let snapshot: Data
        var path: String { "/snapshots" }
        var method: HTTPMethod { .post }
        var body: RequestBody? {
            .stream(length: Int64(snapshot.count), contentType: "application/x-ndjson") { [snapshot] in
                InputStream(data: snapshot)
            }
        }
    }
    // end-sample

    @Test("when the body is a stream, should send a fresh stream with each attempt")
    func streamBody() throws {
        let session = FakeNetworkSession()
        session.stub(.streamedBody(length: 12), with: .status(503), .status(201))
        let scheduler = ManualDelayScheduler()
        let retry: any NetworkModuleAction = .retry(RetryPolicy(jitter: 0, retriesNonIdempotentMethods: true))
        let module = DefaultNetworkModule(
            requestBuilder: builder, session: session, actions: [retry], completionExecutor: .immediate,
            delayScheduler: scheduler)
        let status = LockedState(0)

        module.perform(request: UploadSnapshot(snapshot: Data("{\"n\":1}\n{}\n\n".utf8))) { result in
            status.withLock { $0 = (try? result.get().statusCode) ?? 0 }
        }
        scheduler.advance(by: 60)

        #expect(status.withLock { $0 } == 201)
        #expect(session.recordedRequests.count == 2)
        #expect(session.recordedRequests[0].httpBodyStream !== session.recordedRequests[1].httpBodyStream)
    }

    struct UploadAlbum: NetworkRequest {
        let title: String
        let photos: [URL]
        var path: String { "/albums" }
        var method: HTTPMethod { .post }
        var body: RequestBody? {
            var form = MultipartFormData()
            form.addField(name: "title", value: title)
            for photo in photos {
                form.addFile(name: "photos[]", contentType: "image/jpeg", fileURL: photo)
            }
            return .multipart(form)
        }
    }

    @Test("when a form's files are small, should encode it in memory; when large, should stream it")
    func multipartFiles() throws {
        let small = try Self.temporaryFile(bytes: 1000)
        let large = try Self.temporaryFile(bytes: 11_000_000)
        defer { for url in [small, large] { try? FileManager.default.removeItem(at: url) } }

        let inMemory = try builder.build(request: UploadAlbum(title: "Holiday", photos: [small]))
        let streamed = try builder.build(request: UploadAlbum(title: "Holiday", photos: [small, large]))

        #expect(inMemory.httpBody.map { String(decoding: $0, as: UTF8.self) }?.contains("filename=\"\(small.lastPathComponent)\"") == true)
        #expect(streamed.httpBody == nil)
        #expect(streamed.httpBodyStream != nil)
        #expect(Int(streamed.value(forHTTPHeaderField: "Content-Length") ?? "") ?? 0 > 11_001_000)
    }

    struct CreateArticle: NetworkRequest {
        let article: [String: String]
        var path: String { "/articles" }
        var method: HTTPMethod { .post }
        var headers: HTTPHeaders { ["Content-Type": "application/vnd.api+json"] }
        var body: RequestBody? { .json(article) }
    }

    @Test("when the request sets Content-Type, should keep it; a default Content-Type should yield to the body's")
    func contentTypeRules() throws {
        struct Form: NetworkRequest {
            var path: String { "/forms" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { .formURLEncoded(["a": "1"]) }
        }
        let jsonByDefault = DefaultRequestBuilder(
            baseURL: sampleBaseURL, defaultHeaders: ["Content-Type": "application/json"])

        let article = try jsonByDefault.build(request: CreateArticle(article: ["title": "Hi"]))
        let form = try jsonByDefault.build(request: Form())

        #expect(article.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
        #expect(form.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test("when a body cannot be encoded, should fail to build instead of sending an empty body")
    func encodingFailure() {
        struct Measurement: NetworkRequest {
            var path: String { "/measurements" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { .json(["value": Double.nan]) }
        }

        do {
            _ = try builder.build(request: Measurement())
            Issue.record("expected a body encoding failure")
        } catch {
            guard case .invalidRequest(.bodyEncodingFailed) = error else {
                Issue.record("expected .bodyEncodingFailed, got \(error)")
                return
            }
        }
    }

    // MARK: - Timeout, cache policy, status codes

    struct ExportArchive: NetworkRequest {
        var path: String { "/exports/archive" }
        var timeout: TimeInterval? { 300 }
        var cachePolicy: URLRequest.CachePolicy? { .reloadIgnoringLocalCacheData }
    }

    @Test("when a request sets a timeout and cache policy, should override the builder's defaults; a bad timeout should fail")
    func timeoutAndCachePolicy() throws {
        struct NoTimeout: NetworkRequest {
            var path: String { "/x" }
            var timeout: TimeInterval? { 0 }
        }

        let archive = try builder.build(request: ExportArchive())
        let plain = try builder.build(request: GetUser(id: 1))

        #expect(archive.timeoutInterval == 300)
        #expect(archive.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(plain.timeoutInterval == 60)
        #expect(plain.cachePolicy == .useProtocolCachePolicy)
        #expect(throws: NetworkError.invalidRequest(.invalidTimeout(0))) { try builder.build(request: NoTimeout()) }
    }

    @Test("when 404 is acceptable, should deliver it as a response, not an error")
    func acceptableStatusCodes() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/users/1"), with: .status(200))
        session.stub(.path("/v2/users/9"), with: .status(404))
        let module = makeSampleModule(session: session)

        let printed = try await Transcript.recording {
            // sample: requests-acceptable-status
            struct UserExists: NetworkRequest {
                let id: Int
                var path: String { "/users/\(id)" }
                var method: HTTPMethod { .head }
                var acceptableStatusCodes: AcceptableStatusCodes { [200, 404] }
            }

            let response = try await module.perform(request: UserExists(id: 9))
            print(response.statusCode == 200 ? "exists" : "no such user")
            // end-sample
            #expect(try await module.perform(request: UserExists(id: 1)).statusCode == 200)
        }

        #expect(printed == ["no such user"])
        #expect(AcceptableStatusCodes(200..<300, 304..<305).contains(304))
    }

    @Test("when a redirect is refused, should deliver the 3xx so that the caller can read Location")
    func refusedRedirect() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/sign-in/start"), with: .status(302, headers: ["Location": "https://id.example.com/a"]))
        session.stub(.path("/a"), with: .status(200))
        let module = makeSampleModule(session: session)

        let printed = try await Transcript.recording {
            // sample: requests-redirect-refuse
            struct StartSignIn: NetworkRequest {
                var path: String { "/sign-in/start" }
                var redirectPolicy: RedirectPolicy? { .refuse }
                var acceptableStatusCodes: AcceptableStatusCodes { [302, 303] }
            }

            let response = try await module.perform(request: StartSignIn())
            print(response.headers["Location"] ?? "no Location")
            // end-sample
        }

        #expect(printed == ["https://id.example.com/a"])
        #expect(session.recordedRequests.count == 1)
    }

    // sample: requests-redirect-decide
    struct DownloadLink: NetworkRequest {
        let path: String
        var redirectPolicy: RedirectPolicy? {
            .decide { response, next, hopNumber in
                print("hop \(hopNumber): \(response.statusCode) to \(next.url?.host ?? "?")")
                return hopNumber <= 3 && next.url?.scheme == "https" ? next : nil
            }
        }
    }
    // end-sample

    @Test("when a policy decides per hop, should see each hop and stop where it says")
    func decidingRedirect() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/files/1"), with: .status(302, headers: ["Location": "https://cdn.example.com/f/1"]))
        session.stub(.path("/f/1"), with: .text("contents"))
        session.stub(.path("/v2/files/2"), with: .status(302, headers: ["Location": "http://cdn.example.com/f/2"]))
        let module = makeSampleModule(session: session)

        let printed = try await Transcript.recording {
            let response = try await module.perform(request: DownloadLink(path: "/files/1"))
            #expect(try response.text() == "contents")
            let error = await #expect(throws: NetworkError.self) {
                try await module.perform(request: DownloadLink(path: "/files/2"))
            }
            #expect(error?.statusCode == 302)
        }

        #expect(printed == ["hop 1: 302 to cdn.example.com", "hop 1: 302 to cdn.example.com"])
        #expect(session.recordedRequests.compactMap(\.url?.path) == ["/v2/files/1", "/f/1", "/v2/files/2"])
    }

    @Test("when a module refuses redirects, should be created with the policy")
    func moduleRedirectPolicy() {
        let module = DefaultNetworkModule(requestBuilder: builder, redirectPolicy: .refuse)

        #expect(module.session is URLSessionTransport)
    }

    @Test("when a raw URLRequest is performed, should skip the builder, run the actions, and accept any 2xx")
    func rawURLRequest() async throws {
        struct Stamp: NetworkModuleAction {
            func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
                urlRequest.setValue("yes", forHTTPHeaderField: "X-Stamped")
            }
        }
        let session = FakeNetworkSession()
        session.stub(.path("/v1/ping"), with: .status(202))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL, defaultHeaders: ["Accept": "application/json"]),
            session: session, actions: [Stamp()], completionExecutor: .immediate)

        // sample: requests-raw-urlrequest
        var urlRequest = URLRequest(url: URL(string: "https://uploads.example.com/v1/ping")!)
        urlRequest.httpMethod = "POST"
        let response = try await module.perform(urlRequest: urlRequest)
        // end-sample

        #expect(response.statusCode == 202)
        let sent = try #require(session.recordedRequests.first)
        #expect(sent.value(forHTTPHeaderField: "Accept") == nil, "default headers belong to the builder")
        #expect(sent.value(forHTTPHeaderField: "X-Stamped") == "yes", "actions still run")
    }
}
