import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `perform` call moving through the pipeline: prepare, send, interpret, observe,
/// retry, deliver.
///
/// Each step checks, under the lock, that the operation is still at the step and attempt it
/// expects before it moves on. That one check is what makes delivery exactly-once: a late
/// session callback after a cancel, an action that calls its completion twice, or a retry
/// timer that fires after a cancel finds the operation elsewhere and does nothing.
///
/// The operation holds everything it needs (session, actions, executor), so it finishes even
/// if the caller drops the module. No lock is held while calling out to a session, an action,
/// an executor or a completion.
final class RequestOperation<Output: Sendable>: NetworkCancellable {
    typealias Completion = @Sendable (Result<Output, NetworkError>) -> Void
    typealias Transform = @Sendable (NetworkResponse) throws(NetworkError) -> Output

    private enum Phase {
        /// Actions are preparing attempt `attempt`; `nextAction` is the one that is working.
        case preparing(nextAction: Int)
        /// The session has the request.
        case sending(task: (any NetworkSessionTask)?)
        /// Actions are observing the outcome and deciding about a retry.
        case deciding(nextAction: Int)
        /// Waiting for the retry timer.
        case waitingToRetry(timer: (any NetworkCancellable)?)
        /// Delivered; nothing more happens.
        case finished
    }

    /// The mutable state of the operation, all of it behind one lock.
    private struct State {
        var phase = Phase.preparing(nextAction: 0)
        var attempt = 1
        /// Present until the result is delivered: taking it out is what finishes the operation.
        var completion: Completion?
        var lastSentRequest: URLRequest?
        /// What actions learn through ``ActionContext``: time and bytes over all attempts.
        var totals = Totals()
        /// When the current attempt's preparation, or its time in flight, began.
        var phaseStartedAt: UInt64

        /// Adds the time since ``phaseStartedAt`` to the phase that is ending.
        mutating func closePhase(at now: UInt64) {
            let nanoseconds = now >= phaseStartedAt ? now - phaseStartedAt : 0
            switch phase {
            case .preparing: totals.preparationNanoseconds += nanoseconds
            case .sending: totals.inFlightNanoseconds += nanoseconds
            default: break
            }
            phaseStartedAt = now
        }
    }

    /// Time and bytes over all attempts of the request.
    private struct Totals {
        var preparationNanoseconds: UInt64 = 0
        var inFlightNanoseconds: UInt64 = 0
        var bytesSent = 0
        var bytesReceived = 0
    }

    /// Where each attempt's request comes from.
    enum Source {
        /// A description: the module's builder builds each attempt's request from it, so the
        /// first attempt's request has no other owner and preparing it copies nothing.
        case description(any NetworkRequest)
        /// A request the caller built: each attempt starts from it.
        case urlRequest(URLRequest)
    }

    private let source: Source
    /// The request's description, for the actions' context; `nil` for a caller's `URLRequest`.
    private var networkRequest: (any NetworkRequest)? {
        if case .description(let networkRequest) = source { networkRequest } else { nil }
    }
    private let acceptableStatusCodes: AcceptableStatusCodes
    private let configuration: ModuleConfiguration
    private let transform: Transform
    private let startTime: UInt64
    private let requestID = RequestIdentifiers.next()
    private let state: LockedState<State>

    init(
        source: Source, configuration: ModuleConfiguration, transform: @escaping Transform,
        completion: @escaping Completion
    ) {
        self.source = source
        if case .description(let networkRequest) = source {
            self.acceptableStatusCodes = networkRequest.acceptableStatusCodes
        } else {
            self.acceptableStatusCodes = .successful
        }
        self.configuration = configuration
        self.transform = transform
        let startTime = DispatchTime.now().uptimeNanoseconds
        self.startTime = startTime
        self.state = LockedState(State(completion: completion, phaseStartedAt: startTime))
    }

    // MARK: - Steps

    /// Starts the first attempt with `request`, built from the source by the caller.
    func start(with request: consuming URLRequest) {
        prepare(request, from: 0, attempt: 1, headersNeedChecking: false)
    }

    /// Step 2: prepares the request with actions `actionIndex...` in order, then sends it.
    ///
    /// Actions that only set header fields and can do so at once edit one shared
    /// ``HeaderFieldTable``, written into the request once, before the next other action or
    /// the send: a write to a request whose storage is shared copies all of it. Any other
    /// action gets the request through its `prepare`, and preparation goes on from its
    /// completion, whenever that comes.
    ///
    /// - Parameter headersNeedChecking: whether an action other than the built-in header
    ///   actions has prepared the request, so its headers must be checked before sending.
    private func prepare(
        _ request: consuming URLRequest, from actionIndex: Int, attempt: Int, headersNeedChecking: Bool
    ) {
        let preparations = configuration.preparations
        var headers: HeaderFieldTable?
        var context: ActionContext?
        var index = actionIndex
        while index < preparations.count {
            let action: any NetworkModuleAction
            let checksItsHeaders: Bool
            switch preparations[index] {
            case .skipped:
                index += 1
                continue
            case .headerFields(let headerAction):
                let attemptContext =
                    context ?? self.context(attempt: attempt, sentRequest: nil, totals: currentTotals())
                context = attemptContext
                var table = headers.take() ?? HeaderFieldTable(of: request)
                do throws(NetworkError) {
                    let isPrepared = try headerAction.prepareHeaderFields(
                        &table, url: request.url, context: attemptContext)
                    headers = table
                    if isPrepared {
                        index += 1
                        continue
                    }
                } catch {
                    finish(.failure(error))
                    return
                }
                action = headerAction
                checksItsHeaders = true
            case .general(let generalAction):
                action = generalAction
                checksItsHeaders = false
            }
            headers.take()?.write(to: &request)
            prepare(
                request, with: action, at: index, from: actionIndex, attempt: attempt,
                headersNeedChecking: headersNeedChecking || !checksItsHeaders)
            return
        }
        headers.take()?.write(to: &request)
        send(request, attempt: attempt, checkingHeaders: headersNeedChecking)
    }

    /// Step 2, continued: runs action `index`'s own `prepare`, then goes on from its completion.
    private func prepare(
        _ request: URLRequest, with action: any NetworkModuleAction, at index: Int, from startIndex: Int, attempt: Int,
        headersNeedChecking: Bool
    ) {
        if index != startIndex {
            // Note which action is working, so that only its completion moves the request on.
            let isCurrent = state.withLock { state -> Bool in
                guard state.attempt == attempt, case .preparing = state.phase else { return false }
                state.phase = .preparing(nextAction: index)
                return true
            }
            guard isCurrent else { return }
        }
        action.prepare(request, context: context(attempt: attempt, sentRequest: nil, totals: currentTotals())) {
            result in
            let isCurrent = self.state.withLock { state -> Bool in
                guard state.attempt == attempt, case .preparing(let next) = state.phase, next == index else {
                    return false
                }
                state.phase = .preparing(nextAction: index + 1)
                return true
            }
            guard isCurrent else { return }
            switch result {
            case .success(let prepared):
                self.prepare(prepared, from: index + 1, attempt: attempt, headersNeedChecking: headersNeedChecking)
            case .failure(let error):
                self.finish(.failure(NetworkError(actionError: error, action: action)))
            }
        }
    }

    /// Step 3: checks the prepared request and hands it to the session.
    ///
    /// - Parameter checkingHeaders: whether an action may have set headers nobody checked.
    private func send(_ request: URLRequest, attempt: Int, checkingHeaders: Bool) {
        do throws(NetworkError) {
            guard request.url != nil else { throw .invalidRequest(.missingURL) }
            // Headers from the default builder and the built-in header actions are checked
            // already; anything another action or a caller's raw URLRequest brings is checked
            // here, just before the wire.
            if checkingHeaders || networkRequest == nil || !configuration.builderChecksHeaders {
                try HeaderValidation.validate(request)
            }
        } catch {
            finish(.failure(error))
            return
        }
        let isCurrent = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .preparing = state.phase else { return false }
            state.closePhase(at: DispatchTime.now().uptimeNanoseconds)
            state.phase = .sending(task: nil)
            state.lastSentRequest = request
            state.totals.bytesSent += request.httpBody?.count ?? 0
            return true
        }
        guard isCurrent else { return }

        let sentAt = DispatchTime.now().uptimeNanoseconds
        let task = configuration.session.dataTask(with: request) { data, response, error in
            let duration = Double(DispatchTime.now().uptimeNanoseconds - sentAt) / 1e9
            self.receive(
                data: data, response: response, error: error, request: request, attempt: attempt, duration: duration)
        }
        let shouldResume = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .sending(task: .none) = state.phase else { return false }
            state.phase = .sending(task: task)
            return true
        }
        // Not resumed if the request was cancelled meanwhile (it is already delivered), or
        // if the session answered synchronously inside dataTask(with:).
        if shouldResume { task.resume() }
    }

    /// Step 4 and 5: interprets the session's answer and lets actions observe it.
    private func receive(
        data: Data?, response: URLResponse?, error: (any Error)?, request: URLRequest, attempt: Int,
        duration: TimeInterval
    ) {
        let totals = state.withLock { state -> Totals? in
            guard state.attempt == attempt, case .sending = state.phase else { return nil }
            state.closePhase(at: DispatchTime.now().uptimeNanoseconds)
            state.phase = .deciding(nextAction: 0)
            state.totals.bytesReceived += data?.count ?? 0
            return state.totals
        }
        // A late callback, after a cancel or from a session that answered twice, is dropped.
        guard let totals else { return }

        let interpreted = ResponseInterpreter.interpret(
            data: data, response: response, error: error, request: request,
            acceptableStatusCodes: acceptableStatusCodes, duration: duration)
        guard !configuration.actions.isEmpty else {
            finish(interpreted)
            return
        }
        let context = context(attempt: attempt, sentRequest: request, totals: totals)
        let result = validated(interpreted, context: context)
        for action in configuration.actions { action.didReceive(result, context: context) }

        switch result {
        case .failure(let error) where error != .cancelled:
            decideRetry(after: error, actionIndex: 0, attempt: attempt, context: context)
        default:
            finish(result)
        }
    }

    /// Step 4, continued: lets each action, in order, turn an accepted response into a failure.
    private func validated(
        _ result: Result<NetworkResponse, NetworkError>, context: ActionContext
    ) -> Result<NetworkResponse, NetworkError> {
        guard case .success(let response) = result else { return result }
        for action in configuration.actions {
            do {
                try action.validate(response, context: context)
            } catch {
                return .failure(NetworkError(actionError: error, action: action))
            }
        }
        return result
    }

    /// Step 6: asks action `actionIndex` whether to retry, then the next one, until one says so.
    private func decideRetry(after error: NetworkError, actionIndex: Int, attempt: Int, context: ActionContext) {
        let actions = configuration.actions
        guard actionIndex < actions.count else {
            finish(.failure(error))
            return
        }
        actions[actionIndex].retryDecision(for: error, context: context) { decision in
            let isCurrent = self.state.withLock { state -> Bool in
                guard state.attempt == attempt, case .deciding(let next) = state.phase, next == actionIndex else {
                    return false
                }
                switch decision {
                case .doNotRetry: state.phase = .deciding(nextAction: actionIndex + 1)
                case .retry: state.phase = .waitingToRetry(timer: nil)
                case .retryAfter: state.phase = .waitingToRetry(timer: nil)
                }
                return true
            }
            guard isCurrent else { return }
            switch decision {
            case .doNotRetry:
                self.decideRetry(after: error, actionIndex: actionIndex + 1, attempt: attempt, context: context)
            case .retry:
                self.retry(after: attempt)
            case .retryAfter(let delay):
                self.scheduleRetry(after: attempt, delay: delay)
            }
        }
    }

    private func scheduleRetry(after attempt: Int, delay: TimeInterval) {
        let timer = configuration.delayScheduler.schedule(after: delay) { self.retry(after: attempt) }
        let isWaiting = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .waitingToRetry(timer: .none) = state.phase else { return false }
            state.phase = .waitingToRetry(timer: timer)
            return true
        }
        // Cancelled before the timer could be stored: stop it (cancel already delivered).
        if !isWaiting { timer.cancel() }
    }

    /// Starts the attempt after `attempt`, from a request made anew from the source.
    private func retry(after attempt: Int) {
        let isCurrent = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .waitingToRetry = state.phase else { return false }
            state.attempt = attempt + 1
            state.phase = .preparing(nextAction: 0)
            state.phaseStartedAt = DispatchTime.now().uptimeNanoseconds
            return true
        }
        guard isCurrent else { return }
        let request: URLRequest
        switch source {
        case .urlRequest(let callerRequest):
            request = callerRequest
        case .description(let networkRequest):
            do {
                request = try configuration.requestBuilder.build(request: networkRequest)
            } catch {
                finish(.failure(error))
                return
            }
        }
        prepare(request, from: 0, attempt: attempt + 1, headersNeedChecking: false)
    }

    /// Step 7: finishes the operation once, lets actions see the result, and delivers it.
    private func finish(_ result: Result<NetworkResponse, NetworkError>) {
        let finished = state.withLock { state -> (Completion, Phase, Int, URLRequest?, Totals)? in
            guard let completion = state.completion else { return nil }
            state.completion = nil
            let phase = state.phase
            state.closePhase(at: DispatchTime.now().uptimeNanoseconds)
            state.phase = .finished
            return (completion, phase, state.attempt, state.lastSentRequest, state.totals)
        }
        guard let (completion, phase, attempt, sentRequest, totals) = finished else { return }
        switch phase {
        case .sending(let task?): task.cancel()
        case .waitingToRetry(let timer?): timer.cancel()
        default: break
        }
        if !configuration.actions.isEmpty {
            let context = context(attempt: attempt, sentRequest: sentRequest, totals: totals)
            for action in configuration.actions { action.didFinish(result, context: context) }
        }
        let output = result.flatMap { response -> Result<Output, NetworkError> in
            do throws(NetworkError) {
                return .success(try transform(response))
            } catch {
                return .failure(error)
            }
        }
        configuration.completionExecutor.execute { completion(output) }
    }

    /// Cancels the request: it completes with `.cancelled` unless it already completed.
    func cancel() {
        finish(.failure(.cancelled))
    }

    private func currentTotals() -> Totals {
        state.withLock { $0.totals }
    }

    private func context(attempt: Int, sentRequest: URLRequest?, totals: Totals) -> ActionContext {
        ActionContext(
            networkRequest: networkRequest, attempt: attempt, baseURL: configuration.baseURL,
            baseOrigin: configuration.baseOrigin, sentRequest: sentRequest,
            elapsed: Self.seconds(DispatchTime.now().uptimeNanoseconds - startTime),
            requestID: requestID, preparationTime: Self.seconds(totals.preparationNanoseconds),
            timeInFlight: Self.seconds(totals.inFlightNanoseconds), bytesSent: totals.bytesSent,
            bytesReceived: totals.bytesReceived)
    }

    private static func seconds(_ nanoseconds: UInt64) -> TimeInterval {
        Double(nanoseconds) / 1e9
    }
}
