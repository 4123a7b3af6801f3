import Foundation
import NetworkModuleCore
import NetworkModuleTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let apiBaseURL = URL(string: "https://api.example.com/v2")!

/// A request to `path` with optional method, headers and acceptable codes.
struct TestRequest: NetworkRequest {
    var path: String = "/users/1"
    var method: HTTPMethod = .get
    var headers: HTTPHeaders = [:]
    var acceptableStatusCodes: AcceptableStatusCodes = .successful
    var requiresAuthentication = false
}

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

struct APIError: Codable, Equatable, Sendable {
    let code: String
    let message: String
}

/// Collects every result a completion receives, from any thread.
final class ResultCollector<Value: Sendable>: Sendable {
    private let storage = LockedState<[Result<Value, NetworkError>]>([])

    var results: [Result<Value, NetworkError>] { storage.value }
    var count: Int { results.count }

    var single: Result<Value, NetworkError>? {
        let all = results
        return all.count == 1 ? all[0] : nil
    }

    var singleError: NetworkError? {
        if case .failure(let error)? = single { return error }
        return nil
    }

    var singleValue: Value? {
        if case .success(let value)? = single { return value }
        return nil
    }

    var completion: @Sendable (Result<Value, NetworkError>) -> Void {
        { result in self.storage.withLock { $0.append(result) } }
    }
}

extension LockedState {
    /// The state as it is now, read under the lock: test bookkeeping reads it whole.
    var value: State { withLock { $0 } }
}

/// An action that records what it sees and can be told how to behave.
final class ProbeAction: NetworkModuleAction {
    enum PrepareBehaviour: Sendable {
        case passThrough
        case setHeader(String, String)
        case fail(any Error)
        case hold
    }

    struct Log: Sendable {
        var prepared: [Int] = []
        var received: [Result<Int, NetworkError>] = []
        var finished: [Result<Int, NetworkError>] = []
        var retryAsked: [NetworkError] = []
        var heldCompletions: [@Sendable (Result<URLRequest, any Error>) -> Void] = []
        var heldRequests: [URLRequest] = []
    }

    let name: String
    let order: LockedState<[String]>?
    let prepareBehaviour: PrepareBehaviour
    let retryDecisions: LockedState<[RetryDecision]>
    let log = LockedState(Log())

    init(
        name: String = "probe", order: LockedState<[String]>? = nil, prepare: PrepareBehaviour = .passThrough,
        retry: [RetryDecision] = []
    ) {
        self.name = name
        self.order = order
        self.prepareBehaviour = prepare
        self.retryDecisions = LockedState(retry)
    }

    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        _ = order?.withLock { $0.append("prepare \(name)") }
        log.withLock { $0.prepared.append(context.attempt) }
        switch prepareBehaviour {
        case .passThrough:
            completion(.success(urlRequest))
        case .setHeader(let header, let value):
            var request = urlRequest
            request.setValue(value, forHTTPHeaderField: header)
            completion(.success(request))
        case .fail(let error):
            completion(.failure(error))
        case .hold:
            log.withLock {
                $0.heldCompletions.append(completion)
                $0.heldRequests.append(urlRequest)
            }
        }
    }

    func releaseHeld() {
        let (completions, requests) = log.withLock { log in
            defer {
                log.heldCompletions = []
                log.heldRequests = []
            }
            return (log.heldCompletions, log.heldRequests)
        }
        for (completion, request) in zip(completions, requests) { completion(.success(request)) }
    }

    func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        _ = order?.withLock { $0.append("receive \(name)") }
        log.withLock { $0.received.append(result.map(\.statusCode)) }
    }

    func retryDecision(
        for error: NetworkError, context: ActionContext, completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        _ = order?.withLock { $0.append("retry? \(name)") }
        log.withLock { $0.retryAsked.append(error) }
        let decision = retryDecisions.withLock { $0.isEmpty ? .doNotRetry : $0.removeFirst() }
        completion(decision)
    }

    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        _ = order?.withLock { $0.append("finish \(name)") }
        log.withLock { $0.finished.append(result.map(\.statusCode)) }
    }
}

func makeModule(
    session: FakeNetworkSession,
    actions: [any NetworkModuleAction] = [],
    executor: some CompletionExecutor = .immediate,
    scheduler: some DelayScheduler = ManualDelayScheduler()
) -> DefaultNetworkModule {
    DefaultNetworkModule(
        requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL),
        session: session,
        actions: actions,
        completionExecutor: executor,
        delayScheduler: scheduler)
}
