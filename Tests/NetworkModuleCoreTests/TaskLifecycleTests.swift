import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every (state, event) pair of the life that session tasks and callers' handles share, with no
/// session or thread: the table in ``TaskLifecycle``'s documentation, as tests; then the same for
/// how a caller's handle starts and cancels its request with it.
@Suite("Task lifecycle")
struct TaskLifecycleTests {
    typealias Lifecycle = SessionTaskLifecycle<Int>

    enum State: String, TableArgument {
        case created, resumed, running, finished

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

    enum Event: String, TableArgument {
        case resume, started, finish
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

    // MARK: - A caller's handle

    /// The states of a caller's handle: `starting` is while its `start` runs, before the request's
    /// handle exists.
    enum CallerState: String, TableArgument {
        case created, starting, running, finished
    }

    enum CallerEvent: String, TableArgument {
        case start, cancel, finish
    }

    /// What an event answers in each state of a caller's handle (``LockedState/start(_:)``: whether
    /// it started; ``LockedState/cancel()``: whether the request never started, so that nothing
    /// else will end it), and what became of the request's handle once `start` returned.
    static let callerTable: [CallerState: [CallerEvent: (answer: String, handle: String)]] = [
        .created: [.start: ("started", "running"), .cancel: ("never started", "none"), .finish: ("finished", "none")],
        .starting: [
            .start: ("nothing", "running"), .cancel: ("nothing", "cancelled"), .finish: ("finished", "cancelled"),
        ],
        .running: [
            .start: ("nothing", "running"), .cancel: ("nothing", "cancelled"), .finish: ("finished", "dropped"),
        ],
        .finished: [.start: ("nothing", "none"), .cancel: ("nothing", "none"), .finish: ("nothing", "none")],
    ]

    static let callerPairs = CallerState.allCases.flatMap { state in CallerEvent.allCases.map { (state, $0) } }

    @Test(
        "when a caller's handle gets any event in any state, should answer what the table says",
        arguments: callerPairs)
    func callerTransition(state: CallerState, event: CallerEvent) {
        let life = LockedState(TaskLifecycle<any NetworkCancellable, Void>(handler: ()))
        let handle = CountingHandle()
        var answer = "none"
        func send(_ event: CallerEvent) {
            switch event {
            case .start: answer = life.start { handle } ? "started" : "nothing"
            case .cancel: answer = life.cancel() ? "never started" : "nothing"
            case .finish: answer = life.withLock { $0.finish() } == nil ? "nothing" : "finished"
            }
        }

        switch state {
        case .created: send(event)
        case .starting:
            life.start {
                send(event)
                return handle
            }
        case .running:
            life.start { handle }
            send(event)
        case .finished:
            _ = life.withLock { $0.finish() }
            send(event)
        }

        let expected = Self.callerTable[state]?[event]
        #expect(answer == expected?.answer)
        #expect(Self.describe(life, handle) == expected?.handle)
        #expect(handle.cancels <= 1)
    }

    /// What became of `handle`: kept while the request runs, cancelled, dropped at the end, or
    /// never there.
    static func describe(_ life: LockedState<TaskLifecycle<any NetworkCancellable, Void>>, _ handle: CountingHandle)
        -> String
    {
        if handle.cancels > 0 { return "cancelled" }
        if life.withLock({ $0.running }) != nil { return "running" }
        return life.withLock { $0.isResumed } ? "dropped" : "none"
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

/// A request's handle that counts its cancels.
final class CountingHandle: NetworkCancellable {
    private let count = LockedState(0)

    var cancels: Int { count.withLock { $0 } }

    func cancel() {
        count.withLock { $0 += 1 }
    }
}

/// A state or an event of a table test, named in the test's arguments by its raw value.
protocol TableArgument: RawRepresentable<String>, CaseIterable, CustomTestStringConvertible {}

extension TableArgument {
    var testDescription: String { rawValue }
}
