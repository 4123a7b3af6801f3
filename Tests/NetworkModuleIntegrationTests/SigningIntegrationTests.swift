import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Request signing against httpbin, which echoes the query and headers it received.
@Suite("Integration: request signing", .integration)
struct SigningIntegrationTests {
    struct Echo: Decodable, Sendable {
        let args: [String: String]
        let headers: [String: String]
    }

    struct Anything: TypedRequest {
        typealias Response = Echo
        var path: String { "/anything/characters" }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "name", value: "Spider-Man & co")] }
    }

    @Test("when signed with query items and a header, should reach the server with each of them")
    func signatureArrives() async throws {
        let signing = BuiltInAction.signing(secrets: ["hash"]) { request in
            let ts = String(Int(Date(timeIntervalSince1970: 1_700_000_000).timeIntervalSince1970))
            return RequestSignature(
                queryItems: [
                    URLQueryItem(name: "ts", value: ts), URLQueryItem(name: "apikey", value: "pub"),
                    URLQueryItem(name: "hash", value: "\(ts)+priv+pub"),
                ],
                headers: ["X-Signed-Method": request.httpMethod ?? "GET"])
        }
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), actions: [signing])

        let echo = try await module.send(Anything())

        #expect(
            echo.args == [
                "name": "Spider-Man & co", "ts": "1700000000", "apikey": "pub", "hash": "1700000000+priv+pub",
            ])
        #expect(echo.headers["X-Signed-Method"] == "GET")
    }
}
