import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `perform` call: a ``RequestStateMachine`` behind one lock, and the loop (`run`)
/// that performs what it answers, outside the lock, feeding each call-out's outcome back in.
/// The thread that brings an event the machine can act on runs the loop, one at a time (the
/// machine keeps what arrives meanwhile); the lifecycle's guarantees are in `docs/actions.md`.
///
/// It holds its module, so it finishes even if the caller drops the module. No lock is held
/// while calling out to a builder, a session, an action, a scheduler, an executor or a
/// completion.
final class RequestOperation: NetworkCancellable {
    /// Hands the outcome to the caller, as the call (`perform`, `performAndDecode`, a download…)
    /// asked: returns the outcome the actions see in `didFinish` (after the caller's transform,
    /// such as decoding) and the call that delivers it through the completion executor, or
    /// ``NetworkError/cancelled`` when `cancelled` (``RequestStateMachine/deliveryStarted()``).
    /// A closure, not a generic operation: a generic class pays for its metadata on every request.
    typealias Completion =
        @Sendable (Result<NetworkResponse, NetworkError>) -> (
            seen: Result<NetworkResponse, NetworkError>, deliver: @Sendable (_ cancelled: Bool) -> Void
        )

    private let source: RequestSource
    private let acceptableStatusCodes: AcceptableStatusCodes
    private let module: DefaultNetworkModule
    /// The module's session, or the transfer's session around it.
    private let session: any TransferringSession
    /// The session of a transfer (a download, a request with progress); `nil` for the others.
    private let transfer: TransferOperationSession?
    /// How the session sends each attempt: the request's redirect policy, and whether the
    /// completion handler is short (``TransferOptions/handlerIsShort``): no action's hook, no
    /// transfer and a completion that transforms nothing is all that is left once the answer is in.
    private let sending: TransferOptions
    private let startTime: UInt64
    private let requestID: UUID
    private let sequenceNumber: Int
    /// The request's state: the machine, behind the operation's one lock.
    private let state: LockedState<RequestStateMachine>

    private init(
        source: RequestSource, module: DefaultNetworkModule, transfer: TransferOperationSession?,
        completionIsShort: Bool, startTime: UInt64, machine: consuming RequestStateMachine
    ) {
        self.source = source
        self.session = transfer ?? module.transferringSession
        self.transfer = transfer
        let redirectPolicy: RedirectPolicy
        if case .description(let networkRequest) = source {
            self.acceptableStatusCodes = networkRequest.acceptableStatusCodes.resolved(
                moduleDefault: module.acceptableStatusCodes)
            redirectPolicy = networkRequest.redirectPolicy ?? module.redirectPolicy
        } else {
            self.acceptableStatusCodes = module.acceptableStatusCodes
            redirectPolicy = module.redirectPolicy
        }
        self.sending = TransferOptions(
            redirectPolicy: redirectPolicy,
            handlerIsShort: completionIsShort && transfer == nil && module.actions.isEmpty)
        self.module = module
        (requestID, sequenceNumber) = RequestIdentifiers.next(in: module.requestCount)
        self.startTime = startTime
        self.state = LockedState(machine)
    }

    /// Starts a request: builds, prepares and sends the first attempt, as far as it goes
    /// without waiting, and returns its operation, for the module to hand out.
    ///
    /// The start and the first build go in before the operation exists: the builder gets nothing
    /// that leads to it, so no other thread can reach the machine yet and they need no lock.
    ///
    /// - Parameters:
    ///   - transfer: for a transfer, the session around the module's to send on.
    ///   - completionIsShort: whether `completion` only hands the result on, transforming nothing.
    static func start(
        source: RequestSource, module: DefaultNetworkModule, transfer: TransferOperationSession? = nil,
        completionIsShort: Bool = false, completion: @escaping Completion
    ) -> RequestOperation {
        let startTime = DispatchTime.now().uptimeNanoseconds
        var machine = RequestStateMachine(
            actionCount: module.actions.count, maximumAttempts: module.maximumAttempts, completion: completion)
        var next = machine.handle(at: startTime) { $0.start() }
        if case .build = next {
            let built = buildRequest(source, attempt: 1, module: module)
            var stream = builtBodyStream(built, source: source)
            next = machine.handle(at: DispatchTime.now().uptimeNanoseconds) { $0.built(built, bodyStream: &stream) }
        }
        let request = machine.takeRequest()
        let operation = RequestOperation(
            source: source, module: module, transfer: transfer, completionIsShort: completionIsShort,
            startTime: startTime, machine: machine)
        // Moved, not copied: a copy left behind would share the request's storage, and the
        // preparation's first write to the request would copy all of it.
        operation.run((consume next, consume request))
        return operation
    }

    /// Cancels the request: it completes with `.cancelled` unless it already completed.
    func cancel() {
        run(update { $0.cancel() })
    }

    // MARK: - The loop

    /// Feeds one event to the machine, under the lock, and returns what to do next, with the
    /// request to prepare or send taken out under the same lock (``RequestStateMachine/takeRequest()``).
    private func update(_ event: (inout RequestStateMachine) -> RequestStateMachine.Next) -> Answer {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { machine in (machine.handle(at: now, event), machine.takeRequest()) }
    }

    /// What the machine answered, and the request that comes with it.
    private typealias Answer = (next: RequestStateMachine.Next, request: URLRequest?)

    /// Performs what the machine says until it says to wait or to finish.
    private func run(_ first: consuming Answer) {
        var (next, request) = first
        while true {
            switch consume next {
            case .none:
                return
            case .build(let attempt):
                let built = Self.buildRequest(source, attempt: attempt, module: module)
                var stream = Self.builtBodyStream(built, source: source)
                (next, request) = update { $0.built(built, bodyStream: &stream) }
                // The previous attempt's, or this one's if the request ended meanwhile.
                if let stream { BodyStreams.release(stream) }
            case .prepare(let attempt, let from, let facts):
                let outcome: RequestStateMachine.PreparationOutcome
                if let request = request.take() {
                    outcome = module.pipeline.prepare(
                        request, from: from, context: { self.context(attempt: attempt, facts: facts) },
                        onPrepared: { index, result in
                            self.run(self.update { $0.actionPrepared(attempt: attempt, index: index, result) })
                        })
                } else {
                    // Never: `.prepare` comes with the request; were it missing, it fails, not waits.
                    outcome = .failed(.invalidRequest(.missingURL))
                }
                (next, request) = update { $0.preparationReturned(outcome) }
            case .send(let attempt, let deadline):
                deadline?.cancel()
                (next, request) = send(request.take(), attempt: attempt)
            case .schedulePreparationDeadline(let attempt, let timeout):
                let deadline = module.pipeline.preparationDeadline(after: timeout) {
                    self.run(self.update { $0.preparationDeadlinePassed(attempt: attempt) })
                }
                (next, request) = update { $0.preparationDeadlineScheduled(deadline) }
            case .resume(let task):
                task.resume()
                (next, request) = update { $0.resumeReturned() }
            case .observe(let attempt, let outcome, let facts):
                let observed = module.pipeline.observe(outcome, context: context(attempt: attempt, facts: facts))
                (next, request) = update { $0.observed(observed) }
            case .askRetry(let attempt, let index, let error, let facts):
                if let retryAllowed = transfer?.retryAllowed, !retryAllowed() {
                    (next, request) = update { machine in
                        _ = machine.retryDecided(attempt: attempt, index: index, .doNotRetry)
                        return machine.retryDecisionReturned()
                    }
                    continue
                }
                module.actions[index].retryDecision(for: error, context: context(attempt: attempt, facts: facts)) {
                    decision in
                    self.run(self.update { $0.retryDecided(attempt: attempt, index: index, decision) })
                }
                (next, request) = update { $0.retryDecisionReturned() }
            case .scheduleRetry(let attempt, let delay):
                let timer = module.delayScheduler.scheduleWait(after: delay) {
                    self.run(self.update { $0.retryTimerFired(attempt: attempt) })
                }
                (next, request) = update { $0.retryTimerScheduled(timer) }
            case .finish(let finish):
                deliver(finish)
                return
            }
        }
    }

    // MARK: - Call-outs

    private static func buildRequest(
        _ source: RequestSource, attempt: Int, module: DefaultNetworkModule
    ) -> Result<URLRequest, NetworkError> {
        switch source {
        case .urlRequest(var request):
            guard attempt > 1, let stream = request.httpBodyStream else { return .success(request) }
            // The first attempt consumed the caller's stream: send a fresh one, or nothing.
            guard let fresh = BodyStreams.freshStream(replacing: stream) else {
                return .failure(
                    .invalidRequest(
                        .bodyEncodingFailed(
                            "the body stream of a URLRequest cannot be sent again for attempt \(attempt); describe the request with RequestBody.stream or RequestBody.file, whose every attempt gets a fresh stream"
                        )))
            }
            request.httpBodyStream = fresh
            return .success(request)
        case .description(let networkRequest):
            do throws(NetworkError) {
                return .success(try module.buildRequest(networkRequest))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The body stream the builder made for a described request: the request releases it when
    /// it is done with it. A caller's `URLRequest` keeps its stream: the caller may send it again.
    private static func builtBodyStream(_ built: Result<URLRequest, NetworkError>, source: RequestSource)
        -> InputStream?
    {
        guard case .description(let networkRequest) = source, networkRequest.body?.mayStream == true,
            case .success(let request) = built
        else { return nil }
        return request.httpBodyStream
    }

    /// Checks `request` once, just before the wire, and hands it to the session.
    private func send(_ candidate: URLRequest?, attempt: Int) -> Answer {
        // The machine always holds the request with `.send`; a missing one fails the request.
        let request: URLRequest
        do throws(NetworkError) {
            request = try module.pipeline.checked(candidate)
        } catch {
            return update { $0.sendRejected(error) }
        }
        let sentAt = DispatchTime.now().uptimeNanoseconds
        let acceptableStatusCodes = acceptableStatusCodes
        var sending = sending
        let recorder = module.pipeline.recordsAttempts ? AttemptRecorder() : nil
        sending.recorder = recorder
        let task = session.transferTask(with: request, transfer: sending) {
            data, response, error in
            let now = DispatchTime.now().uptimeNanoseconds
            let duration = Double(now >= sentAt ? now - sentAt : 0) / 1e9
            let result = ResponseInterpreter.interpret(
                data: data, response: response, error: error, request: request,
                acceptableStatusCodes: acceptableStatusCodes, duration: duration)
            let receivedBytes = self.transfer?.receivedBytes(data) ?? data?.count ?? 0
            recorder?.record(answeredBy: response)
            self.run(
                self.update { $0.answered(attempt: attempt, result, receivedBytes: receivedBytes, recorder: recorder) })
        }
        return update { $0.taskCreated(task) }
    }

    /// Stops what is still running, lets every action see the outcome, and delivers it through
    /// the executor, as the machine decides (``RequestStateMachine/deliveryStarted()``).
    private func deliver(_ finish: RequestStateMachine.Finish) {
        finish.taskToCancel?.cancel()
        finish.timerToCancel?.cancel()
        // Before the caller hears of the end: a temporary body file is gone by then.
        if let stream = finish.bodyStream { BodyStreams.release(stream) }
        guard let completion = finish.completion else { return }
        let (seen, deliverToCaller) = completion(finish.result)
        if finish.notifiesActions {
            module.pipeline.finish(seen, context: context(attempt: finish.attempt, facts: finish.facts))
        }
        module.completionExecutor.execute { [state] in
            switch state.withLock({ $0.deliveryStarted() }) {
            case .result: deliverToCaller(false)
            case .cancelled: deliverToCaller(true)
            // Never: the executor runs this once, and nothing else asks.
            case .none: break
            }
        }
    }

    // MARK: - Contexts

    private func context(attempt: Int, facts: RequestStateMachine.Facts) -> ActionContext {
        let now = DispatchTime.now().uptimeNanoseconds
        return module.pipeline.context(
            for: source.networkRequest, attempt: attempt, sentRequest: facts.sentRequest,
            requestID: requestID, sequenceNumber: sequenceNumber,
            elapsed: Self.seconds(now >= startTime ? now - startTime : 0),
            preparationTime: Self.seconds(facts.preparationNanoseconds),
            timeInFlight: Self.seconds(facts.inFlightNanoseconds), bytesSent: facts.bytesSent,
            bytesReceived: facts.bytesReceived, recorder: facts.recorder)
    }

    private static func seconds(_ nanoseconds: UInt64) -> TimeInterval {
        Double(nanoseconds) / 1e9
    }
}
