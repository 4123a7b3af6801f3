import Foundation
import NetworkModuleCore
import NetworkModuleTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An in-process backend that answers the tour's requests the way httpbin would, built from
/// the testing kit's fake session, so the tour runs offline.
enum StubBackend {
    static func makeSession() -> FakeNetworkSession {
        let session = FakeNetworkSession()
        session.stub(.method(.get) && .path("/get")) { request in
            .json(echo(of: request, json: nil))
        }
        session.stub(.method(.post) && .path("/post")) { request in
            let note = request.httpBody.flatMap { try? JSONDecoder().decode(NewNote.self, from: $0) }
            return .json(echo(of: request, json: note))
        }
        session.stub(.pathPattern("/status/[0-9]+")) { request in
            let code = Int(request.url?.lastPathComponent ?? "") ?? 500
            return .json(
                Problem(error: "status \(code)", detail: "The stub backend answers /status/\(code) with \(code)."),
                status: code)
        }
        session.stub(.pathPattern("/delay/[0-9]+")) { request in
            let seconds = Double(request.url?.lastPathComponent ?? "") ?? 1
            return .json(echo(of: request, json: nil)).delayed(by: seconds)
        }
        session.stub(.pathPattern("/bytes/[0-9]+")) { request in
            let count = min(Int(request.url?.lastPathComponent ?? "") ?? 0, 100 * 1024)
            let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            return .status(200, headers: ["Content-Type": "application/octet-stream"], body: bytes)
        }
        return session
    }

    private struct Problem: Encodable, Sendable {
        let error: String
        let detail: String
    }

    private struct EchoBody: Encodable, Sendable {
        let args: [String: String]
        let headers: [String: String]
        let url: String
        let json: NewNote?
    }

    private static func echo(of request: URLRequest, json: NewNote?) -> EchoBody {
        let items = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.queryItems } ?? []
        return EchoBody(
            args: Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last }),
            headers: request.allHTTPHeaderFields ?? [:],
            url: request.url?.absoluteString ?? "",
            json: json)
    }
}
