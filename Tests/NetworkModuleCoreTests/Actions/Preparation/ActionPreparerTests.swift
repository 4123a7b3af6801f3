import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Action preparer")
struct ActionPreparerTests {
    private static func request() throws -> URLRequest {
        URLRequest(url: try #require(URL(string: "https://api.example.com/a")))
    }

    private static func prepare(
        _ preparer: ActionPreparer, from index: Int, contexts: LockedState<Int>
    ) throws -> RequestStateMachine.PreparationOutcome {
        preparer.prepare(
            try request(), from: index,
            context: {
                contexts.withLock { $0 += 1 }
                return ActionContext(networkRequest: nil)
            },
            onPrepared: { _, _ in })
    }

    @Test("when header actions prepare, should set their fields and make the attempt's context once")
    func headerActionsShareOneContext() throws {
        let actions: [any NetworkModuleAction] = [
            .headers(["X-One": "1"]), .metrics { _ in }, .headers(["X-Two": "2"]),
        ]
        let preparer = ActionPreparer(preparations: actions.map(ActionPreparation.init))
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

    @Test("when no action from the index on prepares, should change nothing and make no context")
    func nothingToPrepare() throws {
        let actions: [any NetworkModuleAction] = [.headers(["X-One": "1"]), .metrics { _ in }]
        let preparer = ActionPreparer(preparations: actions.map(ActionPreparation.init))
        let contexts = LockedState(0)

        for index in [1, 2] {
            let outcome = try Self.prepare(preparer, from: index, contexts: contexts)
            guard case .prepared(let prepared) = outcome else {
                Issue.record("from \(index): expected .prepared, got \(outcome)")
                continue
            }
            #expect(prepared.value(forHTTPHeaderField: "X-One") == nil, "from \(index)")
        }
        #expect(contexts.withLock { $0 } == 0)
    }
}
