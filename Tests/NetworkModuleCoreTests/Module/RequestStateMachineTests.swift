import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every (phase, event) pair of ``RequestStateMachine``, with no session, thread or clock: the
/// table in the machine's documentation, as tests.
@Suite("Request state machine")
struct RequestStateMachineTests {
    typealias Machine = RequestStateMachine

    /// A state the machine can be in: a phase, and whether a call-out is running.
    enum Situation: String, CaseIterable, CustomTestStringConvertible {
        case idle, building, preparingCallOut, schedulingDeadline, awaitingAction, creatingTask, resuming, inFlight,
            observing, askingRetry, awaitingDecision, schedulingRetry, waitingForTimer, delivering, deliveringCancelled,
            finished

        var testDescription: String { rawValue }

        /// A machine of two actions and at most three attempts, driven into this situation.
        func machine() -> Machine {
            var machine = Machine(actionCount: 2, maximumAttempts: 3, completion: nil)
            let steps: [(inout Machine) -> Machine.Next] = [
                { $0.start() },
                { $0.built(.success(sampleRequest)) },
                { $0.preparationReturned(.waiting(forAction: 0)) },
                { $0.preparationDeadlineScheduled(FakeTimer()) },
            ]
            let sendSteps: [(inout Machine) -> Machine.Next] = [
                { $0.start() },
                { $0.built(.success(sampleRequest)) },
                { $0.preparationReturned(.prepared(sampleRequest)) },
                { $0.taskCreated(FakeTask()) },
                { $0.resumeReturned() },
                { $0.answered(attempt: 1, .failure(serverError)) },
                { $0.observed(.failure(serverError)) },
                { $0.retryDecisionReturned() },
                { $0.retryDecided(attempt: 1, index: 0, .retryAfter(1)) },
                { $0.retryTimerScheduled(FakeTimer()) },
            ]
            // A 200 decided (its delivery queued), cancelled, delivered.
            let deliverySteps: [(inout Machine) -> Machine.Next] = [
                { $0.answered(attempt: 1, .success(sampleResponse)) },
                { $0.observed(.success(sampleResponse)) },
                { $0.cancel() },
                {
                    _ = $0.deliveryStarted()
                    return .none
                },
            ]
            let path: ArraySlice<(inout Machine) -> Machine.Next> =
                switch self {
                case .idle: []
                case .building: steps.prefix(1)
                case .preparingCallOut: steps.prefix(2)
                case .schedulingDeadline: steps.prefix(3)
                case .awaitingAction: steps.prefix(4)
                case .creatingTask: sendSteps.prefix(3)
                case .resuming: sendSteps.prefix(4)
                case .inFlight: sendSteps.prefix(5)
                case .observing: sendSteps.prefix(6)
                case .askingRetry: sendSteps.prefix(7)
                case .awaitingDecision: sendSteps.prefix(8)
                case .schedulingRetry: sendSteps.prefix(9)
                case .waitingForTimer: sendSteps.prefix(10)
                case .delivering: sendSteps.prefix(5) + deliverySteps.prefix(2)
                case .deliveringCancelled: sendSteps.prefix(5) + deliverySteps.prefix(3)
                case .finished: sendSteps.prefix(5) + deliverySteps.prefix(4)
                }
            for step in path { _ = step(&machine) }
            return machine
        }
    }

    /// Every event, for the current attempt (1) unless its name says otherwise.
    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case start, cancel, deadlinePassed, built, buildFailed, preparedAll, preparationFailed, waitingForAction0,
            deadlineScheduled, taskCreated, sendRejected, resumeReturned, observedSuccess, observedFailure,
            decisionReturned, timerScheduled, action0Prepared, action1Prepared, answered, answeredForAttempt2,
            decidedRetry, decidedNoRetry, timerFired, timerFiredForAttempt2, deliveryStarted

        var testDescription: String { rawValue }

        /// Applies the event; returns what the machine answered, as the table writes it.
        func apply(to machine: inout Machine) -> String {
            let next: Machine.Next
            switch self {
            case .deliveryStarted: return RequestStateMachineTests.describe(machine.deliveryStarted())
            case .start: next = machine.start()
            case .cancel: next = machine.cancel()
            case .deadlinePassed: next = machine.preparationDeadlinePassed(attempt: 1)
            case .built: next = machine.built(.success(sampleRequest))
            case .buildFailed: next = machine.built(.failure(.invalidRequest(.missingURL)))
            case .preparedAll: next = machine.preparationReturned(.prepared(sampleRequest))
            case .preparationFailed: next = machine.preparationReturned(.failed(.notConnectedToInternet))
            case .waitingForAction0: next = machine.preparationReturned(.waiting(forAction: 0))
            case .deadlineScheduled: next = machine.preparationDeadlineScheduled(FakeTimer())
            case .taskCreated: next = machine.taskCreated(FakeTask())
            case .sendRejected: next = machine.sendRejected(.invalidRequest(.invalidHeaderName("a b")))
            case .resumeReturned: next = machine.resumeReturned()
            case .observedSuccess: next = machine.observed(.success(sampleResponse))
            case .observedFailure: next = machine.observed(.failure(serverError))
            case .decisionReturned: next = machine.retryDecisionReturned()
            case .timerScheduled: next = machine.retryTimerScheduled(FakeTimer())
            case .action0Prepared: next = machine.actionPrepared(attempt: 1, index: 0, .success(sampleRequest))
            case .action1Prepared: next = machine.actionPrepared(attempt: 1, index: 1, .success(sampleRequest))
            case .answered: next = machine.answered(attempt: 1, .success(sampleResponse))
            case .answeredForAttempt2: next = machine.answered(attempt: 2, .success(sampleResponse))
            case .decidedRetry: next = machine.retryDecided(attempt: 1, index: 0, .retry)
            case .decidedNoRetry: next = machine.retryDecided(attempt: 1, index: 0, .doNotRetry)
            case .timerFired: next = machine.retryTimerFired(attempt: 1)
            case .timerFiredForAttempt2: next = machine.retryTimerFired(attempt: 2)
            }
            return RequestStateMachineTests.describe(next, machine)
        }
    }

    /// What one event in one situation does: the next step, the phase after it, and whether a
    /// call-out is then running.
    struct Outcome: Equatable, CustomStringConvertible {
        let next: String
        let phase: String
        let isCallingOut: Bool

        var description: String { "\(next) → \(phase)\(isCallingOut ? " (calling out)" : "")" }
    }

    /// The pairs that change something. Every pair not listed here leaves the machine as it
    /// was and says to do nothing: an event the phase does not expect, a completion kept for
    /// when the running call-out returns, or a cancel or timeout that waits for it.
    static let transitions: [Situation: [Event: Outcome]] = [
        .idle: [
            .start: Outcome(next: "build(1)", phase: "building", isCallingOut: true),
            .cancel: Outcome(next: "finish(cancelled, silent)", phase: "delivering", isCallingOut: false),
        ],
        .building: [
            .built: Outcome(next: "prepare(1, from: 0)", phase: "preparing(0, nil)", isCallingOut: true),
            .buildFailed: Outcome(next: "finish(invalidRequest, silent)", phase: "delivering", isCallingOut: false),
        ],
        .preparingCallOut: [
            .preparedAll: Outcome(next: "send(1)", phase: "sending(nil)", isCallingOut: true),
            .preparationFailed: Outcome(
                next: "finish(notConnectedToInternet)", phase: "delivering", isCallingOut: false),
            .waitingForAction0: Outcome(
                next: "schedulePreparationDeadline(1)", phase: "preparing(0, 0)", isCallingOut: true),
        ],
        .schedulingDeadline: [
            .deadlineScheduled: Outcome(next: "none", phase: "preparing(0, 0)", isCallingOut: false)
        ],
        .awaitingAction: [
            .cancel: Outcome(next: "finish(cancelled, 1 timer)", phase: "delivering", isCallingOut: false),
            .deadlinePassed: Outcome(next: "finish(timedOut, 1 timer)", phase: "delivering", isCallingOut: false),
            .action0Prepared: Outcome(next: "prepare(1, from: 1)", phase: "preparing(1, nil)", isCallingOut: true),
        ],
        .creatingTask: [
            .taskCreated: Outcome(next: "resume", phase: "sending(task)", isCallingOut: true),
            .sendRejected: Outcome(next: "finish(invalidRequest)", phase: "delivering", isCallingOut: false),
        ],
        .resuming: [
            .resumeReturned: Outcome(next: "none", phase: "sending(task)", isCallingOut: false)
        ],
        .inFlight: [
            .cancel: Outcome(next: "finish(cancelled, task)", phase: "delivering", isCallingOut: false),
            .answered: Outcome(next: "observe(1)", phase: "observing", isCallingOut: true),
        ],
        .observing: [
            .observedSuccess: Outcome(next: "finish(200)", phase: "delivering", isCallingOut: false),
            .observedFailure: Outcome(next: "askRetry(1, action: 0)", phase: "deciding(0)", isCallingOut: true),
        ],
        .askingRetry: [
            .decisionReturned: Outcome(next: "none", phase: "deciding(0)", isCallingOut: false)
        ],
        .awaitingDecision: [
            .cancel: Outcome(next: "finish(cancelled)", phase: "delivering", isCallingOut: false),
            .decidedRetry: Outcome(next: "build(2)", phase: "building", isCallingOut: true),
            .decidedNoRetry: Outcome(next: "askRetry(1, action: 1)", phase: "deciding(1)", isCallingOut: true),
        ],
        .schedulingRetry: [
            .timerScheduled: Outcome(next: "none", phase: "waitingToRetry(timer)", isCallingOut: false)
        ],
        .waitingForTimer: [
            .cancel: Outcome(next: "finish(cancelled, 1 timer)", phase: "delivering", isCallingOut: false),
            .timerFired: Outcome(next: "build(2)", phase: "building", isCallingOut: true),
        ],
        .delivering: [
            .cancel: Outcome(next: "none", phase: "delivering(cancelled)", isCallingOut: false),
            .deliveryStarted: Outcome(next: "deliver(result)", phase: "finished", isCallingOut: false),
        ],
        .deliveringCancelled: [
            .deliveryStarted: Outcome(next: "deliver(cancelled)", phase: "finished", isCallingOut: false)
        ],
        .finished: [:],
    ]

    static let allPairs = Situation.allCases.flatMap { situation in Event.allCases.map { (situation, $0) } }

    @Test("when any event comes in any phase, should do what the transition table says", arguments: allPairs)
    func transition(situation: Situation, event: Event) {
        var machine = situation.machine()
        let before = Outcome(next: "none", phase: Self.phase(of: machine), isCallingOut: machine.isCallingOut)

        let answer = event.apply(to: &machine)

        let expected = Self.transitions[situation]?[event] ?? before
        #expect(Outcome(next: answer, phase: Self.phase(of: machine), isCallingOut: machine.isCallingOut) == expected)
    }

    // MARK: - Call-outs: what arrives during one is taken up when it returns

    @Test("when an action completes inside its prepare call, should go on when the call-out returns")
    func synchronousPreparation() {
        var machine = Situation.preparingCallOut.machine()
        #expect(Self.describe(machine.actionPrepared(attempt: 1, index: 0, .success(sampleRequest)), machine) == "none")
        #expect(Self.describe(machine.preparationReturned(.waiting(forAction: 0)), machine) == "prepare(1, from: 1)")
    }

    @Test("when an action completes while the preparation deadline is being scheduled, should go on afterwards")
    func completionDuringDeadlineScheduling() {
        var machine = Situation.schedulingDeadline.machine()
        #expect(Self.describe(machine.actionPrepared(attempt: 1, index: 0, .success(sampleRequest)), machine) == "none")
        #expect(Self.describe(machine.preparationDeadlineScheduled(FakeTimer()), machine) == "prepare(1, from: 1)")
    }

    @Test("when an action completes twice, should take the first completion only")
    func duplicatePreparation() {
        var machine = Situation.awaitingAction.machine()
        _ = machine.actionPrepared(attempt: 1, index: 0, .success(sampleRequest))
        _ = machine.preparationReturned(.prepared(sampleRequest))
        #expect(Self.describe(machine.actionPrepared(attempt: 1, index: 0, .failure(.timedOut)), machine) == "none")
        #expect(Self.phase(of: machine) == "sending(nil)")
    }

    @Test("when the session answers inside resume, should observe the answer once resume returns")
    func answerDuringResume() {
        var machine = Situation.resuming.machine()
        #expect(Self.describe(machine.answered(attempt: 1, .success(sampleResponse)), machine) == "none")
        #expect(Self.describe(machine.answered(attempt: 1, .failure(.timedOut)), machine) == "none")
        #expect(Self.describe(machine.resumeReturned(), machine) == "observe(1)")
    }

    @Test("when the session answers inside dataTask, should observe the answer without resuming the task")
    func answerDuringTaskCreation() {
        var machine = Situation.creatingTask.machine()
        _ = machine.answered(attempt: 1, .success(sampleResponse))
        #expect(Self.describe(machine.taskCreated(FakeTask()), machine) == "observe(1)")
    }

    @Test("when an action decides inside retryDecision, should act on it once the call returns")
    func decisionDuringCall() {
        var machine = Situation.askingRetry.machine()
        _ = machine.retryDecided(attempt: 1, index: 0, .retry)
        #expect(Self.describe(machine.retryDecisionReturned(), machine) == "build(2)")
        #expect(machine.attempt == 2)
    }

    @Test("when the retry timer fires while it is being scheduled, should start the next attempt afterwards")
    func timerDuringScheduling() {
        var machine = Situation.schedulingRetry.machine()
        _ = machine.retryTimerFired(attempt: 1)
        #expect(Self.describe(machine.retryTimerScheduled(FakeTimer()), machine) == "build(2)")
    }

    // MARK: - Cancels and timeouts wait for the running call-out

    static let callOutSituations: [Situation] = [
        .building, .preparingCallOut, .schedulingDeadline, .creatingTask, .resuming, .observing, .askingRetry,
        .schedulingRetry,
    ]

    @Test(
        "when cancelled during a call-out, should finish with cancelled only once it returns",
        arguments: callOutSituations)
    func cancelDuringCallOut(situation: Situation) {
        var machine = situation.machine()
        #expect(Self.describe(machine.cancel(), machine) == "none")
        #expect(Self.describe(machine.cancel(), machine) == "none")

        let next = Self.returnCallOut(of: situation, in: &machine)

        #expect(Self.describe(next, machine).hasPrefix("finish(cancelled"))
        #expect(machine.isFinished)
    }

    @Test("when cancelled while the task is created, should cancel the task it gets instead of resuming it")
    func cancelDuringTaskCreation() {
        var machine = Situation.creatingTask.machine()
        _ = machine.cancel()
        let task = FakeTask()

        guard case .finish(let finish) = machine.taskCreated(task) else {
            Issue.record("expected to finish")
            return
        }
        #expect(finish.taskToCancel as? FakeTask === task)
        #expect(finish.result.failureValue == .cancelled)
    }

    @Test("when the preparation deadline passes during a call-out, should finish with timedOut once it returns")
    func deadlineDuringCallOut() {
        var machine = Situation.preparingCallOut.machine()
        #expect(Self.describe(machine.preparationDeadlinePassed(attempt: 1), machine) == "none")
        #expect(Self.describe(machine.preparationReturned(.waiting(forAction: 0)), machine) == "finish(timedOut)")
    }

    @Test("when a cancel and a completion both arrive during a call-out, should finish with cancelled")
    func cancelWinsOverPendingCompletion() {
        var machine = Situation.resuming.machine()
        _ = machine.answered(attempt: 1, .success(sampleResponse))
        _ = machine.cancel()
        #expect(Self.describe(machine.resumeReturned(), machine) == "finish(cancelled, task)")
    }

    // MARK: - Delivering: a cancel before the executor runs the delivery wins

    @Test("when cancelled after the delivery of a success is queued, should deliver cancelled when it starts")
    func cancelAfterDeliveryQueued() {
        var machine = Situation.delivering.machine()

        let next = machine.cancel()

        #expect(Self.describe(next, machine) == "none")
        #expect(Self.describe(machine.deliveryStarted()) == "deliver(cancelled)")
        #expect(Self.describe(machine.deliveryStarted()) == "none")
        #expect(Self.phase(of: machine) == "finished")
    }

    @Test("when cancelled after the delivery started, should change nothing")
    func cancelAfterDeliveryStarted() {
        var machine = Situation.delivering.machine()
        #expect(Self.describe(machine.deliveryStarted()) == "deliver(result)")

        let next = machine.cancel()

        #expect(Self.describe(next, machine) == "none")
        #expect(Self.describe(machine.deliveryStarted()) == "none")
        #expect(Self.phase(of: machine) == "finished")
    }

    @Test("when cancelled twice while the delivery is queued, should deliver cancelled once")
    func cancelTwiceWhileDeliveryQueued() {
        var machine = Situation.delivering.machine()

        let first = machine.cancel()
        let second = machine.cancel()

        #expect(Self.describe(first, machine) == "none")
        #expect(Self.describe(second, machine) == "none")
        #expect(Self.describe(machine.deliveryStarted()) == "deliver(cancelled)")
        #expect(Self.describe(machine.deliveryStarted()) == "none")
    }

    @Test("when a request that was cancelled in flight is cancelled again, should deliver its cancelled once")
    func cancelTwiceInFlight() {
        var machine = Situation.inFlight.machine()

        let first = machine.cancel()
        let second = machine.cancel()

        #expect(Self.describe(first, machine) == "finish(cancelled, task)")
        #expect(Self.describe(second, machine) == "none")
        #expect(Self.describe(machine.deliveryStarted()) == "deliver(cancelled)")
        #expect(Self.describe(machine.deliveryStarted()) == "none")
    }

    // MARK: - Attempts

    @Test("when the last allowed attempt fails, should deliver its failure without asking the actions")
    func attemptLimit() {
        var machine = Machine(actionCount: 1, maximumAttempts: 2, completion: nil)
        _ = machine.start()
        for attempt in 1...2 {
            _ = machine.built(.success(sampleRequest))
            _ = machine.preparationReturned(.prepared(sampleRequest))
            _ = machine.taskCreated(FakeTask())
            _ = machine.resumeReturned()
            _ = machine.answered(attempt: attempt, .failure(serverError))
            let next = machine.observed(.failure(serverError))
            if attempt == 1 {
                #expect(Self.describe(next, machine) == "askRetry(1, action: 0)")
                _ = machine.retryDecided(attempt: 1, index: 0, .retry)
                #expect(Self.describe(machine.retryDecisionReturned(), machine) == "build(2)")
            } else {
                #expect(Self.describe(next, machine) == "finish(503)")
            }
        }
    }

    @Test("when every action declines to retry, should deliver the failure")
    func everyActionDeclines() {
        var machine = Situation.awaitingDecision.machine()
        _ = machine.retryDecided(attempt: 1, index: 0, .doNotRetry)
        _ = machine.retryDecisionReturned()
        #expect(Self.describe(machine.retryDecided(attempt: 1, index: 1, .doNotRetry), machine) == "finish(503)")
    }

    @Test("when an action asks to retry after a delay, should schedule the retry timer")
    func delayedRetry() {
        var machine = Situation.awaitingDecision.machine()
        #expect(
            Self.describe(machine.retryDecided(attempt: 1, index: 0, .retryAfter(2)), machine)
                == "scheduleRetry(1, 2.0)")
    }

    @Test("when an attempt is cancelled by the server's cancellation error, should deliver it without a retry")
    func cancelledOutcomeIsNotRetried() {
        var machine = Situation.observing.machine()
        #expect(Self.describe(machine.observed(.failure(.cancelled)), machine) == "finish(cancelled)")
    }

    @Test("when a retry's request cannot be built, should deliver the failure to the actions too")
    func retryBuildFailure() {
        var machine = Situation.waitingForTimer.machine()
        _ = machine.retryTimerFired(attempt: 1)
        #expect(
            Self.describe(machine.built(.failure(.invalidRequest(.missingURL))), machine) == "finish(invalidRequest)")
    }

    @Test("when the module has no actions, should send at once and deliver the answer without observing")
    func noActions() {
        var machine = Machine(actionCount: 0, maximumAttempts: 3, completion: nil)
        _ = machine.start()
        #expect(Self.describe(machine.built(.success(sampleRequest)), machine) == "send(1)")
        _ = machine.taskCreated(FakeTask())
        _ = machine.resumeReturned()
        #expect(Self.describe(machine.answered(attempt: 1, .failure(serverError)), machine) == "finish(503, silent)")
    }

    @Test("when the preparation of a second attempt waits, should bound it with a deadline of its own")
    func deadlinePerAttempt() {
        var machine = Situation.awaitingAction.machine()
        _ = machine.actionPrepared(attempt: 1, index: 0, .success(sampleRequest))
        guard case .send(_, let deadline) = machine.preparationReturned(.prepared(sampleRequest)) else {
            Issue.record("expected to send")
            return
        }
        #expect(deadline != nil, "the first attempt's deadline, to cancel")
        #expect(machine.takeRequest() != nil)
        _ = machine.taskCreated(FakeTask())
        _ = machine.resumeReturned()
        _ = machine.answered(attempt: 1, .failure(serverError))
        _ = machine.observed(.failure(serverError))
        _ = machine.retryDecided(attempt: 1, index: 0, .retry)
        _ = machine.retryDecisionReturned()
        _ = machine.built(.success(sampleRequest))
        #expect(
            Self.describe(machine.preparationReturned(.waiting(forAction: 1)), machine)
                == "schedulePreparationDeadline(2)")
    }

    // MARK: - What the machine keeps about the request

    @Test("when events come at given times, should count preparation and time in flight over every attempt")
    func clockOverAttempts() {
        var machine = Machine(actionCount: 1, maximumAttempts: 2, completion: nil)
        _ = machine.handle(at: 1_000) { $0.start() }
        _ = machine.handle(at: 1_010) { $0.built(.success(sampleRequest)) }
        _ = machine.handle(at: 1_030) { $0.preparationReturned(.prepared(sampleRequest)) }
        _ = machine.handle(at: 1_035) { $0.taskCreated(FakeTask()) }
        _ = machine.handle(at: 1_040) { $0.resumeReturned() }
        guard
            case .observe(_, _, let observed) = machine.handle(
                at: 1_130, { $0.answered(attempt: 1, .failure(serverError)) })
        else {
            Issue.record("expected to observe")
            return
        }
        #expect(observed.preparationNanoseconds == 30)
        #expect(observed.inFlightNanoseconds == 100)
        // Deciding is neither: the clock stands still until the next attempt is built.
        _ = machine.handle(at: 1_200) { $0.observed(.failure(serverError)) }
        _ = machine.handle(at: 1_300) { $0.retryDecided(attempt: 1, index: 0, .retry) }
        _ = machine.handle(at: 1_300) { $0.retryDecisionReturned() }
        _ = machine.handle(at: 1_320) { $0.built(.success(sampleRequest)) }
        _ = machine.handle(at: 1_340) { $0.preparationReturned(.prepared(sampleRequest)) }
        _ = machine.handle(at: 1_340) { $0.taskCreated(FakeTask()) }
        _ = machine.handle(at: 1_340) { $0.resumeReturned() }
        guard case .finish(let finish) = machine.handle(at: 1_400, { $0.cancel() }) else {
            Issue.record("expected to finish")
            return
        }
        #expect(finish.facts.preparationNanoseconds == 70)
        #expect(finish.facts.inFlightNanoseconds == 160)
    }

    @Test("when an event comes with an earlier time than the last, should not count time backwards")
    func clockNeverRunsBackwards() {
        var machine = Machine(actionCount: 0, maximumAttempts: 1, completion: nil)
        _ = machine.handle(at: 500) { $0.start() }
        _ = machine.handle(at: 400) { $0.built(.success(sampleRequest)) }
        _ = machine.handle(at: 420) { $0.taskCreated(FakeTask()) }
        _ = machine.handle(at: 430) { $0.resumeReturned() }
        guard case .finish(let finish) = machine.handle(at: 450, { $0.cancel() }) else {
            Issue.record("expected to finish")
            return
        }
        #expect(finish.facts.preparationNanoseconds == 0)
        #expect(finish.facts.inFlightNanoseconds == 0)
    }

    @Test("when a request is sent on every attempt, should keep the one sent last and sum the bytes, clamped")
    func sentRequestAndBytes() {
        var machine = Machine(actionCount: 0, maximumAttempts: 3, completion: nil)
        var first = sampleRequest
        first.httpBody = Data(count: 5)
        _ = machine.start()
        _ = machine.built(.success(first))
        #expect(machine.facts.sentRequest?.httpBody?.count == 5)
        #expect(machine.facts.bytesSent == 5)

        // A streamed body counts its declared length: the caller's word, up to Int.max.
        var machineWithStream = Machine(actionCount: 0, maximumAttempts: 3, completion: nil)
        var streamed = sampleRequest
        streamed.httpBodyStream = InputStream(data: Data())
        streamed.setValue(String(Int.max), forHTTPHeaderField: "Content-Length")
        var stream: InputStream? = streamed.httpBodyStream
        _ = machineWithStream.start()
        _ = machineWithStream.built(.success(streamed), bodyStream: &stream)
        #expect(machineWithStream.facts.bytesSent == Int.max)
        _ = machineWithStream.taskCreated(FakeTask())
        _ = machineWithStream.resumeReturned()
        #expect(machineWithStream.facts.bytesSent == Int.max, "one attempt's worth, not yet more")
    }

    @Test("when the session delivers body bytes, should count them until the request has finished")
    func receivedBytes() {
        var machine = Situation.inFlight.machine()
        _ = machine.answered(attempt: 1, .success(sampleResponse), receivedBytes: Int.max)
        _ = machine.answered(attempt: 1, .success(sampleResponse), receivedBytes: 10)
        #expect(machine.facts.bytesReceived == Int.max, "clamped, and a late answer still counts its bytes")
        _ = machine.cancel()
        var finished = Situation.delivering.machine()
        let before = finished.facts.bytesReceived
        _ = finished.answered(attempt: 1, .success(sampleResponse), receivedBytes: 10)
        #expect(finished.facts.bytesReceived == before)
    }

    @Test("when a retry's request is built with a new body stream, should hand back the previous one to release")
    func bodyStreamPerAttempt() {
        var machine = Situation.waitingForTimer.machine()
        _ = machine.retryTimerFired(attempt: 1)
        let second = InputStream(data: Data())
        var handed: InputStream? = second
        _ = machine.built(.success(sampleRequest), bodyStream: &handed)
        #expect(handed == nil, "the first attempt had no stream: nothing to release")

        _ = machine.preparationReturned(.prepared(sampleRequest))
        _ = machine.taskCreated(FakeTask())
        _ = machine.resumeReturned()
        guard case .finish(let finish) = machine.cancel() else {
            Issue.record("expected to finish")
            return
        }
        #expect(finish.bodyStream === second, "released at the end, before the caller hears of it")
    }

    @Test("when a request's stream is built after it ended, should hand the stream back to release")
    func bodyStreamAfterTheEnd() {
        var machine = Situation.delivering.machine()
        let stream = InputStream(data: Data())
        var handed: InputStream? = stream
        #expect(Self.describe(machine.built(.success(sampleRequest), bodyStream: &handed), machine) == "none")
        #expect(handed === stream)
    }

    @Test("when the request ends, should hand out the caller's completion once")
    func completionOnce() {
        let completion: RequestOperation.Completion = { result in (result, { _ in }) }
        var machine = Machine(actionCount: 0, maximumAttempts: 1, completion: completion)
        guard case .finish(let finish) = machine.cancel() else {
            Issue.record("expected to finish")
            return
        }
        #expect(finish.completion != nil)
        #expect(Self.describe(machine.cancel(), machine) == "none")
    }

    @Test("when the preparation waits, should bound it by the timeout of the request being prepared")
    func preparationTimeout() {
        var machine = Machine(actionCount: 1, maximumAttempts: 1, completion: nil)
        var request = sampleRequest
        request.timeoutInterval = 7
        _ = machine.start()
        _ = machine.built(.success(request))
        guard case .schedulePreparationDeadline(_, let timeout) = machine.preparationReturned(.waiting(forAction: 0))
        else {
            Issue.record("expected to schedule the deadline")
            return
        }
        #expect(timeout == 7)
    }

    // MARK: - Helpers

    /// Reports the return of the call-out running in `situation`, with nothing new.
    static func returnCallOut(of situation: Situation, in machine: inout Machine) -> Machine.Next {
        switch situation {
        case .building: machine.built(.success(sampleRequest))
        case .preparingCallOut: machine.preparationReturned(.waiting(forAction: 0))
        case .schedulingDeadline: machine.preparationDeadlineScheduled(FakeTimer())
        case .creatingTask: machine.taskCreated(FakeTask())
        case .resuming: machine.resumeReturned()
        case .observing: machine.observed(.success(sampleResponse))
        case .askingRetry: machine.retryDecisionReturned()
        case .schedulingRetry: machine.retryTimerScheduled(FakeTimer())
        default: .none
        }
    }

    static func phase(of machine: Machine) -> String {
        switch machine.phase {
        case .idle: "idle"
        case .building: "building"
        case .preparing(let from, let awaiting, _): "preparing(\(from), \(awaiting.map(String.init) ?? "nil"))"
        case .sending(let task): "sending(\(task == nil ? "nil" : "task"))"
        case .observing: "observing"
        case .deciding(let action, _): "deciding(\(action))"
        case .waitingToRetry(let timer): "waitingToRetry(\(timer == nil ? "nil" : "timer"))"
        case .delivering(let cancelled): cancelled ? "delivering(cancelled)" : "delivering"
        case .finished: "finished"
        }
    }

    /// What ``RequestStateMachine/deliveryStarted()`` answered, as the table writes it.
    static func describe(_ delivery: Machine.Delivery) -> String {
        switch delivery {
        case .result: "deliver(result)"
        case .cancelled: "deliver(cancelled)"
        case .none: "none"
        }
    }

    /// `next` as the table writes it; for ``RequestStateMachine/Next/finish(_:)``, what it says
    /// to deliver.
    static func describe(_ next: Machine.Next, _ machine: Machine) -> String {
        switch next {
        case .none: return "none"
        case .build(let attempt): return "build(\(attempt))"
        case .prepare(let attempt, let from, _): return "prepare(\(attempt), from: \(from))"
        case .schedulePreparationDeadline(let attempt, _): return "schedulePreparationDeadline(\(attempt))"
        case .send(let attempt, _): return "send(\(attempt))"
        case .resume: return "resume"
        case .observe(let attempt, _, _): return "observe(\(attempt))"
        case .askRetry(let attempt, let action, _, _): return "askRetry(\(attempt), action: \(action))"
        case .scheduleRetry(let attempt, let delay): return "scheduleRetry(\(attempt), \(delay))"
        case .finish(let finish):
            var parts: [String]
            switch finish.result {
            case .success(let response): parts = ["\(response.statusCode)"]
            case .failure(.cancelled): parts = ["cancelled"]
            case .failure(.timedOut): parts = ["timedOut"]
            case .failure(.invalidRequest): parts = ["invalidRequest"]
            case .failure(.notConnectedToInternet): parts = ["notConnectedToInternet"]
            case .failure(let error): parts = ["\(error.statusCode ?? 0)"]
            }
            if !finish.notifiesActions { parts.append("silent") }
            if finish.taskToCancel != nil { parts.append("task") }
            if finish.timerToCancel != nil { parts.append("1 timer") }
            return "finish(\(parts.joined(separator: ", ")))"
        }
    }
}

private let sampleRequest = URLRequest(url: URL(string: "https://api.example.com/v2/users/1")!)
// A fixed URL and status: making it cannot fail.
private let sampleResponse = try! NetworkResponse.make(statusCode: 200)
private let serverError = NetworkError.serverError(HTTPErrorResponse(statusCode: 503, headers: [:], body: Data()))

private final class FakeTask: NetworkSessionTask {
    func resume() {}
    func cancel() {}
}

private final class FakeTimer: NetworkCancellable {
    func cancel() {}
}

extension RequestStateMachine {
    /// The request builder returned, with no body stream to keep.
    fileprivate mutating func built(_ result: Result<URLRequest, NetworkError>) -> Next {
        var none: InputStream?
        return built(result, bodyStream: &none)
    }
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
