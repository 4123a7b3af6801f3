import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life of one request, as a value: a method per event that returns what to do next.
///
/// ``RequestOperation`` holds one of these behind its lock. It feeds every event in (a
/// completion from an action or the session, a timer, a cancel), takes the returned ``Next``
/// out of the lock and performs it: a *call-out* to a request builder, an action, the session,
/// a scheduler or, at the end, the completion executor. When the call-out returns, the
/// operation feeds that in too, and performs what comes back, in a loop. Nothing here touches
/// a thread, a clock or a session, so every (phase, event) pair is a unit test
/// (`RequestStateMachineTests`).
///
/// ## One call-out at a time
/// While a call-out runs, the machine remembers it (``isCallingOut``). A completion that arrives
/// meanwhile (an action or a session that answers synchronously, inside the call) is kept and
/// taken up when the call-out returns, so the operation's loop goes on with it instead of
/// recursing: a session that answers inside `resume()` and an action that retries every time
/// cost no stack. A cancel or a timeout that arrives meanwhile waits for the call-out to return
/// too, so no hook is ever running when ``NetworkModuleAction/didFinish(_:context:)`` starts, and
/// none is called after it.
///
/// ## Phases
/// | phase | waiting for | event that moves it on | next phase |
/// |---|---|---|---|
/// | `idle` | ``start()`` | start | `building` |
/// | `building` | the request builder | ``built(_:)`` | `preparing`, `sending` (no actions) or `finished` |
/// | `preparing` | actions' `prepare`, in order | ``preparationReturned(_:)``, ``actionPrepared(attempt:index:_:)`` | `sending` or `finished` |
/// | `sending` | the session's task, then its answer | ``taskCreated(_:)``, ``resumeReturned()``, ``answered(attempt:_:)`` | `observing`, or `finished` (no actions) |
/// | `observing` | `validate` and `didReceive` of every action | ``observed(_:)`` | `deciding` or `finished` |
/// | `deciding` | actions' retry decisions, in order | ``retryDecided(attempt:index:_:)`` | `deciding`, `building`, `waitingToRetry` or `finished` |
/// | `waitingToRetry` | the retry timer | ``retryTimerScheduled(_:)``, ``retryTimerFired(attempt:)`` | `building` |
/// | `finished` | nothing: every event is ignored | | |
///
/// From every phase but `finished`, ``cancel()`` finishes with ``NetworkError/cancelled``, and in
/// `preparing` ``preparationDeadlinePassed(attempt:)`` finishes with ``NetworkError/timedOut``;
/// both wait for a call-out in progress to return. An event for another attempt, for an action
/// other than the one being waited for, or in a phase that does not expect it is ignored: that is
/// how a late session callback, an action completing twice and a timer firing after a cancel
/// all come to nothing.
struct RequestStateMachine {
    /// Where the request is in its life. A phase carries no reference-counted value (the task,
    /// the failure and the timer it is about are fields of the machine), so reading and setting
    /// it copies nothing.
    enum Phase: Equatable {
        case idle
        /// The request builder makes the attempt's request.
        case building
        /// Actions prepare the attempt, from action `from` on; `awaiting` is the action whose
        /// completion moves it on, once the call-out that called it has returned.
        case preparing(from: Int, awaiting: Int?)
        /// The session has the request; ``sendingTask`` once created.
        case sending
        /// Actions validate and observe the attempt's outcome.
        case observing
        /// Action `action` is asked whether to retry after ``retryError``.
        case deciding(action: Int)
        /// Waiting for the retry timer; ``retryTimer`` once scheduled.
        case waitingToRetry
        /// Delivered, or being delivered; nothing more happens.
        case finished
    }

    /// What the operation does next. Every case but ``none`` and ``finish`` is a call-out, whose
    /// return the operation reports with the matching event.
    ///
    /// No case carries a reference-counted value, so a `Next` costs nothing to copy: what a
    /// call-out needs (a request, a task, an outcome) stays in the machine, and the operation
    /// takes it out under the same lock (``takeRequest()``, ``sendingTask``, ``takeOutcome()``,
    /// ``retryError``, ``takeFinish()``).
    enum Next: Equatable, Sendable {
        /// Nothing: wait for the next event.
        case none
        /// Build the request of `attempt`; report ``built(_:)``.
        case build(attempt: Int)
        /// Prepare the request (``takeRequest()``) with actions `from...` in order; report
        /// ``preparationReturned(_:)``.
        case prepare(attempt: Int, from: Int)
        /// Schedule a timer that reports ``preparationDeadlinePassed(attempt:)``; report
        /// ``preparationDeadlineScheduled(_:)``.
        case schedulePreparationDeadline(attempt: Int)
        /// Check the request (``takeRequest()``) and create the session's task for it; report
        /// ``taskCreated(_:)`` or ``sendRejected(_:)``. First cancel the preparation deadline,
        /// if any (``takePreparationDeadline()``).
        case send(attempt: Int)
        /// Resume the task (``sendingTask``); report ``resumeReturned()``.
        case resume
        /// Validate and observe the outcome (``takeOutcome()``) with every action; report
        /// ``observed(_:)``.
        case observe(attempt: Int)
        /// Ask action `action` whether to retry after ``retryError``; report
        /// ``retryDecisionReturned()``.
        case askRetry(attempt: Int, action: Int)
        /// Schedule the retry timer after `delay` seconds; report ``retryTimerScheduled(_:)``.
        case scheduleRetry(attempt: Int, delay: TimeInterval)
        /// Deliver what ``takeFinish()`` says: nothing follows.
        case finish
    }

    /// How a request ends.
    struct Finish {
        /// The outcome, before the caller's transform (decoding).
        let result: Result<NetworkResponse, NetworkError>
        /// Whether an action has seen the request, so every action gets `didFinish`. A request
        /// that could not be built, or was cancelled before it started, never reaches them.
        let notifiesActions: Bool
        /// The attempt that finished.
        let attempt: Int
        /// The session task still running, to cancel.
        let taskToCancel: (any NetworkSessionTask)?
        /// Timers still pending (a retry timer, a preparation deadline), to cancel.
        let timersToCancel: [any NetworkCancellable]
    }

    /// What a preparation call-out ends with.
    enum PreparationOutcome {
        /// Every action has prepared the request.
        case prepared(URLRequest)
        /// An action failed the request.
        case failed(NetworkError)
        /// Action `index` was called and completes later (or completed during the call).
        case waiting(forAction: Int)
    }

    /// A completion that arrived while a call-out was running, taken up when it returns. What
    /// it brought waits in ``request``, ``failure`` or ``outcome``, so that it is moved, never
    /// copied, on its way through.
    private enum Pending {
        /// The request builder returned.
        case built
        /// Action `index` completed its preparation.
        case actionPrepared(index: Int)
        /// The session answered.
        case answered
        case retryDecided(index: Int, RetryDecision)
        case retryTimerFired
    }

    /// The number of actions of the module.
    let actionCount: Int
    /// The most attempts one request makes; after the last, its failure is delivered.
    let maximumAttempts: Int

    private(set) var phase = Phase.idle
    /// In `sending`, the session's task once created: what ``Next/resume`` resumes and a
    /// cancel cancels.
    private(set) var sendingTask: (any NetworkSessionTask)?
    /// In `deciding`, the failure that ``Next/askRetry(attempt:action:)`` asks about.
    private(set) var retryError: NetworkError?
    /// In `waitingToRetry`, the retry timer once scheduled.
    private(set) var retryTimer: (any NetworkCancellable)?
    /// The attempt, counting from 1.
    private(set) var attempt = 1
    /// Whether the operation is inside a call-out that this machine asked for.
    private(set) var isCallingOut = false
    /// A completion that arrived during the call-out.
    private var pending: Pending?
    /// A cancel (``NetworkError/cancelled``) or timeout (``NetworkError/timedOut``) that arrived
    /// during the call-out.
    private var pendingEnd: NetworkError?
    /// Whether an action has been handed the request.
    private var actionsInvolved = false
    /// The current attempt's preparation deadline, once scheduled.
    private var preparationDeadline: (any NetworkCancellable)?
    /// Whether the current attempt's preparation deadline was asked for.
    private var hasPreparationDeadline = false
    /// The request that ``Next/prepare(attempt:from:)`` or ``Next/send(attempt:)`` is about:
    /// taking it out leaves it with one owner, and a write to a `URLRequest` whose storage is
    /// shared copies all of it.
    private var request: URLRequest?
    /// The failure that a request builder or an action completed with, instead of a request.
    private var failure: NetworkError?
    /// The outcome that ``Next/observe(attempt:)`` is about.
    private var outcome: Result<NetworkResponse, NetworkError>?
    /// How the request ended, once ``Next/finish`` said so.
    private(set) var finishing: Finish?

    /// A machine for a module with `actionCount` actions, making at most `maximumAttempts`
    /// attempts (at least one).
    init(actionCount: Int, maximumAttempts: Int) {
        self.actionCount = max(0, actionCount)
        self.maximumAttempts = max(1, maximumAttempts)
    }

    // MARK: - What a call-out needs

    /// Moves out the request that ``Next/prepare(attempt:from:)`` asks to prepare, or that
    /// ``Next/send(attempt:)`` asks to send.
    mutating func takeRequest() -> URLRequest? {
        request.take()
    }

    /// Moves out the preparation deadline that ``Next/send(attempt:)`` asks to cancel.
    mutating func takePreparationDeadline() -> (any NetworkCancellable)? {
        preparationDeadline.take()
    }

    /// Moves out the outcome that ``Next/observe(attempt:)`` asks the actions to observe.
    mutating func takeOutcome() -> Result<NetworkResponse, NetworkError>? {
        outcome.take()
    }

    /// Moves out how the request ended, once ``Next/finish`` said so.
    mutating func takeFinish() -> Finish? {
        finishing.take()
    }

    /// Whether the request has finished.
    var isFinished: Bool {
        if case .finished = phase { true } else { false }
    }

    // MARK: - Events: starting, cancelling, timing out

    /// `perform` was called.
    mutating func start() -> Next {
        guard case .idle = phase else { return .none }
        phase = .building
        return callOut(.build(attempt: attempt))
    }

    /// The caller cancelled the request.
    mutating func cancel() -> Next {
        end(with: .cancelled)
    }

    /// The preparation deadline of `attempt` passed: the actions took longer than the request's
    /// timeout.
    mutating func preparationDeadlinePassed(attempt: Int) -> Next {
        guard attempt == self.attempt, case .preparing = phase else { return .none }
        return end(with: .timedOut)
    }

    // MARK: - Events: call-outs returning

    /// The request builder returned (the ``Next/build(attempt:)`` call-out).
    mutating func built(_ result: Result<URLRequest, NetworkError>) -> Next {
        guard case .building = phase, isCallingOut else { return .none }
        keep(result)
        return returned(.built)
    }

    /// The preparation call-out returned.
    mutating func preparationReturned(_ outcome: PreparationOutcome) -> Next {
        guard case .preparing(let from, nil) = phase, isCallingOut else { return .none }
        switch outcome {
        case .prepared(let request):
            keep(.success(request))
            return returned(.actionPrepared(index: actionCount - 1))
        case .failed(let error):
            keep(.failure(error))
            return returned(.actionPrepared(index: actionCount - 1))
        case .waiting(let index):
            phase = .preparing(from: from, awaiting: index)
            if case .actionPrepared(index)? = pending {
                return returned(nil)
            }
            pending = nil
            keep(nil)
            if !hasPreparationDeadline, pendingEnd == nil {
                // The first wait of this attempt: bound it by the request's timeout.
                hasPreparationDeadline = true
                return .schedulePreparationDeadline(attempt: attempt)
            }
            return returned(nil)
        }
    }

    /// The preparation deadline was scheduled.
    mutating func preparationDeadlineScheduled(_ deadline: any NetworkCancellable) -> Next {
        guard isCallingOut, case .preparing(_, _?) = phase else {
            deadline.cancel()
            return .none
        }
        preparationDeadline = deadline
        return returned(nil)
    }

    /// The session created its task for the request (the ``Next/send(attempt:)`` call-out).
    mutating func taskCreated(_ task: any NetworkSessionTask) -> Next {
        guard phase == .sending, sendingTask == nil, isCallingOut else { return .none }
        sendingTask = task
        if pendingEnd != nil || pending != nil { return returned(nil) }
        // Still calling out: resuming is the next call-out.
        return .resume
    }

    /// The request was refused before the session got it (an invalid header field).
    mutating func sendRejected(_ error: NetworkError) -> Next {
        guard phase == .sending, sendingTask == nil, isCallingOut else { return .none }
        isCallingOut = false
        pending = nil
        return finish(.failure(pendingEnd ?? error))
    }

    /// `resume()` returned.
    mutating func resumeReturned() -> Next {
        guard phase == .sending, sendingTask != nil, isCallingOut else { return .none }
        return returned(nil)
    }

    /// The actions validated and observed the attempt's outcome; `result` is the outcome after
    /// validation.
    mutating func observed(_ result: Result<NetworkResponse, NetworkError>) -> Next {
        guard case .observing = phase, isCallingOut else { return .none }
        isCallingOut = false
        if let pendingEnd { return finish(.failure(pendingEnd)) }
        return decide(after: result)
    }

    /// An action's `retryDecision` call returned.
    mutating func retryDecisionReturned() -> Next {
        guard case .deciding = phase, isCallingOut else { return .none }
        return returned(nil)
    }

    /// The retry timer was scheduled.
    mutating func retryTimerScheduled(_ timer: any NetworkCancellable) -> Next {
        guard phase == .waitingToRetry, retryTimer == nil, isCallingOut else {
            timer.cancel()
            return .none
        }
        retryTimer = timer
        return returned(nil)
    }

    // MARK: - Events: completions

    /// Action `index` completed its preparation of `attempt`.
    mutating func actionPrepared(attempt: Int, index: Int, _ result: Result<URLRequest, NetworkError>) -> Next {
        guard attempt == self.attempt, case .preparing(let from, let awaiting) = phase else { return .none }
        if let awaiting {
            // (A call-out may still be running: scheduling the preparation deadline.)
            guard index == awaiting else { return .none }
            return arrived(.actionPrepared(index: index)) { $0.keep(result) }
        }
        // The preparation call-out is running: only the action it called can complete.
        guard isCallingOut, index >= from, pending == nil else { return .none }
        keep(result)
        pending = .actionPrepared(index: index)
        return .none
    }

    /// The session answered `attempt`.
    mutating func answered(attempt: Int, _ result: Result<NetworkResponse, NetworkError>) -> Next {
        guard attempt == self.attempt, case .sending = phase else { return .none }
        return arrived(.answered) { $0.outcome = result }
    }

    /// Action `index` decided about retrying `attempt`.
    mutating func retryDecided(attempt: Int, index: Int, _ decision: RetryDecision) -> Next {
        guard attempt == self.attempt, phase == .deciding(action: index) else { return .none }
        return arrived(.retryDecided(index: index, decision)) { _ in }
    }

    /// The retry timer after `attempt` fired.
    mutating func retryTimerFired(attempt: Int) -> Next {
        guard attempt == self.attempt, case .waitingToRetry = phase else { return .none }
        return arrived(.retryTimerFired) { _ in }
    }

    // MARK: - Transitions

    /// Marks a call-out as running and returns it.
    private mutating func callOut(_ next: Next) -> Next {
        isCallingOut = true
        return next
    }

    /// A completion arrived: kept if a call-out is running (the first one only), handled at once
    /// otherwise. `keep` stores what it brought, if it is taken.
    private mutating func arrived(_ completion: Pending, keep: (inout Self) -> Void) -> Next {
        if isCallingOut {
            guard pending == nil else { return .none }
            keep(&self)
            pending = completion
            return .none
        }
        keep(&self)
        return handle(completion)
    }

    /// Stores what a request builder or an action completed with, or clears it (`nil`).
    private mutating func keep(_ result: Result<URLRequest, NetworkError>?) {
        switch result {
        case .success(let request)?:
            self.request = request
            failure = nil
        case .failure(let error)?:
            request = nil
            failure = error
        case nil:
            request = nil
            failure = nil
        }
    }

    /// The running call-out returned, bringing `result` (or nothing): goes on with a cancel or
    /// timeout that came meanwhile, else with `result` or a completion that came meanwhile,
    /// else waits.
    private mutating func returned(_ result: Pending?) -> Next {
        isCallingOut = false
        let completion = result ?? pending
        pending = nil
        if let pendingEnd { return finish(.failure(pendingEnd)) }
        guard let completion else { return .none }
        return handle(completion)
    }

    /// Moves on from a completion, with no call-out running.
    private mutating func handle(_ completion: Pending) -> Next {
        switch completion {
        case .built:
            if let failure = failure.take() { return finish(.failure(failure)) }
            return startPreparing(from: 0)
        case .actionPrepared(let index):
            if let failure = failure.take() { return finish(.failure(failure)) }
            return startPreparing(from: index + 1)
        case .answered:
            // The task is done: finishing from here on has nothing to cancel.
            phase = .observing
            sendingTask = nil
            guard actionCount > 0 else { return finish(outcome.take() ?? .failure(.invalidResponse)) }
            return callOut(.observe(attempt: attempt))
        case .retryDecided(let index, let decision):
            guard case .deciding = phase, let error = retryError else { return .none }
            switch decision {
            case .doNotRetry:
                guard index + 1 < actionCount else { return finish(.failure(error)) }
                phase = .deciding(action: index + 1)
                return callOut(.askRetry(attempt: attempt, action: index + 1))
            case .retry:
                return startNextAttempt()
            case .retryAfter(let delay):
                retryError = nil
                phase = .waitingToRetry
                return callOut(.scheduleRetry(attempt: attempt, delay: delay))
            }
        case .retryTimerFired:
            retryTimer = nil
            return startNextAttempt()
        }
    }

    /// Prepares ``request`` with actions `from...`, or sends it when none is left.
    private mutating func startPreparing(from index: Int) -> Next {
        guard index < actionCount else {
            phase = .sending
            return callOut(.send(attempt: attempt))
        }
        actionsInvolved = true
        phase = .preparing(from: index, awaiting: nil)
        return callOut(.prepare(attempt: attempt, from: index))
    }

    /// After the actions observed an attempt: delivers a success, a cancellation or the last
    /// attempt's failure; otherwise asks the actions about a retry.
    private mutating func decide(after result: Result<NetworkResponse, NetworkError>) -> Next {
        guard case .failure(let error) = result, error != .cancelled, attempt < maximumAttempts else {
            return finish(result)
        }
        retryError = error
        phase = .deciding(action: 0)
        return callOut(.askRetry(attempt: attempt, action: 0))
    }

    private mutating func startNextAttempt() -> Next {
        attempt += 1
        hasPreparationDeadline = false
        retryError = nil
        phase = .building
        return callOut(.build(attempt: attempt))
    }

    /// Ends the request with `error` now, or when the running call-out returns.
    private mutating func end(with error: NetworkError) -> Next {
        switch phase {
        case .finished:
            return .none
        case .idle:
            return finish(.failure(error))
        default:
            if isCallingOut {
                if pendingEnd == nil { pendingEnd = error }
                return .none
            }
            return finish(.failure(error))
        }
    }

    /// Moves to `finished` and says what to deliver and what to stop.
    private mutating func finish(_ result: Result<NetworkResponse, NetworkError>) -> Next {
        let task = sendingTask.take()
        var timers: [any NetworkCancellable] = []
        if let timer = retryTimer.take() { timers.append(timer) }
        if let deadline = preparationDeadline.take() { timers.append(deadline) }
        retryError = nil
        phase = .finished
        request = nil
        failure = nil
        outcome = nil
        isCallingOut = false
        pending = nil
        pendingEnd = nil
        finishing = Finish(
            result: result, notifiesActions: actionsInvolved, attempt: attempt, taskToCancel: task,
            timersToCancel: timers)
        return .finish
    }
}
