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
    /// Where the request is in its life.
    enum Phase {
        case idle
        /// The request builder makes the attempt's request.
        case building
        /// Actions prepare the attempt, from action `from` on; `awaiting` is the action whose
        /// completion moves it on, once the call-out that called it has returned.
        case preparing(from: Int, awaiting: Int?)
        /// The session has the request; `task` once created.
        case sending(task: (any NetworkSessionTask)?)
        /// Actions validate and observe the attempt's outcome.
        case observing
        /// Action `action` is asked whether to retry after `error`.
        case deciding(action: Int, error: NetworkError)
        /// Waiting for the retry timer; `timer` once scheduled.
        case waitingToRetry(timer: (any NetworkCancellable)?)
        /// Delivered, or being delivered; nothing more happens.
        case finished
    }

    /// What the operation does next. Every case but ``none`` and ``finish(_:)`` is a call-out,
    /// whose return the operation reports with the matching event.
    enum Next {
        /// Nothing: wait for the next event.
        case none
        /// Build the request of `attempt`; report ``built(_:)``.
        case build(attempt: Int)
        /// Prepare the request (take it with ``takeRequestToPrepare()``) with actions `from...`
        /// in order; report ``preparationReturned(_:)``.
        case prepare(attempt: Int, from: Int)
        /// Schedule a timer that reports ``preparationDeadlinePassed(attempt:)``; report
        /// ``preparationDeadlineScheduled(_:)``.
        case schedulePreparationDeadline(attempt: Int)
        /// Check `request` and create the session's task for it; report ``taskCreated(_:)`` or
        /// ``sendRejected(_:)``. First cancel `preparationDeadline`, if any.
        case send(attempt: Int, request: URLRequest, preparationDeadline: (any NetworkCancellable)?)
        /// Resume `task`; report ``resumeReturned()``.
        case resume(any NetworkSessionTask)
        /// Validate and observe `result` with every action; report ``observed(_:)``.
        case observe(attempt: Int, result: Result<NetworkResponse, NetworkError>)
        /// Ask action `action` whether to retry after `error`; report ``retryDecisionReturned()``.
        case askRetry(attempt: Int, action: Int, error: NetworkError)
        /// Schedule the retry timer after `delay` seconds; report ``retryTimerScheduled(_:)``.
        case scheduleRetry(attempt: Int, delay: TimeInterval)
        /// Deliver: nothing follows.
        case finish(Finish)
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

    /// A completion that arrived while a call-out was running, taken up when it returns.
    private enum Pending {
        case built(Result<URLRequest, NetworkError>)
        case actionPrepared(index: Int, Result<URLRequest, NetworkError>)
        case answered(Result<NetworkResponse, NetworkError>)
        case retryDecided(index: Int, RetryDecision)
        case retryTimerFired
    }

    /// The number of actions of the module.
    let actionCount: Int
    /// The most attempts one request makes; after the last, its failure is delivered.
    let maximumAttempts: Int

    private(set) var phase = Phase.idle
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
    /// The request that ``Next/prepare(attempt:from:)`` is about: held here, not in the `Next`,
    /// so that taking it out leaves it with one owner (a write to a `URLRequest` whose storage
    /// is shared copies all of it).
    private var requestToPrepare: URLRequest?

    /// A machine for a module with `actionCount` actions, making at most `maximumAttempts`
    /// attempts (at least one).
    init(actionCount: Int, maximumAttempts: Int) {
        self.actionCount = max(0, actionCount)
        self.maximumAttempts = max(1, maximumAttempts)
    }

    /// Moves out the request that ``Next/prepare(attempt:from:)`` asks to prepare.
    mutating func takeRequestToPrepare() -> URLRequest? {
        requestToPrepare.take()
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
        return returned(.built(result))
    }

    /// The preparation call-out returned.
    mutating func preparationReturned(_ outcome: PreparationOutcome) -> Next {
        guard case .preparing(let from, nil) = phase, isCallingOut else { return .none }
        switch outcome {
        case .prepared(let request):
            return returned(.actionPrepared(index: actionCount - 1, .success(request)))
        case .failed(let error):
            return returned(.actionPrepared(index: actionCount - 1, .failure(error)))
        case .waiting(let index):
            phase = .preparing(from: from, awaiting: index)
            if case .actionPrepared(index, _)? = pending {
                return returned(nil)
            }
            pending = nil
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

    /// The session created its task for the request (the ``Next/send(attempt:request:preparationDeadline:)``
    /// call-out).
    mutating func taskCreated(_ task: any NetworkSessionTask) -> Next {
        guard case .sending(nil) = phase, isCallingOut else { return .none }
        phase = .sending(task: task)
        if pendingEnd != nil || pending != nil { return returned(nil) }
        // Still calling out: resuming is the next call-out.
        return .resume(task)
    }

    /// The request was refused before the session got it (an invalid header field).
    mutating func sendRejected(_ error: NetworkError) -> Next {
        guard case .sending(nil) = phase, isCallingOut else { return .none }
        isCallingOut = false
        pending = nil
        return finish(.failure(pendingEnd ?? error))
    }

    /// `resume()` returned.
    mutating func resumeReturned() -> Next {
        guard case .sending(_?) = phase, isCallingOut else { return .none }
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
        guard case .waitingToRetry(nil) = phase, isCallingOut else {
            timer.cancel()
            return .none
        }
        phase = .waitingToRetry(timer: timer)
        return returned(nil)
    }

    // MARK: - Events: completions

    /// Action `index` completed its preparation of `attempt`.
    mutating func actionPrepared(attempt: Int, index: Int, _ result: Result<URLRequest, NetworkError>) -> Next {
        guard attempt == self.attempt, case .preparing(let from, let awaiting) = phase else { return .none }
        if let awaiting {
            // (A call-out may still be running: scheduling the preparation deadline.)
            guard index == awaiting else { return .none }
            return arrived(.actionPrepared(index: index, result))
        }
        // The preparation call-out is running: only the action it called can complete.
        guard isCallingOut, index >= from, pending == nil else { return .none }
        pending = .actionPrepared(index: index, result)
        return .none
    }

    /// The session answered `attempt`.
    mutating func answered(attempt: Int, _ result: Result<NetworkResponse, NetworkError>) -> Next {
        guard attempt == self.attempt, case .sending = phase else { return .none }
        return arrived(.answered(result))
    }

    /// Action `index` decided about retrying `attempt`.
    mutating func retryDecided(attempt: Int, index: Int, _ decision: RetryDecision) -> Next {
        guard attempt == self.attempt, case .deciding(let action, _) = phase, action == index else { return .none }
        return arrived(.retryDecided(index: index, decision))
    }

    /// The retry timer after `attempt` fired.
    mutating func retryTimerFired(attempt: Int) -> Next {
        guard attempt == self.attempt, case .waitingToRetry = phase else { return .none }
        return arrived(.retryTimerFired)
    }

    // MARK: - Transitions

    /// Marks a call-out as running and returns it.
    private mutating func callOut(_ next: Next) -> Next {
        isCallingOut = true
        return next
    }

    /// A completion arrived: kept if a call-out is running, handled at once otherwise.
    private mutating func arrived(_ completion: Pending) -> Next {
        if isCallingOut {
            if pending == nil { pending = completion }
            return .none
        }
        return handle(completion)
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
        case .built(.success(let request)):
            return startPreparing(request, from: 0)
        case .built(.failure(let error)):
            return finish(.failure(error))
        case .actionPrepared(let index, .success(let request)):
            return startPreparing(request, from: index + 1)
        case .actionPrepared(_, .failure(let error)):
            return finish(.failure(error))
        case .answered(let result):
            // The task is done: finishing from here on has nothing to cancel.
            phase = .observing
            guard actionCount > 0 else { return finish(result) }
            return callOut(.observe(attempt: attempt, result: result))
        case .retryDecided(let index, let decision):
            guard case .deciding(_, let error) = phase else { return .none }
            switch decision {
            case .doNotRetry:
                guard index + 1 < actionCount else { return finish(.failure(error)) }
                phase = .deciding(action: index + 1, error: error)
                return callOut(.askRetry(attempt: attempt, action: index + 1, error: error))
            case .retry:
                return startNextAttempt()
            case .retryAfter(let delay):
                phase = .waitingToRetry(timer: nil)
                return callOut(.scheduleRetry(attempt: attempt, delay: delay))
            }
        case .retryTimerFired:
            if case .waitingToRetry = phase { phase = .waitingToRetry(timer: nil) }
            return startNextAttempt()
        }
    }

    /// Prepares `request` with actions `from...`, or sends it when none is left.
    private mutating func startPreparing(_ request: URLRequest, from index: Int) -> Next {
        guard index < actionCount else {
            let deadline = preparationDeadline
            preparationDeadline = nil
            phase = .sending(task: nil)
            return callOut(.send(attempt: attempt, request: request, preparationDeadline: deadline))
        }
        actionsInvolved = true
        phase = .preparing(from: index, awaiting: nil)
        requestToPrepare = request
        return callOut(.prepare(attempt: attempt, from: index))
    }

    /// After the actions observed an attempt: delivers a success, a cancellation or the last
    /// attempt's failure; otherwise asks the actions about a retry.
    private mutating func decide(after result: Result<NetworkResponse, NetworkError>) -> Next {
        guard case .failure(let error) = result, error != .cancelled, attempt < maximumAttempts else {
            return finish(result)
        }
        phase = .deciding(action: 0, error: error)
        return callOut(.askRetry(attempt: attempt, action: 0, error: error))
    }

    private mutating func startNextAttempt() -> Next {
        attempt += 1
        hasPreparationDeadline = false
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
        var task: (any NetworkSessionTask)?
        var timers: [any NetworkCancellable] = []
        switch phase {
        case .sending(let sessionTask): task = sessionTask
        case .waitingToRetry(let timer?): timers.append(timer)
        default: break
        }
        if let preparationDeadline { timers.append(preparationDeadline) }
        preparationDeadline = nil
        phase = .finished
        requestToPrepare = nil
        isCallingOut = false
        pending = nil
        pendingEnd = nil
        return .finish(
            Finish(
                result: result, notifiesActions: actionsInvolved, attempt: attempt, taskToCancel: task,
                timersToCancel: timers))
    }
}
