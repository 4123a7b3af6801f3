import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A token provider whose every call waits until the test answers it, in any order.
final class ManualTokenProvider: AccessTokenProvider {
    typealias Completion = @Sendable (Result<String, any Error>) -> Void

    struct Call: Sendable {
        let isRefresh: Bool
        let completion: Completion
    }

    private let calls = LockedState<[Call]>([])

    var callCount: Int { calls.withLock { $0.count } }

    func currentToken(completion: @escaping Completion) {
        calls.withLock { $0.append(Call(isRefresh: false, completion: completion)) }
    }

    func refreshToken(completion: @escaping Completion) {
        calls.withLock { $0.append(Call(isRefresh: true, completion: completion)) }
    }

    /// Whether call `index` (0 for the first) was a refresh.
    func isRefresh(_ index: Int) -> Bool? {
        calls.withLock { index < $0.count ? $0[index].isRefresh : nil }
    }

    /// Answers call `index` (0 for the first) with `result`.
    func answer(_ index: Int, with result: Result<String, any Error>) {
        let completion = calls.withLock { index < $0.count ? $0[index].completion : nil }
        completion?(result)
    }
}

@Suite("Authentication action: reset and per-request records")
struct AuthenticationResetTests {
    // MARK: - The race, end to end

    @Test("when the token is reset while the current token is being fetched, should drop that token and ask again")
    func resetDuringCurrentTokenFetch() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let tokens = ManualTokenProvider()
        let action = AuthenticationAction.authentication(tokens)
        let module = makeModule(session: session, actions: [action])
        let results = ResultCollector<NetworkResponse>()
        module.perform(request: AuthenticatedRequest(), completion: results.completion)  // asks: call 0

        action.resetToken()  // sign-out and in while call 0 runs
        let callsBeforeTheLateAnswer = tokens.callCount
        tokens.answer(0, with: .success("old-user"))  // the late answer, for the previous user
        tokens.answer(1, with: .success("new-user"))
        module.perform(request: AuthenticatedRequest(), completion: results.completion)

        #expect(callsBeforeTheLateAnswer == 1, "never two calls to the provider at once")
        #expect(tokens.callCount == 2, "the dropped answer is followed by a new call for the waiting request")
        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer new-user", "Bearer new-user",
            ])
        #expect(results.count == 2)
    }

    @Test("when the token is reset while a refresh runs, should drop the refreshed token and ask for the current one")
    func resetDuringRefresh() {
        let session = FakeNetworkSession()
        session.stub(.any, respond: acceptingOnly("Bearer new-user"))
        let tokens = ManualTokenProvider()
        let action = AuthenticationAction.authentication(tokens)
        let module = makeModule(session: session, actions: [action])
        let results = ResultCollector<NetworkResponse>()
        module.perform(request: AuthenticatedRequest(), completion: results.completion)
        tokens.answer(0, with: .success("old-user"))  // sent, 401: refresh is call 1, the retry waits

        action.resetToken()
        tokens.answer(1, with: .success("old-user-refreshed"))  // late: dropped
        tokens.answer(2, with: .success("new-user"))

        #expect(tokens.isRefresh(1) == true)
        #expect(tokens.isRefresh(2) == false, "after a reset the current token is asked for, not a refresh")
        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer old-user", "Bearer new-user",
            ])
        #expect(results.results.map { try? $0.get().statusCode } == [200])
    }

    @Test("when the token is reset and nobody signs in, the waiting requests should fail with the provider's error")
    func resetThenSignedOut() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let tokens = ManualTokenProvider()
        let action = AuthenticationAction.authentication(tokens)
        let module = makeModule(session: session, actions: [action])
        let results = ResultCollector<NetworkResponse>()
        module.perform(request: AuthenticatedRequest(), completion: results.completion)

        action.resetToken()
        tokens.answer(0, with: .success("old-user"))
        tokens.answer(1, with: .failure(NetworkError.unauthorized(HTTPErrorResponse(statusCode: 401))))

        #expect(session.recordedRequests.isEmpty, "nothing is sent with the previous user's token")
        #expect(results.singleError?.statusCode == 401)
    }

    // MARK: - Transitions, no threads

    static let first = UUID()
    static let second = UUID()
    static let ignore: AuthenticationAction.Waiter = { _ in }

    /// The waiters of a delivery, or `nil` when it is not a delivery.
    static func delivered(_ delivery: AuthenticationAction.Delivery) -> [AuthenticationAction.Waiter]? {
        if case .deliver(let waiters, _) = delivery { return waiters }
        return nil
    }

    static func isDropped(_ delivery: AuthenticationAction.Delivery) -> Bool {
        if case .drop = delivery { return true }
        return false
    }

    @Test("when reset with no request to the provider running, should forget the token and stay idle")
    func resetWhenIdle() {
        var state = AuthenticationAction.State()
        state.credential = AuthenticationAction.Credential(token: "t", generation: 1)

        state.reset()

        #expect(state.credential == nil)
        guard case .idle = state.phase else {
            Issue.record("expected idle, got \(state.phase)")
            return
        }
    }

    @Test("when reset while a fetch has waiters, should drop its answer and ask again for them, one call at a time")
    func resetWhileFetching() {
        var state = AuthenticationAction.State()
        guard case .fetch(let oldID) = state.prepare(requestID: Self.first, waiter: Self.ignore) else {
            Issue.record("the first preparation should fetch")
            return
        }

        state.reset()
        let joined = state.prepare(requestID: Self.second, waiter: Self.ignore)
        let oldAnswer = state.finishObtaining(id: oldID, .success("old"))

        guard case .wait = joined else {
            Issue.record("a request starting after the reset should wait, not start a second call")
            return
        }
        guard case .askAgain(let newID) = oldAnswer else {
            Issue.record("the invalidated answer should be dropped and the token asked for again, got \(oldAnswer)")
            return
        }
        #expect(newID == oldID + 1)
        #expect(state.credential == nil, "the old answer is not installed")
        #expect(Self.delivered(state.finishObtaining(id: newID, .success("new")))?.count == 2)
        #expect(state.credential?.token == "new")
    }

    @Test("when reset while a retry's refresh runs, should drop the refreshed token and ask again for the retry")
    func resetWhileRefreshingForRetry() {
        var state = AuthenticationAction.State()
        _ = state.prepare(requestID: Self.first, waiter: Self.ignore)
        _ = state.finishObtaining(id: 1, .success("old"))
        state.didApply(AuthenticationAction.Credential(token: "old", generation: 1), requestID: Self.first)
        #expect(state.retry(requestID: Self.first, retryAfterRefresh: Self.ignore) == .refreshThenRetry(id: 2))

        state.reset()

        guard case .askAgain(let id) = state.finishObtaining(id: 2, .success("old-refreshed")) else {
            Issue.record("the retry waiting for the refresh should get the current token instead")
            return
        }
        #expect(id == 3)
        #expect(state.credential == nil)
        #expect(Self.delivered(state.finishObtaining(id: 3, .success("new")))?.count == 1)
        #expect(state.credential?.token == "new")
    }

    @Test("when the provider answers twice, should drop the second answer")
    func answerTwice() {
        var state = AuthenticationAction.State()
        _ = state.prepare(requestID: Self.first, waiter: Self.ignore)

        let firstAnswer = state.finishObtaining(id: 1, .success("a"))
        let secondAnswer = state.finishObtaining(id: 1, .success("b"))

        #expect(Self.delivered(firstAnswer)?.count == 1)
        #expect(Self.isDropped(secondAnswer))
        #expect(state.credential == AuthenticationAction.Credential(token: "a", generation: 1))
    }

    @Test("when a step runs for a request that already finished, should not record it again")
    func noRecordAfterFinish() {
        var state = AuthenticationAction.State()
        _ = state.prepare(requestID: Self.first, waiter: Self.ignore)
        _ = state.finishObtaining(id: 1, .success("t"))
        state.finish(requestID: Self.first)

        state.didApply(AuthenticationAction.Credential(token: "t", generation: 1), requestID: Self.first)
        let step = state.retry(requestID: Self.first, retryAfterRefresh: Self.ignore)

        #expect(step == .doNotRetry)
        #expect(state.requests.isEmpty)
    }

    @Test("when a second request prepares while a fetch runs, should wait for it rather than fetch again")
    func secondPreparationWaits() {
        var state = AuthenticationAction.State()
        _ = state.prepare(requestID: Self.first, waiter: Self.ignore)

        let next = state.prepare(requestID: Self.second, waiter: Self.ignore)

        guard case .wait = next else {
            Issue.record("expected .wait, got \(next)")
            return
        }
        #expect(state.prepareAtOnce(requestID: Self.second) == nil, "no token is applied while a fetch runs")
    }

    // MARK: - Per-request records

    @Test("when many requests finish (succeeded, refreshed, failed, cancelled while waiting), should hold no record")
    func recordsAreEmptyAfterRequestsFinish() {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/me"), respond: acceptingOnly("Bearer fresh"))
        session.stub(.any, with: .status(500))
        let tokens = FakeTokenProvider(current: .success("stale"))
        let action = AuthenticationAction.authentication(tokens)
        let module = makeModule(session: session, actions: [action])
        let results = ResultCollector<NetworkResponse>()

        for index in 0..<40 {
            let path = index % 2 == 0 ? "/me" : "/broken"
            module.perform(request: AuthenticatedRequest(path: path), completion: results.completion)
        }
        let held = ManualTokenProvider()
        let waitingAction = AuthenticationAction.authentication(held)
        let waitingModule = makeModule(session: session, actions: [waitingAction])
        for _ in 0..<10 {
            waitingModule.perform(request: AuthenticatedRequest(), completion: results.completion).cancel()
        }
        held.answer(0, with: .success("late"))

        #expect(results.count == 50)
        #expect(action.recordedRequestCount == 0)
        #expect(waitingAction.recordedRequestCount == 0)
    }
}
