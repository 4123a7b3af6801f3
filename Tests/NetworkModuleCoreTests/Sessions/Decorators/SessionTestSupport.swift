import Foundation
import NetworkModuleCore
import NetworkModuleTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `GET` (or `method`) request for `path` on the test API, with optional headers, body,
/// timeout and cache policy.
func sessionRequest(
    _ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
    timeout: TimeInterval = 60, cachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy
) -> URLRequest {
    var request = URLRequest(
        url: apiBaseURL.appendingPathComponent(path), cachePolicy: cachePolicy, timeoutInterval: timeout)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    return request
}

/// A fake whose answers to a path say which call of that path they are (`/v2/a#1`, `/v2/a#2`),
/// with `status` and `headers`: by default fresh for 60 seconds, so that a cache keeps them; held
/// until the test releases them when `holdingResponses`.
func countingFake(
    headers: HTTPHeaders = ["Cache-Control": "max-age=60"], status: Int = 200, holdingResponses: Bool = false
) -> FakeNetworkSession {
    let fake = FakeNetworkSession(holdingResponses: holdingResponses)
    let counts = LockedState([String: Int]())
    fake.stub(.any) { request in
        let path = request.url?.path ?? ""
        let count = counts.withLock { counts -> Int in
            counts[path, default: 0] += 1
            return counts[path, default: 0]
        }
        return .text("\(path)#\(count)", status: status, headers: headers)
    }
    return fake
}

/// Everything the completion handler of one session task received, each time it was called.
final class SessionOutcomes: Sendable {
    struct Outcome: Sendable {
        let body: String?
        let status: Int?
        let errorCode: URLError.Code?
        let headers: HTTPHeaders
    }

    private let storage = LockedState<[Outcome]>([])

    /// Every call, in order.
    var all: [Outcome] { storage.value }
    /// How many times the handler ran.
    var count: Int { all.count }
    /// The only outcome, or `nil` if the handler ran zero times or more than once.
    var single: Outcome? {
        let all = all
        return all.count == 1 ? all[0] : nil
    }

    /// The completion handler to give the session.
    var handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void {
        { data, response, error in
            let http = response as? HTTPURLResponse
            let outcome = Outcome(
                body: data.map { String(decoding: $0, as: UTF8.self) }, status: http?.statusCode,
                errorCode: (error as? URLError)?.code, headers: HTTPHeaders(http?.allHeaderFields ?? [:]))
            self.storage.withLock { $0.append(outcome) }
        }
    }
}

extension NetworkSession {
    /// Creates and resumes a task for `request`; returns the task and what it reports.
    @discardableResult
    func start(_ request: URLRequest) -> (task: any NetworkSessionTask, outcomes: SessionOutcomes) {
        let outcomes = SessionOutcomes()
        let task = dataTask(with: request, completionHandler: outcomes.handler)
        task.resume()
        return (task, outcomes)
    }
}
