import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life of one request, as a value: a method per event that returns what to do next
/// (``Next``). ``RequestOperation`` feeds every event in under its lock and performs each
/// call-out outside it (CONTRIBUTING.md, "The walk of one request"). Nothing here touches a
/// thread, a clock or a session, so every (phase, event) pair is a unit test
/// (`RequestStateMachineTests`).
///
/// The one holder of the request's state. A ``Phase``, a ``CallOut`` and a ``Next`` each carry
/// what their state is about, so a state that cannot exist cannot be written; besides them, the
/// caller's completion, the current attempt's body stream, the ``Facts`` of ``ActionContext``
/// and the request on its way to be prepared or sent (``request``). Time comes in with each
/// event (``handle(at:_:)``).
///
/// One call-out at a time: a completion that arrives while one runs (an action or a session
/// answering inside the call) is kept in the ``CallOut`` and taken up when it returns, so the
/// loop goes on instead of recursing. A cancel or a timeout meanwhile is kept too and wins when
/// the call-out returns: no hook is running when ``NetworkModuleAction/didFinish(_:context:)``
/// starts, and none is called after it.
///
/// ## Phases
/// | phase | waiting for | event that moves it on | next phase |
/// |---|---|---|---|
/// | `idle` | ``start()`` | start | `building` |
/// | `building` | the request builder | ``built(_:bodyStream:)`` | `preparing`, `sending` (no actions) or `delivering` |
/// | `preparing` | actions' `prepare`, in order | ``preparationReturned(_:)``, ``actionPrepared(attempt:index:_:)`` | `sending` or `delivering` |
/// | `sending` | the session's task, then its answer | ``taskCreated(_:)``, ``resumeReturned()``, ``answered(attempt:_:)`` | `observing`, or `delivering` (no actions) |
/// | `observing` | `validate` and `didReceive` of every action | ``observed(_:)`` | `deciding` or `delivering` |
/// | `deciding` | actions' retry decisions, in order | ``retryDecided(attempt:index:_:)`` | `deciding`, `building`, `waitingToRetry` or `delivering` |
/// | `waitingToRetry` | the retry timer | ``retryTimerScheduled(_:)``, ``retryTimerFired(attempt:)`` | `building` |
/// | `delivering` | the completion executor to run the delivery | ``deliveryStarted()`` | `finished` |
/// | `finished` | nothing: every event is ignored | | |
///
/// From every phase before `delivering`, ``cancel()`` finishes with ``NetworkError/cancelled``, and in
/// `preparing` ``preparationDeadlinePassed(attempt:)`` finishes with ``NetworkError/timedOut``;
/// both wait for a call-out in progress to return. An event for another attempt, for an action
/// other than the one being waited for, or in a phase that does not expect it is ignored: that is
/// how a late session callback, an action completing twice and a timer firing after a cancel
/// all come to nothing.
///
/// Delivering is two steps: ``Next/finish(_:)`` decides the outcome and `didFinish` sees it,
/// once; a ``cancel()`` before the executor runs the delivery makes ``deliveryStarted()`` answer
/// ``Delivery/cancelled``: once `cancel()` has returned, a completion that has not started is
/// `.cancelled`.
struct RequestStateMachine {
    /// Where the request is in its life, with what that part of its life is about.
    enum Phase {
        case idle
        /// The request builder makes the attempt's request.
        case building
        /// Actions prepare the attempt, from action `from` on; `awaiting` is the action whose
        /// completion moves it on, once the call-out that called it has returned.
        case preparing(from: Int, awaiting: Int?, deadline: PreparationDeadline)
        /// The session has the request; its task once created.
        case sending(task: (any NetworkSessionTask)?)
        /// Actions validate and observe the attempt's outcome.
        case observing
        /// Action `action` is asked whether to retry after `error`.
        case deciding(action: Int, error: NetworkError)
        /// Waiting for the retry timer, once scheduled.
        case waitingToRetry(timer: (any NetworkCancellable)?)
        /// The outcome is decided (``Next/finish(_:)``), and its delivery on its way to the
        /// completion executor; `cancelled` once ``cancel()`` has come since.
        case delivering(cancelled: Bool)
        /// The delivery has started (``deliveryStarted()``); nothing more happens.
        case finished
    }

    /// The bound on the wait for the actions of one attempt: asked for at the first wait, then
    /// scheduled; cancelled when the request is sent or ends.
    enum PreparationDeadline {
        case unset
        /// Being scheduled: the ``Next/schedulePreparationDeadline(attempt:timeout:)`` call-out runs.
        case asked
        case scheduled(any NetworkCancellable)
    }

    /// What the operation does next, with what it needs to do it, moved out of the machine.
    /// Every case but ``none`` and ``finish(_:)`` is a call-out, whose return the operation
    /// reports with the matching event.
    enum Next {
        /// Nothing: wait for the next event.
        case none
        /// Build the request of `attempt`; report ``built(_:bodyStream:)``.
        case build(attempt: Int)
        /// Prepare the request (``takeRequest()``) with actions `from...` in order, their context
        /// made of `facts`; report ``preparationReturned(_:)``.
        case prepare(attempt: Int, from: Int, facts: Facts)
        /// Schedule a timer, `timeout` seconds as the request said (``RequestTimeout``), that
        /// reports ``preparationDeadlinePassed(attempt:)``; report
        /// ``preparationDeadlineScheduled(_:)``.
        case schedulePreparationDeadline(attempt: Int, timeout: TimeInterval)
        /// Cancel the preparation `deadline`, if any, check the request (``takeRequest()``) and
        /// create the session's task for it; report ``taskCreated(_:)`` or ``sendRejected(_:)``.
        case send(attempt: Int, deadline: (any NetworkCancellable)?)
        /// Resume `task`; report ``resumeReturned()``.
        case resume(any NetworkSessionTask)
        /// Validate and observe `outcome` with every action; report ``observed(_:)``.
        case observe(attempt: Int, outcome: Result<NetworkResponse, NetworkError>, facts: Facts)
        /// Ask action `action` whether to retry after `error`; report ``retryDecisionReturned()``.
        case askRetry(attempt: Int, action: Int, error: NetworkError, facts: Facts)
        /// Schedule the retry timer after `delay` seconds; report ``retryTimerScheduled(_:)``.
        case scheduleRetry(attempt: Int, delay: TimeInterval)
        /// End the request: let the actions see the outcome, and hand its delivery to the
        /// completion executor, which reports ``deliveryStarted()`` and delivers what it answers.
        case finish(Finish)
    }

    /// What the completion executor delivers, once it runs the delivery.
    enum Delivery: Equatable {
        /// The outcome of ``Next/finish(_:)``, as the caller's transform made it.
        case result
        /// ``NetworkError/cancelled``: the caller cancelled after the outcome was decided.
        case cancelled
        /// Nothing: the delivery has started already.
        case none
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
        /// The timer still pending (the retry timer, or the preparation deadline), to cancel.
        let timerToCancel: (any NetworkCancellable)?
        /// The body stream of the last attempt, to release before the caller hears of the end.
        let bodyStream: InputStream?
        /// The caller's completion; `nil` in the machine that has finished once already.
        let completion: RequestOperation.Completion?
        /// For the actions' `didFinish`.
        let facts: Facts
    }

    /// What the actions learn about the request through ``ActionContext``, over all attempts.
    struct Facts {
        /// The request as the session last got it.
        var sentRequest: URLRequest?
        var preparationNanoseconds: UInt64 = 0
        var inFlightNanoseconds: UInt64 = 0
        var bytesSent = 0
        var bytesReceived = 0
        /// What the session observed of the last attempt answered (``AttemptRecorder``), when
        /// an action reads it.
        var recorder: AttemptRecorder?
    }

    /// What the machine's clock counts, for ``Facts``.
    enum Clock {
        case preparing, inFlight, stopped
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

    /// A call-out in progress, and what arrived while it ran.
    struct CallOut {
        /// The first completion that arrived during the call-out, taken up when it returns.
        var arrival: Arrival?
        /// A cancel (``NetworkError/cancelled``) or timeout (``NetworkError/timedOut``) that
        /// arrived during the call-out: it ends the request when the call-out returns.
        var end: NetworkError?
    }

    /// A completion, with what it brought.
    enum Arrival {
        /// The request builder returned.
        case built(Result<URLRequest, NetworkError>)
        /// Action `index` completed its preparation.
        case actionPrepared(index: Int, Result<URLRequest, NetworkError>)
        /// The session answered.
        case answered(Result<NetworkResponse, NetworkError>)
        /// Action `index` decided about a retry.
        case retryDecided(index: Int, RetryDecision)
        /// The retry timer fired.
        case retryTimerFired
    }

    /// The number of actions of the module.
    let actionCount: Int
    /// The most attempts one request makes; after the last, its failure is delivered.
    let maximumAttempts: Int

    private(set) var phase = Phase.idle
    /// The attempt, counting from 1.
    private(set) var attempt = 1
    /// The call-out this machine asked for, while the operation is inside it.
    private(set) var callOut: CallOut?
    /// Whether an action has been handed the request.
    private var actionsInvolved = false
    /// The caller's completion, until ``Next/finish(_:)`` hands it out.
    private var completion: RequestOperation.Completion?
    /// The body stream the builder made for the current attempt, released (its temporary file
    /// removed) when the next attempt is built or the request ends.
    private var bodyStream: InputStream?
    private(set) var facts = Facts()
    /// The time of the event being handled (``handle(at:_:)``), in uptime nanoseconds.
    private var now: UInt64 = 0
    /// What the clock is counting, and since when.
    private(set) var clock = Clock.stopped
    private var clockStartedAt: UInt64 = 0
    /// The timeout of the request being prepared: bounds the wait for its actions.
    private var preparationTimeout: TimeInterval = 60
    /// The request that ``Next/prepare(attempt:from:facts:)`` or ``Next/send(attempt:deadline:)``
    /// is about, until the operation takes it (``takeRequest()``). Not in the `Next`: bound out
    /// of an enum's payload it keeps a second owner, and the preparation's first write would copy
    /// it whole (docs/performance.md).
    private var request: URLRequest?

    /// A machine for a module with `actionCount` actions, making at most `maximumAttempts`
    /// attempts (at least one), that hands `completion` the outcome.
    init(actionCount: Int, maximumAttempts: Int, completion: RequestOperation.Completion?) {
        self.actionCount = max(0, actionCount)
        self.maximumAttempts = max(1, maximumAttempts)
        self.completion = completion
    }

    /// Applies `event`, which happens at `now` (uptime nanoseconds): how the operation feeds
    /// every event in.
    mutating func handle(at now: UInt64, _ event: (inout Self) -> Next) -> Next {
        self.now = max(self.now, now)
        return event(&self)
    }

    /// Whether the operation is inside a call-out that this machine asked for.
    var isCallingOut: Bool { callOut != nil }

    /// Moves out the request that ``Next/prepare(attempt:from:facts:)`` or
    /// ``Next/send(attempt:deadline:)`` asks to prepare or send.
    mutating func takeRequest() -> URLRequest? {
        request.take()
    }

    /// Whether the request has finished: its outcome is decided, delivered or not.
    var isFinished: Bool {
        switch phase {
        case .delivering, .finished: true
        default: false
        }
    }

    // MARK: - Events: starting, cancelling, timing out

    /// `perform` was called.
    mutating func start() -> Next {
        guard case .idle = phase else { return .none }
        phase = .building
        restartClock(.preparing)
        return callingOut(.build(attempt: attempt))
    }

    /// The caller cancelled the request.
    mutating func cancel() -> Next {
        if case .delivering = phase {
            // Too late to stop anything, not to change what the caller gets.
            phase = .delivering(cancelled: true)
            return .none
        }
        return end(with: .cancelled)
    }

    /// The completion executor runs the delivery queued by ``Next/finish(_:)``: answers whether
    /// it delivers the outcome or ``NetworkError/cancelled``. Asked once; `.none` after that.
    mutating func deliveryStarted() -> Delivery {
        guard case .delivering(let cancelled) = phase else { return .none }
        phase = .finished
        return cancelled ? .cancelled : .result
    }

    /// The preparation deadline of `attempt` passed: the actions took longer than the request's
    /// timeout.
    mutating func preparationDeadlinePassed(attempt: Int) -> Next {
        guard attempt == self.attempt, case .preparing = phase else { return .none }
        return end(with: .timedOut)
    }

    // MARK: - Events: call-outs returning

    /// The request builder returned (the ``Next/build(attempt:)`` call-out). `bodyStream`: in,
    /// the stream it made that the request is to release; out, the one the operation releases
    /// now (the previous attempt's, or the new one if the request has ended meanwhile).
    mutating func built(_ result: Result<URLRequest, NetworkError>, bodyStream: inout InputStream?) -> Next {
        guard case .building = phase, isCallingOut else { return .none }
        swap(&self.bodyStream, &bodyStream)
        return returned(bringing: .built(result))
    }

    /// The preparation call-out returned.
    mutating func preparationReturned(_ outcome: PreparationOutcome) -> Next {
        guard case .preparing(let from, nil, let deadline) = phase, isCallingOut else { return .none }
        switch outcome {
        case .prepared(let request):
            return returned(bringing: .actionPrepared(index: actionCount - 1, .success(request)))
        case .failed(let error):
            return returned(bringing: .actionPrepared(index: actionCount - 1, .failure(error)))
        case .waiting(let index):
            let completedDuringCall = if case .actionPrepared(index, _)? = callOut?.arrival { true } else { false }
            if !completedDuringCall { callOut?.arrival = nil }
            // The first wait of this attempt is bounded by the request's timeout.
            let asksDeadline =
                if !completedDuringCall, case .unset = deadline, callOut?.end == nil { true } else { false }
            phase = .preparing(from: from, awaiting: index, deadline: asksDeadline ? .asked : deadline)
            // Scheduling it is the next call-out.
            return asksDeadline
                ? .schedulePreparationDeadline(attempt: attempt, timeout: preparationTimeout)
                : returned(bringing: nil)
        }
    }

    /// The preparation deadline was scheduled.
    mutating func preparationDeadlineScheduled(_ deadline: any NetworkCancellable) -> Next {
        guard isCallingOut, case .preparing(let from, let awaiting?, .asked) = phase else {
            deadline.cancel()
            return .none
        }
        phase = .preparing(from: from, awaiting: awaiting, deadline: .scheduled(deadline))
        return returned(bringing: nil)
    }

    /// The session created its task for the request (the ``Next/send(attempt:deadline:)``
    /// call-out).
    mutating func taskCreated(_ task: any NetworkSessionTask) -> Next {
        guard case .sending(task: .none) = phase, let callOut else { return .none }
        phase = .sending(task: task)
        if callOut.end != nil || callOut.arrival != nil { return returned(bringing: nil) }
        // Still calling out: resuming is the next call-out.
        return .resume(task)
    }

    /// The request was refused before the session got it (an invalid header field).
    mutating func sendRejected(_ error: NetworkError) -> Next {
        guard case .sending(task: .none) = phase, let callOut else { return .none }
        self.callOut = nil
        return finish(.failure(callOut.end ?? error))
    }

    /// `resume()` returned.
    mutating func resumeReturned() -> Next {
        guard case .sending(task: .some) = phase, isCallingOut else { return .none }
        return returned(bringing: nil)
    }

    /// The actions validated and observed the attempt's outcome; `result` is the outcome after
    /// validation.
    mutating func observed(_ result: Result<NetworkResponse, NetworkError>) -> Next {
        guard case .observing = phase, let callOut else { return .none }
        self.callOut = nil
        if let end = callOut.end { return finish(.failure(end)) }
        return decide(after: result)
    }

    /// An action's `retryDecision` call returned.
    mutating func retryDecisionReturned() -> Next {
        guard case .deciding = phase, isCallingOut else { return .none }
        return returned(bringing: nil)
    }

    /// The retry timer was scheduled.
    mutating func retryTimerScheduled(_ timer: any NetworkCancellable) -> Next {
        guard case .waitingToRetry(timer: .none) = phase, isCallingOut else {
            timer.cancel()
            return .none
        }
        phase = .waitingToRetry(timer: timer)
        return returned(bringing: nil)
    }

    // MARK: - Events: completions

    /// Action `index` completed its preparation of `attempt`.
    mutating func actionPrepared(attempt: Int, index: Int, _ result: Result<URLRequest, NetworkError>) -> Next {
        guard attempt == self.attempt, case .preparing(let from, let awaiting, _) = phase else { return .none }
        if let awaiting {
            // (A call-out may still be running: scheduling the preparation deadline.)
            guard index == awaiting else { return .none }
        } else {
            // The preparation call-out is running: only the action it called can complete.
            guard isCallingOut, index >= from else { return .none }
        }
        return arrived(.actionPrepared(index: index, result))
    }

    /// The session answered `attempt`, having received `receivedBytes` body bytes (counted
    /// unless the request has finished).
    mutating func answered(
        attempt: Int, _ result: Result<NetworkResponse, NetworkError>, receivedBytes: Int = 0,
        recorder: AttemptRecorder? = nil
    ) -> Next {
        if receivedBytes > 0, !isFinished {
            let (total, overflowed) = facts.bytesReceived.addingReportingOverflow(receivedBytes)
            facts.bytesReceived = overflowed ? .max : total
        }
        guard attempt == self.attempt, case .sending = phase else { return .none }
        facts.recorder = recorder
        return arrived(.answered(result))
    }

    /// Action `index` decided about retrying `attempt`.
    mutating func retryDecided(attempt: Int, index: Int, _ decision: RetryDecision) -> Next {
        guard attempt == self.attempt, case .deciding(index, _) = phase else { return .none }
        return arrived(.retryDecided(index: index, decision))
    }

    /// The retry timer after `attempt` fired.
    mutating func retryTimerFired(attempt: Int) -> Next {
        guard attempt == self.attempt, case .waitingToRetry = phase else { return .none }
        return arrived(.retryTimerFired)
    }

    // MARK: - Transitions

    /// Marks a call-out as running and returns it.
    private mutating func callingOut(_ next: Next) -> Next {
        callOut = CallOut()
        return next
    }

    /// A completion arrived: kept if a call-out is running (the first one only), handled at once
    /// otherwise.
    private mutating func arrived(_ arrival: Arrival) -> Next {
        guard isCallingOut else { return handle(arrival) }
        if callOut?.arrival == nil { callOut?.arrival = arrival }
        return .none
    }

    /// The running call-out returned, bringing `arrival` (or nothing): goes on with a cancel or
    /// timeout that came meanwhile, else with `arrival` or a completion that came meanwhile,
    /// else waits.
    private mutating func returned(bringing arrival: Arrival?) -> Next {
        // Moved out, so that what it holds (a request) has one owner on its way on.
        var callOut = self.callOut.take()
        if let end = callOut?.end { return finish(.failure(end)) }
        guard let next = arrival ?? callOut?.arrival.take() else { return .none }
        return handle(next)
    }

    /// Moves on from a completion, with no call-out running.
    private mutating func handle(_ arrival: Arrival) -> Next {
        switch arrival {
        case .built(.success(let request)):
            return startPreparing(request, from: 0)
        case .actionPrepared(let index, .success(let request)):
            return startPreparing(request, from: index + 1)
        case .built(.failure(let error)), .actionPrepared(_, .failure(let error)):
            return finish(.failure(error))
        case .answered(let outcome):
            // The task is done: finishing from here on has nothing to cancel.
            phase = .observing
            guard actionCount > 0 else { return finish(outcome) }
            restartClock(.stopped)
            return callingOut(.observe(attempt: attempt, outcome: outcome, facts: facts))
        case .retryDecided(let index, let decision):
            guard case .deciding(_, let error) = phase else { return .none }
            switch decision {
            case .doNotRetry:
                guard index + 1 < actionCount else { return finish(.failure(error)) }
                phase = .deciding(action: index + 1, error: error)
                return callingOut(.askRetry(attempt: attempt, action: index + 1, error: error, facts: facts))
            case .retry:
                return startNextAttempt()
            case .retryAfter(let delay):
                phase = .waitingToRetry(timer: nil)
                return callingOut(.scheduleRetry(attempt: attempt, delay: delay))
            }
        case .retryTimerFired:
            return startNextAttempt()
        }
    }

    /// Prepares `request` with actions `from...`, or sends it when none is left.
    private mutating func startPreparing(_ request: URLRequest, from index: Int) -> Next {
        let deadline: PreparationDeadline =
            if case .preparing(_, _, let deadline) = phase { deadline } else { .unset }
        guard index < actionCount else {
            phase = .sending(task: nil)
            let scheduled: (any NetworkCancellable)? =
                if case .scheduled(let timer) = deadline { timer } else { nil }
            recordSent(request)
            self.request = request
            return callingOut(.send(attempt: attempt, deadline: scheduled))
        }
        actionsInvolved = true
        phase = .preparing(from: index, awaiting: nil, deadline: deadline)
        preparationTimeout = request.timeoutInterval
        self.request = request
        return callingOut(.prepare(attempt: attempt, from: index, facts: facts))
    }

    /// After the actions observed an attempt: delivers a success, a cancellation or the last
    /// attempt's failure; otherwise asks the actions about a retry.
    private mutating func decide(after result: Result<NetworkResponse, NetworkError>) -> Next {
        guard case .failure(let error) = result, error != .cancelled, attempt < maximumAttempts else {
            return finish(result)
        }
        phase = .deciding(action: 0, error: error)
        return callingOut(.askRetry(attempt: attempt, action: 0, error: error, facts: facts))
    }

    private mutating func startNextAttempt() -> Next {
        attempt += 1
        phase = .building
        restartClock(.preparing)
        return callingOut(.build(attempt: attempt))
    }

    /// Ends the request with `error` now, or when the running call-out returns.
    private mutating func end(with error: NetworkError) -> Next {
        switch phase {
        case .delivering, .finished:
            return .none
        case .idle:
            return finish(.failure(error))
        default:
            guard isCallingOut else { return finish(.failure(error)) }
            if callOut?.end == nil { callOut?.end = error }
            return .none
        }
    }

    /// Moves to `delivering` and says what to deliver and what to stop.
    private mutating func finish(_ result: Result<NetworkResponse, NetworkError>) -> Next {
        var task: (any NetworkSessionTask)?
        var timer: (any NetworkCancellable)?
        switch phase {
        case .sending(let running): task = running
        case .preparing(_, _, .scheduled(let deadline)): timer = deadline
        case .waitingToRetry(let retryTimer): timer = retryTimer
        default: break
        }
        phase = .delivering(cancelled: false)
        callOut = nil
        request = nil
        restartClock(.stopped)
        return .finish(
            Finish(
                result: result, notifiesActions: actionsInvolved, attempt: attempt, taskToCancel: task,
                timerToCancel: timer, bodyStream: bodyStream.take(), completion: completion.take(), facts: facts))
    }

    // MARK: - Bookkeeping

    /// Records `request` as the one the session gets, and counts its body's bytes.
    private mutating func recordSent(_ request: URLRequest) {
        restartClock(.inFlight)
        facts.sentRequest = request
        // A stream's length only for a body the builder streamed: reading `httpBodyStream`
        // costs every request on Linux. It is the caller's word (up to `Int.max`): summed over
        // attempts, clamped.
        let sent = request.httpBody?.count ?? (bodyStream == nil ? 0 : request.knownBodyLength ?? 0)
        let (total, overflowed) = facts.bytesSent.addingReportingOverflow(sent)
        facts.bytesSent = overflowed ? .max : total
    }

    /// Adds the time since the clock last started to what it was counting, and counts `next`
    /// from now.
    private mutating func restartClock(_ next: Clock) {
        let elapsed = now >= clockStartedAt ? now - clockStartedAt : 0
        switch clock {
        case .preparing: facts.preparationNanoseconds &+= elapsed
        case .inFlight: facts.inFlightNanoseconds &+= elapsed
        case .stopped: break
        }
        clock = next
        clockStartedAt = now
    }
}
