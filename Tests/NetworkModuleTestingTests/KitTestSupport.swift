import Foundation
import NetworkModuleCore
import NetworkModuleTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let kitBaseURL = URL(string: "https://api.example.com")!

/// A `URLRequest` to `path` on ``kitBaseURL``.
func makeURLRequest(
    _ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
) -> URLRequest {
    var request = URLRequest(url: URL(string: path, relativeTo: kitBaseURL)!.absoluteURL)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    return request
}

/// What a session's completion handler received.
struct SessionAnswer: Sendable {
    let data: Data?
    let response: URLResponse?
    let error: (any Error)?

    var statusCode: Int? { (response as? HTTPURLResponse)?.statusCode }
    var text: String? { data.map { String(decoding: $0, as: UTF8.self) } }
    var urlErrorCode: URLError.Code? { (error as? URLError)?.code }
    func header(_ name: String) -> String? { (response as? HTTPURLResponse)?.value(forHTTPHeaderField: name) }
}

/// Every answer a session delivered to one task, from any thread.
final class AnswerLog: Sendable {
    private let answers = LockedState<[SessionAnswer]>([])

    var all: [SessionAnswer] { answers.withLock { $0 } }
    var count: Int { all.count }
    /// The answer, if exactly one was delivered.
    var single: SessionAnswer? {
        let all = all
        return all.count == 1 ? all[0] : nil
    }

    var handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void {
        { data, response, error in
            self.answers.withLock { $0.append(SessionAnswer(data: data, response: response, error: error)) }
        }
    }
}

extension NetworkSession {
    /// Creates and resumes a task for `request`; the log collects what it delivers.
    @discardableResult
    func send(_ request: URLRequest, into log: AnswerLog = AnswerLog()) -> (
        task: any NetworkSessionTask, log: AnswerLog
    ) {
        let task = dataTask(with: request, completionHandler: log.handler)
        task.resume()
        return (task, log)
    }
}

/// Every result a completion received, from any thread.
final class Results<Value: Sendable>: Sendable {
    private let results = LockedState<[Result<Value, NetworkError>]>([])

    var all: [Result<Value, NetworkError>] { results.withLock { $0 } }
    var count: Int { all.count }
    var single: Result<Value, NetworkError>? {
        let all = all
        return all.count == 1 ? all[0] : nil
    }
    var value: Value? { if case .success(let value)? = single { value } else { nil } }
    var error: NetworkError? { if case .failure(let error)? = single { error } else { nil } }
    /// Each result's error, `nil` for a success.
    var errors: [NetworkError?] {
        all.map { result -> NetworkError? in
            if case .failure(let error) = result { return error }
            return nil
        }
    }

    var completion: @Sendable (Result<Value, NetworkError>) -> Void {
        { result in self.results.withLock { $0.append(result) } }
    }
}

/// Messages a hook received, from any thread.
final class Messages: Sendable {
    private let messages = LockedState<[String]>([])

    var all: [String] { messages.withLock { $0 } }
    var hook: @Sendable (String) -> Void {
        { message in self.messages.withLock { $0.append(message) } }
    }
}

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

struct GetUser: NetworkRequest {
    let id: Int
    var path: String { "/users/\(id)" }
}

struct CreateUser: NetworkRequest {
    let name: String
    var path: String { "/users" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { .json(["name": name]) }
}
