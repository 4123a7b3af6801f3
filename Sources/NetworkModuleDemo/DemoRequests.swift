import Foundation
import NetworkModuleCore

/// `GET /get`: httpbin echoes the query it received in `args`.
struct SearchRequest: NetworkRequest {
    let term: String
    var path: String { "/get" }
    var queryItems: [URLQueryItem] {
        [URLQueryItem(name: "q", value: term), URLQueryItem(name: "fields", value: "name,email")]
    }
}

/// What httpbin's `/get` and `/post` echo back.
struct Echo: Decodable, Sendable {
    let args: [String: String]
    let headers: [String: String]
    let url: String
    let json: NewNote?
}

/// `POST /post` with a JSON body: httpbin echoes the body in `json`.
struct CreateNoteRequest: NetworkRequest {
    let note: NewNote
    var path: String { "/post" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { .json(note) }
}

struct NewNote: Codable, Sendable {
    let title: String
    let tags: [String]
}

/// `GET /status/{code}`: a request that fails with the given status.
struct StatusRequest: NetworkRequest {
    let code: Int
    var path: String { "/status/\(code)" }
}

/// `count` random bytes (httpbin's `/bytes/{n}`, at most 100 kB there).
struct BytesRequest: NetworkRequest {
    let count: Int
    var path: String { "/bytes/\(count)" }
}

/// `GET /delay/{seconds}`: answers after a delay, long enough to cancel it.
struct SlowRequest: NetworkRequest {
    let seconds: Int
    var path: String { "/delay/\(seconds)" }
}

/// The JSON error body our stub backend sends with failures.
struct ServerProblem: Decodable, Sendable {
    let error: String
    let detail: String
}
