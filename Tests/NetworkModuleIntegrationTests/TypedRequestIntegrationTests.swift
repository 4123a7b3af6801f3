import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Typed requests against httpbin: each kind of response over a real connection.
@Suite("Integration: typed requests", .integration)
struct TypedRequestIntegrationTests {
    /// httpbin's echo of a request.
    struct Echo: Decodable, Sendable {
        let args: [String: String]
        let method: String
    }

    struct Anything: TypedRequest {
        typealias Response = Echo
        var path: String { "/anything" }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "q", value: "a+b & c")] }
    }

    struct NoContent: TypedRequest {
        typealias Response = Void
        var path: String { "/status/204" }
    }

    struct Robots: TypedRequest {
        typealias Response = String
        var path: String { "/robots.txt" }
    }

    struct RandomBytes: TypedRequest {
        typealias Response = Data
        var path: String { "/bytes/64" }
    }

    struct Missing: TypedRequest {
        typealias Response = Echo
        var path: String { "/status/404" }
    }

    @Test("when each kind of typed request is sent, should return its typed value")
    func eachKind() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let echo = try await module.send(Anything())
        try await module.send(NoContent())
        let robots = try await module.send(Robots())
        let bytes = try await module.send(RandomBytes())

        #expect(echo.method == "GET")
        #expect(echo.args == ["q": "a+b & c"])
        #expect(robots.contains("Disallow"))
        #expect(bytes.count == 64)
    }

    @Test("when a typed request is performed with a callback, should deliver once on the executor")
    func callback() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let result = await withCheckedContinuation { continuation in
            module.perform(Anything()) { continuation.resume(returning: $0) }
        }

        #expect(try result.get().args == ["q": "a+b & c"])
    }

    @Test("when the server answers an error status, should fail with it instead of decoding")
    func errorStatus() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        var failure: NetworkError?
        do throws(NetworkError) {
            _ = try await module.send(Missing())
        } catch {
            failure = error
        }

        #expect(failure?.statusCode == 404)
        #expect(failure?.kindName == "notFound")
    }
}
