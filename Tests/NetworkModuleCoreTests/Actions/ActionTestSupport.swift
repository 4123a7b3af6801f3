import Foundation
import NetworkModuleCore
import NetworkModuleTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A token provider that counts its calls, answers from a script, and can hold its answers
/// until the test releases them.
final class FakeTokenProvider: AccessTokenProvider {
    typealias Completion = @Sendable (Result<String, any Error>) -> Void

    struct Log: Sendable {
        var currentCalls = 0
        var refreshCalls = 0
        var heldCurrent: [Completion] = []
        var heldRefresh: [Completion] = []
        var refreshAnswers: [Result<String, any Error>]
    }

    let current: Result<String, any Error>
    let holdsCurrent: Bool
    let holdsRefresh: Bool
    let log: LockedState<Log>

    /// - Parameters:
    ///   - current: what `currentToken` answers.
    ///   - refreshed: what successive refreshes answer; the last one repeats.
    init(
        current: Result<String, any Error> = .success("stale"),
        refreshed: [Result<String, any Error>] = [.success("fresh")],
        holdsCurrent: Bool = false, holdsRefresh: Bool = false
    ) {
        self.current = current
        self.holdsCurrent = holdsCurrent
        self.holdsRefresh = holdsRefresh
        self.log = LockedState(Log(refreshAnswers: refreshed))
    }

    var currentCalls: Int { log.value.currentCalls }
    var refreshCalls: Int { log.value.refreshCalls }

    func currentToken(completion: @escaping Completion) {
        let hold = log.withLock { log -> Bool in
            log.currentCalls += 1
            if holdsCurrent { log.heldCurrent.append(completion) }
            return holdsCurrent
        }
        if !hold { completion(current) }
    }

    func refreshToken(completion: @escaping Completion) {
        let answer = log.withLock { log -> Result<String, any Error>? in
            log.refreshCalls += 1
            if holdsRefresh {
                log.heldRefresh.append(completion)
                return nil
            }
            return log.refreshAnswers.count > 1 ? log.refreshAnswers.removeFirst() : log.refreshAnswers[0]
        }
        if let answer { completion(answer) }
    }

    /// Answers the held refreshes with the next scripted answer.
    func releaseRefresh() {
        let (held, answer) = log.withLock { log in
            defer { log.heldRefresh = [] }
            return (
                log.heldRefresh, log.refreshAnswers.count > 1 ? log.refreshAnswers.removeFirst() : log.refreshAnswers[0]
            )
        }
        for completion in held { completion(answer) }
    }

    /// Answers the held `currentToken` calls.
    func releaseCurrent() {
        let held = log.withLock { log in
            defer { log.heldCurrent = [] }
            return log.heldCurrent
        }
        for completion in held { completion(current) }
    }
}

/// A session answer that accepts only `Authorization: <accepted>`, and 401 otherwise.
func acceptingOnly(_ accepted: String) -> @Sendable (URLRequest) -> StubbedResponse {
    { request in request.value(forHTTPHeaderField: "Authorization") == accepted ? .status(200) : .status(401) }
}

/// Entries written by a logging action.
final class LogEntries: Sendable {
    private let storage = LockedState<[String]>([])

    var entries: [String] { storage.value }
    var text: String { entries.joined(separator: "\n") }

    var sink: @Sendable (String) -> Void {
        { entry in self.storage.withLock { $0.append(entry) } }
    }
}

/// A request requiring authentication.
struct AuthenticatedRequest: NetworkRequest {
    var path = "/me"
    var requiresAuthentication: Bool { true }
}

struct SignedOut: Error, Equatable {}

extension Result where Failure == NetworkError {
    /// The error of a failure; `nil` for a success.
    var error: NetworkError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
