import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request's redirects as one chain, through `URLSessionTransport`, whichever task sends each
/// hop (on Linux the transport sends a body a 307 or 308 must repeat itself, in a new task): the
/// fault server's `/hop` records what each hop received (method, body, `Authorization`) and
/// redirects as told; httpbin's `/redirect-to` is the other origin.
@Suite("Integration: redirect chains", .integration)
struct RedirectChainIntegrationTests {
    /// What `/hop-log` answers: how many requests a key's hops had, and what each received.
    struct HopLog: Decodable, Sendable {
        struct Received: Decodable, Sendable {
            let method: String
            let authorization: String?
            let bodyLength: Int
            let body: String

            enum CodingKeys: String, CodingKey {
                case method, authorization, body
                case bodyLength = "body_length"
            }
        }

        let count: Int
        let hops: [Received]
    }

    /// A request of the suite: a `POST` with a body unless told otherwise.
    struct Hop: NetworkRequest {
        var path: String
        var method: HTTPMethod = .post
        var queryItems: [URLQueryItem] = []
        var headers: HTTPHeaders = [:]
        var body: RequestBody? = .formURLEncoded(["user": "ada", "password": "hunter2"])
        var redirectPolicy: RedirectPolicy?
    }

    /// `base` + `path` with `items` as its query, each name and value percent-encoded whole, so
    /// that a URL can be a parameter of another.
    static func url(_ base: URL, _ path: String, _ items: KeyValuePairs<String, String>) -> String {
        let unreserved = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let query = items.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value)"
        }
        return base.absoluteString.trimmingSuffix("/") + path + "?" + query.joined(separator: "&")
    }

    /// What the fault server's hops of `key` received.
    static func log(of key: String) async throws -> HopLog {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        return try await module.performAndDecode(
            request: Endpoint(path: "/hop-log", queryItems: [URLQueryItem(name: "key", value: key)]),
            responseType: HopLog.self)
    }

    /// Performs `request`, cancelled if it has not completed after `seconds`: a bound for a
    /// request that might never end, not a wait.
    static func outcome(
        of request: some NetworkRequest, on module: some NetworkModule, cancelledAfter seconds: Double
    ) async -> Result<NetworkResponse, NetworkError> {
        await withCheckedContinuation { continuation in
            let task = module.perform(request: request) { continuation.resume(returning: $0) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { task.cancel() }
        }
    }

    @Test(
        "when a POST is answered with a status that makes it a GET, then 307 by another origin, should send the GET again, without the body",
        arguments: [301, 302, 303])
    func redirectRepeatsTheRequestItAnswers(firstStatus: Int) async throws {
        let fault = try IntegrationServers.faultServer()
        let key = "get-then-307-\(firstStatus)-\(UUID().uuidString)"
        let last = Self.url(fault, "/hop", ["key": key])
        let otherOrigin = Self.url(
            try IntegrationServers.httpbin(), "/redirect-to", ["url": last, "status_code": "307"])
        let module = IntegrationServers.module(baseURL: fault)

        let response = try await module.perform(
            request: Hop(
                path: "/hop",
                queryItems: [
                    URLQueryItem(name: "key", value: key), URLQueryItem(name: "status", value: "\(firstStatus)"),
                    URLQueryItem(name: "to", value: otherOrigin),
                ]))

        let hops = try await Self.log(of: key).hops
        #expect(response.statusCode == 200)
        #expect(hops.map(\.method) == ["POST", "GET"], "the 307 repeats the GET it answers, not the caller's POST")
        #expect(hops.last?.bodyLength == 0)
        #expect(hops.last?.body.contains("password") == false, "the form reached the 307's target: \(hops)")
    }

    @Test("when a POST is answered 307 by its own URL again and again, should end after 20 hops as a GET loop does")
    func selfRedirectingPostEnds() async throws {
        let fault = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(baseURL: fault)
        let postKey = "post-307-loop-\(UUID().uuidString)"
        let getKey = "get-302-loop-\(UUID().uuidString)"
        func loop(_ key: String, status: Int, method: HTTPMethod) -> Hop {
            Hop(
                path: "/hop", method: method,
                queryItems: [URLQueryItem(name: "key", value: key), URLQueryItem(name: "status", value: "\(status)")],
                body: method == .get ? nil : .data(Data("x".utf8), contentType: "text/plain"))
        }

        let post = await Self.outcome(of: loop(postKey, status: 307, method: .post), on: module, cancelledAfter: 20)
        let get = await Self.outcome(of: loop(getKey, status: 302, method: .get), on: module, cancelledAfter: 20)

        let postLog = try await Self.log(of: postKey)
        let getLog = try await Self.log(of: getKey)
        #expect(get.error?.urlErrorCode == .httpTooManyRedirects)
        #expect(
            post.error?.urlErrorCode == .httpTooManyRedirects,
            "the POST loop ended with \(post), \(postLog.count) requests")
        #expect(postLog.count == getLog.count, "every redirect counts against the one limit, however it is followed")
        #expect(postLog.count == 21, "the request and 20 redirects followed")
        #expect(postLog.hops.allSatisfy { $0.method == "POST" && $0.bodyLength == 1 })
    }

    @Test(
        "when a policy puts Authorization back at each hop after a 307 to another origin, should strip it on every hop there"
    )
    func credentialsStayWithTheCallersOrigin() async throws {
        let fault = try IntegrationServers.faultServer()
        let key = "307-twice-\(UUID().uuidString)"
        let within = Self.url(fault, "/hop", ["key": key])
        let otherOrigin = Self.url(fault, "/hop", ["key": key, "status": "307", "to": within])
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let hopNumbers = LockedState([Int]())
        let policy = RedirectPolicy.decide { _, next, hopNumber in
            hopNumbers.withLock { $0.append(hopNumber) }
            var changed = next
            changed.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
            return changed
        }

        _ = try await module.perform(
            request: Hop(
                path: "/redirect-to",
                queryItems: [
                    URLQueryItem(name: "url", value: otherOrigin), URLQueryItem(name: "status_code", value: "307"),
                ],
                headers: ["Authorization": "Bearer s3cret"], redirectPolicy: policy))

        let hops = try await Self.log(of: key).hops
        #expect(hopNumbers.withLock { $0 } == [1, 2])
        #expect(hops.map(\.method) == ["POST", "POST"])
        #expect(
            hops.map(\.authorization) == [nil, nil], "the caller's origin is httpbin's, whichever task sends a hop")
        #expect(hops.allSatisfy { $0.body == "user=ada&password=hunter2" })
    }

    @Test("when a policy changes the method and the body of a 307, should send what it returned")
    func policyChangesTheMethodAndBody() async throws {
        let fault = try IntegrationServers.faultServer()
        let module = IntegrationServers.module(baseURL: fault)
        let changes: [(method: String, body: Data?)] = [("PUT", Data("changed=1".utf8)), ("GET", nil)]

        for change in changes {
            let key = "307-changed-to-\(change.method)-\(UUID().uuidString)"
            let policy = RedirectPolicy.decide { _, next, _ in
                var changed = next
                changed.httpMethod = change.method
                changed.httpBody = change.body
                return changed
            }

            _ = try await module.perform(
                request: Hop(
                    path: "/hop",
                    queryItems: [
                        URLQueryItem(name: "key", value: key), URLQueryItem(name: "status", value: "307"),
                        URLQueryItem(name: "to", value: Self.url(fault, "/hop", ["key": key])),
                    ],
                    redirectPolicy: policy))

            let hops = try await Self.log(of: key).hops
            #expect(hops.map(\.method) == ["POST", change.method])
            #expect(hops.last?.body == change.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
