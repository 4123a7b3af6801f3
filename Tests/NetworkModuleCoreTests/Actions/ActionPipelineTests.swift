import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Action pipeline")
struct ActionPipelineTests {
    private static func request(fields: [String: String]? = nil) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/a")))
        request.allHTTPHeaderFields = fields
        return request
    }

    private static func prepare(
        _ preparer: ActionPipeline, from index: Int, contexts: LockedState<Int>, fields: [String: String]? = nil
    ) throws -> RequestStateMachine.PreparationOutcome {
        preparer.prepare(
            try request(fields: fields), from: index,
            context: {
                contexts.withLock { $0 += 1 }
                return ActionContext(networkRequest: nil)
            },
            onPrepared: { _, _ in })
    }

    @Test("when header actions prepare, should set their fields and make the attempt's context once")
    func headerActionsShareOneContext() throws {
        let actions: [any NetworkModuleAction] = [.headers(["X-One": "1"]), .headers(["X-Two": "2"])]
        let preparer = ActionPipeline(actions: actions, delayScheduler: ManualDelayScheduler())
        let contexts = LockedState(0)

        let outcome = try Self.prepare(preparer, from: 0, contexts: contexts)

        guard case .prepared(let prepared) = outcome else {
            Issue.record("expected .prepared, got \(outcome)")
            return
        }
        #expect(prepared.value(forHTTPHeaderField: "X-One") == "1")
        #expect(prepared.value(forHTTPHeaderField: "X-Two") == "2")
        #expect(contexts.withLock { $0 } == 1)
    }

    @Test("when no action is left from the index, should change nothing and make no context")
    func nothingToPrepare() throws {
        let actions: [any NetworkModuleAction] = [.headers(["X-One": "1"]), .metrics { _ in }]
        let preparer = ActionPipeline(actions: actions, delayScheduler: ManualDelayScheduler())
        let contexts = LockedState(0)

        let outcome = try Self.prepare(preparer, from: 2, contexts: contexts)

        guard case .prepared(let prepared) = outcome else {
            Issue.record("expected .prepared, got \(outcome)")
            return
        }
        #expect(prepared.value(forHTTPHeaderField: "X-One") == nil)
        #expect(contexts.withLock { $0 } == 0)
    }

    @Test("when a built-in action that changes no request comes next, should call its prepare as any action's")
    func builtInActionsAreNotSkipped() throws {
        let actions: [any NetworkModuleAction] = [.headers(["X-One": "1"]), .metrics { _ in }]
        let preparer = ActionPipeline(actions: actions, delayScheduler: ManualDelayScheduler())
        let prepared = LockedState<[Int]>([])

        let outcome = preparer.prepare(
            try Self.request(), from: 0, context: { ActionContext(networkRequest: nil) },
            onPrepared: { index, _ in prepared.withLock { $0.append(index) } })

        guard case .waiting(forAction: 1) = outcome else {
            Issue.record("expected to wait for action 1, got \(outcome)")
            return
        }
        #expect(prepared.withLock { $0 } == [1], "the metrics action's prepare completed")
    }

    @Test("when header actions change nothing, should leave the request's own fields as they were")
    func unchangedFieldsStay() throws {
        let actions: [any NetworkModuleAction] = [.headers(["Accept": "text/plain"])]
        let preparer = ActionPipeline(actions: actions, delayScheduler: ManualDelayScheduler())

        let outcome = try Self.prepare(
            preparer, from: 0, contexts: LockedState(0), fields: ["accept": "application/json", "X-Own": "1"])

        guard case .prepared(let prepared) = outcome else {
            Issue.record("expected .prepared, got \(outcome)")
            return
        }
        #expect(prepared.allHTTPHeaderFields == ["accept": "application/json", "X-Own": "1"])
    }

    @Test("when a request without fields goes through header actions that set none, should still have no fields")
    func noFieldsStayNone() throws {
        let actions: [any NetworkModuleAction] = [.headers([:])]
        let preparer = ActionPipeline(actions: actions, delayScheduler: ManualDelayScheduler())

        let outcome = try Self.prepare(preparer, from: 0, contexts: LockedState(0))

        guard case .prepared(let prepared) = outcome else {
            Issue.record("expected .prepared, got \(outcome)")
            return
        }
        #expect(prepared.allHTTPHeaderFields == nil)
    }

    @Test(
        "when an action with its own prepare follows header actions, should hand it every field, the request's own too")
    func generalActionSeesAllFields() throws {
        let seen = LockedState<[String: String]?>(nil)
        let actions: [any NetworkModuleAction] = [
            .headers(["X-One": "1"]), FieldRecordingAction(seen: seen), .headers(["X-Two": "2"]),
        ]
        let preparer = ActionPipeline(actions: actions, delayScheduler: ManualDelayScheduler())

        let outcome = try Self.prepare(preparer, from: 0, contexts: LockedState(0), fields: ["X-Own": "0"])

        guard case .waiting(forAction: 1) = outcome else {
            Issue.record("expected to wait for action 1, got \(outcome)")
            return
        }
        #expect(seen.withLock { $0 } == ["X-Own": "0", "X-One": "1"])
    }

    /// Prepares later, when the test says.
    final class LaterAction: NetworkModuleAction {
        let waiting = LockedState<[@Sendable () -> Void]>([])

        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {
            waiting.withLock { $0.append { completion(.success(urlRequest)) } }
        }

        func release() { for finish in waiting.withLock({ $0 }) { finish() } }
    }

    @Test(
        "when an action never completes a whole preparation, should end once with .timedOut at the request's timeout, and ignore a late completion"
    )
    func wholePreparationTimesOut() throws {
        let clock = ManualDelayScheduler()
        let later = LaterAction()
        let pipeline = ActionPipeline(actions: [later, .headers(["X-After": "1"])], delayScheduler: clock)
        var request = try Self.request()
        request.timeoutInterval = 3
        let ends = LockedState<[Result<URLRequest, NetworkError>]>([])

        pipeline.preparation(
            of: request, context: { ActionContext(networkRequest: nil) },
            completion: { result in ends.withLock { $0.append(result) } }
        ).start()
        clock.advance(by: 2.9)
        let before = ends.value.count
        clock.advance(by: 0.1)
        later.release()
        clock.runAll()

        #expect(before == 0)
        #expect(ends.value.count == 1)
        #expect(ends.value.first?.error == .timedOut)
    }

    @Test("when every action prepares in time, should end once with the prepared request and cancel the deadline")
    func wholePreparationInTime() throws {
        let clock = ManualDelayScheduler()
        let later = LaterAction()
        let pipeline = ActionPipeline(actions: [later, .headers(["X-After": "1"])], delayScheduler: clock)
        let ends = LockedState<[Result<URLRequest, NetworkError>]>([])

        pipeline.preparation(
            of: try Self.request(), context: { ActionContext(networkRequest: nil) },
            completion: { result in ends.withLock { $0.append(result) } }
        ).start()
        let pendingWhileWaiting = clock.pendingCount
        later.release()
        clock.runAll()

        #expect(pendingWhileWaiting == 1)
        #expect(clock.pendingCount == 0)
        #expect(ends.value.count == 1)
        #expect((try? ends.value.first?.get())?.value(forHTTPHeaderField: "X-After") == "1")
    }

    @Test(
        "when a preparation is cancelled while an action prepares later, should end once with .cancelled, cancel the deadline and ignore the late completion"
    )
    func wholePreparationCancelledWhileWaiting() throws {
        let clock = ManualDelayScheduler()
        let later = LaterAction()
        let pipeline = ActionPipeline(actions: [later, .headers(["X-After": "1"])], delayScheduler: clock)
        let ends = LockedState<[Result<URLRequest, NetworkError>]>([])
        let preparation = pipeline.preparation(
            of: try Self.request(), context: { ActionContext(networkRequest: nil) },
            completion: { result in ends.withLock { $0.append(result) } })

        preparation.start()
        let pendingWhileWaiting = clock.pendingCount
        preparation.handle.cancel()
        let pendingAfterCancel = clock.pendingCount
        later.release()
        preparation.handle.cancel()
        clock.runAll()

        #expect(pendingWhileWaiting == 1)
        #expect(pendingAfterCancel == 0)
        #expect(ends.value.count == 1)
        #expect(ends.value.first?.error == .cancelled)
    }

    @Test("when a preparation is cancelled before it starts, should end once with .cancelled and call no action")
    func wholePreparationCancelledBeforeStart() throws {
        let seen = LockedState<[String: String]?>(nil)
        let pipeline = ActionPipeline(
            actions: [FieldRecordingAction(seen: seen)], delayScheduler: ManualDelayScheduler())
        let ends = LockedState<[Result<URLRequest, NetworkError>]>([])
        let preparation = pipeline.preparation(
            of: try Self.request(), context: { ActionContext(networkRequest: nil) },
            completion: { result in ends.withLock { $0.append(result) } })

        preparation.handle.cancel()
        preparation.start()

        #expect(seen.value == nil)
        #expect(ends.value.count == 1)
        #expect(ends.value.first?.error == .cancelled)
    }
}

/// Records the header fields of the request it prepares, and completes with it.
private struct FieldRecordingAction: NetworkModuleAction {
    let seen: LockedState<[String: String]?>

    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        seen.withLock { $0 = urlRequest.allHTTPHeaderFields }
        completion(.success(urlRequest))
    }
}
