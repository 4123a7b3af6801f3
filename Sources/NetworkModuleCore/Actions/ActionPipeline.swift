import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A module's actions around one request, in their one order, for the module's requests
/// (``RequestOperation``'s call-outs) and background transfers (``BackgroundTransfers``) alike.
///
/// The order: each action's `prepare`, in order, the wait for one that prepares later bounded by
/// the request's timeout (``RequestTimeout``); the header check, once, just before the request
/// is handed on; for each answer, every action's `validate` (the first that throws fails it)
/// and then every action's `didReceive`; at the end, every action's `didFinish`, the last hook.
/// The contexts the actions get are made here too, with the module's base URL.
struct ActionPipeline: Sendable {
    /// The module's actions, in order (a ``BuiltInAction`` as the action it was made as).
    let actions: [any NetworkModuleAction]
    /// How each action prepares, worked out once.
    let preparations: [ActionPreparation]
    let baseURL: URL?
    /// The base URL's origin, for the actions' same-origin checks.
    let baseOrigin: Origin?
    /// Bounds the wait for an action that prepares later.
    let delayScheduler: any DelayScheduler
    /// Whether an action reads what sessions observe of each attempt (``AttemptRecorder``):
    /// tracing does, and metrics where the platform measures phases. Only then does an attempt
    /// carry a recorder.
    let recordsAttempts: Bool

    init(actions: [any NetworkModuleAction], baseURL: URL? = nil, delayScheduler: any DelayScheduler) {
        let actions = actions.map { $0.unwrapped }
        self.actions = actions
        self.preparations = actions.map(ActionPreparation.init)
        self.baseURL = baseURL
        self.baseOrigin = baseURL.flatMap(Origin.init)
        self.delayScheduler = delayScheduler
        self.recordsAttempts = actions.contains { action in
            action is TracingAction || (TaskMetrics.areCollected && action is MetricsAction)
        }
    }

    // MARK: - Preparing

    /// Prepares `request` with actions `from...`, in order, as far as it goes without waiting:
    /// one step of a preparation, what ``RequestStateMachine/Next/prepare(attempt:from:facts:)`` asks.
    ///
    /// Actions that only set header fields and can do so at once edit one shared
    /// ``HeaderFieldTable``, written into the request once, before the next other action or the
    /// end: a write to a request whose storage is shared copies all of it, so one write per run of
    /// header actions keeps their cost from growing with their number. At the first other action,
    /// the framework's or the user's, the step stops: its completion, whenever it comes, goes to
    /// `onPrepared`, and the next step starts from the action after it.
    ///
    /// - Parameters:
    ///   - context: makes the attempt's context, once, if an action from `index` on prepares.
    ///   - onPrepared: receives the completion of the action whose own `prepare` was called.
    func prepare(
        _ request: consuming URLRequest, from index: Int, context makeContext: () -> ActionContext,
        onPrepared: @escaping @Sendable (Int, Result<URLRequest, NetworkError>) -> Void
    ) -> RequestStateMachine.PreparationOutcome {
        guard preparations.indices.contains(index) else { return .prepared(request) }
        // Made once, and only here: an attempt's context and URL are the same for every action
        // of the preparation, and a context is costly to copy (an existential and several
        // references).
        let context = makeContext()
        let url = request.url
        var headers: HeaderFieldTable?
        var index = index
        while index < preparations.count {
            let action: any NetworkModuleAction
            switch preparations[index] {
            case .headerFields(let headerAction):
                var table = headers.take() ?? HeaderFieldTable(takingFieldsOf: &request)
                do throws(NetworkError) {
                    let isPrepared = try headerAction.prepareHeaderFields(&table, url: url, context: context)
                    headers = table
                    if isPrepared {
                        index += 1
                        continue
                    }
                } catch {
                    return .failed(error)
                }
                action = headerAction
            case .general(let generalAction):
                action = generalAction
            }
            headers.take()?.write(to: &request)
            let actionIndex = index
            action.prepare(request, context: context) { result in
                onPrepared(actionIndex, result.mapError { NetworkError(actionError: $0, action: action) })
            }
            return .waiting(forAction: actionIndex)
        }
        headers.take()?.write(to: &request)
        return .prepared(request)
    }

    /// Prepares `request` with every action, for a background transfer, which has no
    /// ``RequestOperation``: its one attempt goes through a ``RequestStateMachine`` all the same.
    /// `completion` gets, once, the prepared and checked request where the module would send it,
    /// the first failure, ``NetworkError/timedOut`` when the request's timeout passes while an
    /// action prepares, or ``NetworkError/cancelled`` after `cancel()` on the returned handle
    /// (which, as for a module's request, waits for an action's `prepare` that is running).
    ///
    /// - Returns: the handle, and `start`, which begins the preparation: the caller keeps the
    ///   handle where a cancel finds it before any action runs.
    func preparation(
        of request: URLRequest, context: @escaping @Sendable () -> ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, NetworkError>) -> Void
    ) -> (handle: any NetworkCancellable, start: @Sendable () -> Void) {
        typealias Answer = (next: RequestStateMachine.Next, request: URLRequest?)
        var machine = RequestStateMachine(actionCount: actions.count, maximumAttempts: 1, completion: nil)
        _ = machine.start()
        let state = LockedState(machine)
        @Sendable func update(_ event: (inout RequestStateMachine) -> RequestStateMachine.Next) -> Answer {
            state.withLock { machine in (event(&machine), machine.takeRequest()) }
        }
        // The call-outs of ``RequestOperation``'s loop that a preparation makes.
        @Sendable func run(_ answer: Answer) {
            var (next, request) = answer
            while true {
                switch next {
                case .prepare(_, let from, _):
                    let outcome =
                        request.take().map {
                            prepare($0, from: from, context: context) { index, result in
                                run(update { $0.actionPrepared(attempt: 1, index: index, result) })
                            }
                        } ?? .failed(.invalidRequest(.missingURL))
                    (next, request) = update { $0.preparationReturned(outcome) }
                case .schedulePreparationDeadline(_, let timeout):
                    let deadline = preparationDeadline(after: timeout) {
                        run(update { $0.preparationDeadlinePassed(attempt: 1) })
                    }
                    (next, request) = update { $0.preparationDeadlineScheduled(deadline) }
                case .send(_, let deadline):
                    deadline?.cancel()
                    // Not `Result { … }`: the Swift 5.9 of Apple's SDKs has no typed-throws `init(catching:)`.
                    do throws(NetworkError) {
                        return completion(.success(try checked(request)))
                    } catch {
                        return completion(.failure(error))
                    }
                case .finish(let finish):
                    finish.timerToCancel?.cancel()
                    if case .failure(let error) = finish.result { completion(.failure(error)) }
                    return
                default:
                    return
                }
            }
        }
        // Built before it starts: a cancel before `start` ends it without calling an action.
        return (
            PreparationHandle { run(update { $0.cancel() }) },
            {
                var noStream: InputStream?
                run(update { $0.built(.success(request), bodyStream: &noStream) })
            }
        )
    }

    /// Runs `onExpiry` when a request whose timeout is `timeout` has waited that long for its
    /// actions (``RequestTimeout``: a value that is not a timeout counts as 60 seconds).
    func preparationDeadline(
        after timeout: TimeInterval, _ onExpiry: @escaping @Sendable () -> Void
    ) -> any NetworkCancellable {
        guard let limit = RequestTimeout(seconds: timeout).seconds else { return NoDeadline() }
        return delayScheduler.scheduleLimit(after: limit, onExpiry)
    }

    /// The prepared request, checked once before it is handed on: it has a URL, and its header
    /// fields are valid (an action may have written any).
    func checked(_ request: URLRequest?) throws(NetworkError) -> URLRequest {
        guard let request, request.url != nil else { throw .invalidRequest(.missingURL) }
        try HeaderValidation.validate(request)
        return request
    }

    // MARK: - The answer and the end

    /// `result` as the actions judge it: a success goes through each action's `validate` in
    /// order, and the first that throws turns it into that action's error; a failure stays as
    /// it is.
    func validated(
        _ result: Result<NetworkResponse, NetworkError>, context: ActionContext
    ) -> Result<NetworkResponse, NetworkError> {
        guard case .success(let response) = result else { return result }
        for action in actions {
            do {
                try action.validate(response, context: context)
            } catch {
                return .failure(NetworkError(actionError: error, action: action))
            }
        }
        return result
    }

    /// Lets every action validate, then observe (`didReceive`), an answer; returns it as
    /// validated.
    func observe(
        _ result: Result<NetworkResponse, NetworkError>, context: ActionContext
    ) -> Result<NetworkResponse, NetworkError> {
        let result = validated(result, context: context)
        for action in actions { action.didReceive(result, context: context) }
        return result
    }

    /// Lets every action see the request's outcome (`didFinish`); the context is made only if
    /// there is an action.
    func finish(_ result: Result<NetworkResponse, NetworkError>, context: @autoclosure () -> ActionContext) {
        guard !actions.isEmpty else { return }
        let context = context()
        for action in actions { action.didFinish(result, context: context) }
    }

    /// The context of one attempt of a request, with the module's base URL.
    func context(
        for networkRequest: (any NetworkRequest)?, attempt: Int, sentRequest: URLRequest?, requestID: UUID,
        sequenceNumber: Int, elapsed: TimeInterval, preparationTime: TimeInterval, timeInFlight: TimeInterval = 0,
        bytesSent: Int = 0, bytesReceived: Int = 0, recorder: AttemptRecorder? = nil
    ) -> ActionContext {
        ActionContext(
            networkRequest: networkRequest, attempt: attempt, baseURL: baseURL, baseOrigin: baseOrigin,
            sentRequest: sentRequest, elapsed: elapsed, requestID: requestID, sequenceNumber: sequenceNumber,
            preparationTime: preparationTime, timeInFlight: timeInFlight, bytesSent: bytesSent,
            bytesReceived: bytesReceived, recorder: recorder)
    }
}

/// The handle of a deadline that was never set.
private struct NoDeadline: NetworkCancellable {
    func cancel() {}
}

/// The handle of a background transfer's preparation.
private struct PreparationHandle: NetworkCancellable {
    let cancelPreparation: @Sendable () -> Void

    func cancel() { cancelPreparation() }
}
