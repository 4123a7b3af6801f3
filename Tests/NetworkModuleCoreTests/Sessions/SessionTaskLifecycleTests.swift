import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every (state, event) pair of the life every session task shares, with no session or thread:
/// the table in ``SessionTaskLifecycle``'s documentation, as tests.
@Suite("Session task lifecycle")
struct SessionTaskLifecycleTests {
    typealias Lifecycle = SessionTaskLifecycle<Int>

    enum State: String, CaseIterable, CustomTestStringConvertible {
        case created, resumed, running, finished

        var testDescription: String { rawValue }

        /// A lifecycle in this state, running `1` once started, with a handler that counts its calls.
        func lifecycle(calls: LockedState<Int>) -> Lifecycle {
            var lifecycle = Lifecycle(handler: { _, _, _ in calls.withLock { $0 += 1 } })
            switch self {
            case .created: break
            case .resumed: _ = lifecycle.resume()
            case .running:
                _ = lifecycle.resume()
                _ = lifecycle.started(1)
            case .finished: _ = lifecycle.finish()
            }
            return lifecycle
        }
    }

    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case resume, started, finish

        var testDescription: String { rawValue }
    }

    /// What an event answers, and the state after it.
    static let table: [State: [Event: (answer: String, after: String)]] = [
        .created: [
            .resume: ("start", "resumed"), .started: ("stop 2", "created"), .finish: ("handler", "finished"),
        ],
        .resumed: [
            .resume: ("nothing", "resumed"), .started: ("run 2", "running 2"), .finish: ("handler", "finished"),
        ],
        .running: [
            .resume: ("nothing", "running 1"), .started: ("run 2", "running 2"),
            .finish: ("handler, stop 1", "finished"),
        ],
        .finished: [
            .resume: ("nothing", "finished"), .started: ("stop 2", "finished"), .finish: ("nothing", "finished"),
        ],
    ]

    static let allPairs = State.allCases.flatMap { state in Event.allCases.map { (state, $0) } }

    @Test("when any event comes in any state, should answer what the table says", arguments: allPairs)
    func transition(state: State, event: Event) {
        let calls = LockedState(0)
        var lifecycle = state.lifecycle(calls: calls)

        let answer: String
        switch event {
        case .resume:
            answer = lifecycle.resume() ? "start" : "nothing"
        case .started:
            answer = lifecycle.started(2) ? "run 2" : "stop 2"
        case .finish:
            if let (handler, running) = lifecycle.finish() {
                handler(nil, nil, nil)
                answer = running.map { "handler, stop \($0)" } ?? "handler"
            } else {
                answer = "nothing"
            }
        }

        let expected = Self.table[state]?[event]
        #expect(answer == expected?.answer)
        #expect(Self.describe(lifecycle) == expected?.after)
        #expect(calls.withLock { $0 } == (answer.hasPrefix("handler") ? 1 : 0))
    }

    @Test("when finished twice from two threads at once, should hand the handler out once", arguments: 0..<20)
    func finishesOnce(round: Int) async {
        let calls = LockedState(0)
        let lifecycle = LockedState(State.running.lifecycle(calls: calls))

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { lifecycle.withLock { $0.finish() }?.handler(nil, nil, nil) }
            }
        }

        #expect(calls.withLock { $0 } == 1, "round \(round)")
    }

    /// The state `lifecycle` is in, as the table writes it.
    static func describe(_ lifecycle: Lifecycle) -> String {
        if lifecycle.isFinished { return "finished" }
        var probe = lifecycle
        if probe.resume() { return "created" }
        return lifecycle.running.map { "running \($0)" } ?? "resumed"
    }
}
