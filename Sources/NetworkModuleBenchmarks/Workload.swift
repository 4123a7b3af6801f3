import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request every benchmark sends, described for the module and built by hand for the
/// baseline, so both sides do the same work.
struct UserRequest: NetworkRequest {
    var path: String { "/users/42.json" }
    var queryItems: [URLQueryItem] { [URLQueryItem(name: "fields", value: "name,email")] }
    var requiresAuthentication: Bool { true }
}

/// Any path, for `--profile`.
struct PathRequest: NetworkRequest {
    let path: String
}

/// The 1 MB file of the download case.
struct LargeFileRequest: NetworkRequest {
    var path: String { "/large.bin" }
}

/// The JSON body nginx serves (benchmarks/nginx/users/42.json), decoded by the decoding cases.
struct BenchmarkUser: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
    let roles: [String]
    let profile: Profile

    struct Profile: Decodable, Sendable {
        let city: String
        let country: String
        let bio: String
    }
}

enum Workload {
    /// The folder nginx serves (benchmarks/nginx in the repository).
    static let documentRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("benchmarks/nginx")

    /// benchmarks/nginx/users/42.json, the body the pipeline mode answers with.
    static func userJSON() throws -> Data {
        try Data(contentsOf: documentRoot.appendingPathComponent("users/42.json"))
    }

    /// Builds the request by hand, as code without the framework would.
    @inline(never)
    static func handBuiltRequest(baseURL: String) -> URLRequest {
        var request = URLRequest(url: URL(string: baseURL + "/users/42.json?fields=name%2Cemail")!)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return request
    }
}
