import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The servers the integration tests talk to, started by `scripts/test.sh`
/// (`scripts/servers.py`): httpbin, the fault server and an HTTPS server, all on loopback.
///
/// Without `NETWORK_MODULE_HTTPBIN_URL` the integration suites are skipped, with a message
/// saying how to run them, so a plain `swift test` works anywhere. With `CI=true` a missing
/// server fails the run instead: in CI these tests must run.
enum IntegrationServers {
    static let environment = ProcessInfo.processInfo.environment
    static let isCI = environment["CI"] == "true"

    static let httpbinURL = environment["NETWORK_MODULE_HTTPBIN_URL"].flatMap(URL.init(string:))
    static let faultServerURL = environment["NETWORK_MODULE_FAULT_SERVER_URL"].flatMap(URL.init(string:))

    /// Whether the integration suites run: servers configured, or CI (where a missing server
    /// then fails in `httpbin()` / `faultServer()`).
    static let shouldRun = isCI || (httpbinURL != nil && faultServerURL != nil)

    static func httpbin() throws -> URL {
        try #require(httpbinURL, "NETWORK_MODULE_HTTPBIN_URL is not set: run the suite with scripts/test.sh")
    }

    static func faultServer() throws -> URL {
        try #require(faultServerURL, "NETWORK_MODULE_FAULT_SERVER_URL is not set: run the suite with scripts/test.sh")
    }

    /// A transport of its own for each test, so cookies and connections do not leak between tests.
    static func makeSession() -> URLSessionTransport {
        URLSessionTransport(configuration: .ephemeral)
    }

    /// A module on a real `URLSession` against `baseURL`: the framework's transport by default.
    static func module(
        baseURL: URL, session: some NetworkSession = makeSession(), defaultHeaders: HTTPHeaders = [:],
        actions: [any NetworkModuleAction] = [], executor: some CompletionExecutor = .background
    ) -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: baseURL, defaultHeaders: defaultHeaders),
            session: session, actions: actions, completionExecutor: executor)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the suite only when the integration servers are configured (always in CI).
    static var integration: Self {
        .enabled(
            if: IntegrationServers.shouldRun,
            "integration servers not configured: run scripts/test.sh, or set NETWORK_MODULE_HTTPBIN_URL and NETWORK_MODULE_FAULT_SERVER_URL"
        )
    }
}

/// A request described inline, for tests that try many shapes.
struct Endpoint: NetworkRequest {
    var path: String
    var method: HTTPMethod = .get
    var queryItems: [URLQueryItem] = []
    var headers: HTTPHeaders = [:]
    var body: RequestBody? = nil
    var timeout: TimeInterval? = nil
    var cachePolicy: URLRequest.CachePolicy? = nil
    var acceptableStatusCodes: AcceptableStatusCodes = .successful
}

/// What httpbin echoes back from `/get`, `/post`, `/anything` and friends.
struct HTTPBinEcho: Decodable, Sendable {
    let args: [String: String]?
    let form: [String: String]?
    let files: [String: String]?
    let data: String?
    let headers: [String: String]
    let method: String?
    let url: String?
}

extension NetworkModule {
    /// Performs `request` through the callback API and waits for its single result.
    func outcome(of request: any NetworkRequest) async -> Result<NetworkResponse, NetworkError> {
        await withCheckedContinuation { continuation in
            perform(request: request) { continuation.resume(returning: $0) }
        }
    }

    /// Performs `request` and reports the seconds from the call to the delivery of its result.
    ///
    /// The clock stops in the completion, on the completion executor's thread, not when the
    /// awaiting test resumes: on a two-core machine the other tests in the process can keep
    /// Swift concurrency's cooperative threads busy for seconds, and that wait is not the
    /// framework's.
    func timedOutcome(of request: any NetworkRequest) async -> (
        result: Result<NetworkResponse, NetworkError>, seconds: TimeInterval
    ) {
        await withCheckedContinuation { continuation in
            let start = Date()
            perform(request: request) { continuation.resume(returning: ($0, Date().timeIntervalSince(start))) }
        }
    }
}

extension Result where Failure == NetworkError {
    var error: NetworkError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A loopback port with nothing listening on it: bound, then closed.
func closedLoopbackPort() throws -> Int {
    #if os(Linux)
        let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        let streamType = SOCK_STREAM
    #endif
    let socketFD = socket(AF_INET, streamType, 0)
    try #require(socketFD >= 0)
    defer { close(socketFD) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    try #require(bound == 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
    }
    try #require(named == 0)
    return Int(UInt16(bigEndian: address.sin_port))
}
