import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The action of ``NetworkModuleAction/tracing(origins:parent:redaction:report:)``: sends each
/// attempt's `traceparent` to the origins that may receive it and reports a span per request and
/// per attempt.
///
/// The one request's trace lives from its first preparation to its `didFinish`, in a table by
/// ``ActionContext/requestID``: the module calls `didFinish` once for every request an action
/// has seen, so every entry leaves the table.
struct TracingAction: HeaderFieldPreparing {
    /// One request's trace, while it runs: a class, so that the table holds a reference and
    /// each hook changes the trace in place instead of copying it in and out. Its `var`s are
    /// only touched inside `traces.withLock`, or by `didFinish` once it has taken the trace out
    /// of the table, when nothing else can reach it.
    final class RequestTrace {
        /// The request's span: its trace, identifier, flag and state.
        let span: TraceContext
        /// The app's span, the request span's parent; `nil` for a new trace.
        let parentSpanID: String?
        /// The attempt prepared and not yet answered: its span and when it started.
        var openAttempt: OpenAttempt?
        /// The last attempt answered, whose response the request's span reports when the request
        /// ends with it.
        var lastAnswer: SpanAnswer?

        /// The trace of a request whose span is a child of `parent` (the app's span), or the
        /// root of a new trace without one.
        init<Generator: RandomNumberGenerator>(parent: TraceContext?, using generator: inout Generator) {
            self.span = parent?.child(using: &generator) ?? .newTrace(using: &generator)
            self.parentSpanID = parent?.spanID
        }
    }

    /// An attempt prepared and not yet answered.
    struct OpenAttempt {
        let number: Int
        let span: TraceContext
        let start: Date
    }

    /// What an attempt's answer says, for its span and its request's.
    struct SpanAnswer {
        let attempt: Int
        let statusCode: Int?
        let answer: HTTPSpan.Answer?
        let phases: RequestPhases?
        /// Where it went, worked out once for both spans.
        let target: SpanTarget?
    }

    /// The origins that receive the headers; `nil` for the module's base URL's.
    private let origins: [Origin]?
    private let parent: @Sendable (ActionContext) -> TraceContext?
    private let redaction: Redaction
    private let report: @Sendable (HTTPSpan) -> Void
    private let random: @Sendable () -> UInt64
    private let traces = LockedState([UUID: RequestTrace]())

    /// The requests whose trace is open: started and not yet finished. For tests, which check
    /// that every request leaves the table.
    var openTraceCount: Int {
        traces.withLock { $0.count }
    }

    init(
        origins: [URL]?, parent: @escaping @Sendable (ActionContext) -> TraceContext?, redaction: Redaction,
        random: @escaping @Sendable () -> UInt64 = { UInt64.random(in: .min ... .max) },
        report: @escaping @Sendable (HTTPSpan) -> Void
    ) {
        self.origins = origins?.compactMap(Origin.init)
        self.parent = parent
        self.redaction = redaction
        self.random = random
        self.report = report
        CredentialHeaders.registerOriginBound(TraceContextHeaders.traceparent)
        CredentialHeaders.registerOriginBound(TraceContextHeaders.tracestate)
    }

    // MARK: - Hooks

    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        completion(
            HeaderFieldTable.editing(urlRequest) { headers in _ = startAttempt(&headers, urlRequest.url, context) })
    }

    func prepareHeaderFields(
        _ headers: inout HeaderFieldTable, url: URL?, context: ActionContext
    ) throws(NetworkError) -> Bool {
        startAttempt(&headers, url, context)
    }

    func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        let now = Date()
        let observations = context.recorder?.observations
        let answer = SpanAnswer(
            // The response's status even when an action's `validate` failed the attempt.
            attempt: context.attempt, statusCode: result.statusCode ?? observations?.statusCode,
            answer: observations.flatMap(Self.answer),
            phases: observations?.phases, target: target(of: context))
        let ended = traces.withLock { traces -> (trace: RequestTrace, attempt: OpenAttempt)? in
            guard let trace = traces[context.requestID], let open = trace.openAttempt, open.number == context.attempt
            else { return nil }
            trace.openAttempt = nil
            trace.lastAnswer = answer
            return (trace, open)
        }
        guard let (trace, attempt) = ended else { return }
        report(
            HTTPSpan(
                kind: .attempt, context: attempt.span, parentSpanID: trace.span.spanID, start: attempt.start, end: now,
                method: context.method, attempt: attempt.number, target: answer.target, statusCode: answer.statusCode,
                errorType: result.errorType, answer: answer.answer, phases: answer.phases))
    }

    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        let now = Date()
        var trace = traces.withLock { $0.removeValue(forKey: context.requestID) }
        if trace == nil {
            // No attempt got as far as this action: the request's span alone, in the app's trace.
            var generator = IdentifierGenerator(source: random)
            trace = RequestTrace(parent: parent(context), using: &generator)
        }
        guard let trace else { return }
        // The last request sent: the last answered attempt's, worked out once, or a later one's.
        let requestTarget =
            trace.lastAnswer.flatMap { $0.attempt == context.attempt ? $0.target : nil } ?? target(of: context)
        if let open = trace.openAttempt {
            // Prepared and never answered: cancelled, timed out or failed on the way.
            report(
                HTTPSpan(
                    kind: .attempt, context: open.span, parentSpanID: trace.span.spanID, start: open.start, end: now,
                    method: context.method, attempt: open.number, target: requestTarget, statusCode: nil,
                    errorType: result.errorType, answer: nil, phases: nil))
        }
        // The last answer, when the request ended with it: not when a later attempt, a cancel or
        // a timeout ended it.
        var final = trace.lastAnswer.flatMap { $0.attempt == context.attempt ? $0 : nil }
        if case .failure(let error) = result, error.endedWithoutAnswer { final = nil }
        report(
            HTTPSpan(
                kind: .request, context: trace.span, parentSpanID: trace.parentSpanID,
                start: now.addingTimeInterval(-max(0, context.elapsed)), end: now, method: context.method,
                attempt: context.attempt, target: requestTarget, statusCode: result.statusCode ?? final?.statusCode,
                errorType: result.errorType, answer: final?.answer, phases: final?.phases))
    }

    // MARK: - Spans

    /// Opens the span of `context`'s attempt (and the request's trace, on its first), and sets
    /// its headers when `url`'s origin may receive them. Always finishes at once.
    private func startAttempt(_ headers: inout HeaderFieldTable, _ url: URL?, _ context: ActionContext) -> Bool {
        var generator = IdentifierGenerator(source: random)
        var trace = traces.withLock { $0[context.requestID] }
        if trace == nil {
            // The app's span: the one the request carries, or the one `parent` names.
            let received = headers.value(for: TraceContextHeaders.traceparent).flatMap { value in
                TraceContext(traceparent: value, tracestate: headers.value(for: TraceContextHeaders.tracestate))
            }
            trace = RequestTrace(parent: received ?? parent(context), using: &generator)
        }
        guard let trace else { return true }
        let attemptSpan = trace.span.child(using: &generator)
        let open = OpenAttempt(number: context.attempt, span: attemptSpan, start: Date())
        traces.withLock { traces in
            trace.openAttempt = open
            traces[context.requestID] = trace
        }
        if sendsHeaders(to: url, context: context) {
            headers.set(attemptSpan.traceparent, for: TraceContextHeaders.traceparent)
            if let state = attemptSpan.traceState {
                headers.set(state, for: TraceContextHeaders.tracestate)
            } else {
                headers.remove(TraceContextHeaders.tracestate)
            }
        } else {
            // Whoever set them: the trace headers go to the chosen origins only.
            headers.remove(TraceContextHeaders.traceparent)
            headers.remove(TraceContextHeaders.tracestate)
        }
        return true
    }

    /// Whether `url`'s origin receives the trace headers.
    private func sendsHeaders(to url: URL?, context: ActionContext) -> Bool {
        guard let origins else { return context.isSameOrigin(as: url) }
        guard let origin = url.flatMap(Origin.init) else { return false }
        return origins.contains(origin)
    }

    /// Where `context`'s attempt went: its URL masked, its server and port; `nil` when nothing
    /// was sent.
    private func target(of context: ActionContext) -> SpanTarget? {
        guard let url = context.sentRequest?.url else { return nil }
        return SpanTarget(url: url, redaction: redaction)
    }

    /// How an attempt was served, from what its session observed: by the cache, a shared call
    /// or the network; `nil` when no response came.
    static func answer(_ observations: AttemptObservations) -> HTTPSpan.Answer? {
        switch observations.cacheAnswer {
        case .fresh: return .cache
        case .stale: return .staleCache
        case nil: break
        }
        if observations.joinedSharedCall { return .sharedCall }
        return observations.statusCode != nil ? .network : nil
    }
}

/// A random source of identifiers from a closure: the system's secure generator by default, a
/// fixed sequence in tests.
struct IdentifierGenerator: RandomNumberGenerator {
    let source: @Sendable () -> UInt64

    mutating func next() -> UInt64 { source() }
}

extension NetworkModuleAction where Self == BuiltInAction {
    /// Traces each request as the W3C Trace Context recommendation and OpenTelemetry's HTTP
    /// client conventions say: sends each attempt's `traceparent` (and the trace's
    /// `tracestate`) to the origins that may receive them, and reports an ``HTTPSpan`` for the
    /// request and one for each attempt when it ends.
    ///
    /// ```swift
    /// let module = DefaultNetworkModule(
    ///     requestBuilder: builder, actions: [.tracing { span in exporter.export(span) }, .retry(.default)])
    /// ```
    ///
    /// The request's span continues the app's trace: the `traceparent` (and `tracestate`) the
    /// request already carries, else the context `parent` returns; otherwise it starts a new
    /// trace, sampled. A malformed `traceparent` starts a new trace, and is never sent on. Each
    /// attempt, retries included, is a span of its own under the request's, and its identifier
    /// is the one the server receives. Identifiers come from the system's secure random source.
    ///
    /// Put it first among the actions: `parent` is then called, once per request, on the thread
    /// that calls `perform`, where an app's current span is found, and each attempt's span covers
    /// the other actions' preparation (a token refresh). `report` runs on the thread that ends the
    /// span, never under a lock; hand the span on rather than doing slow work there. The Tracing
    /// guide (`docs/tracing.md`) tells it in full and bridges the spans to OpenTelemetry.
    ///
    /// - Parameters:
    ///   - origins: the origins (scheme, host, port) whose requests carry the headers; `nil`, the
    ///     default, for the module's base URL's origin only, as credentials. To any other origin
    ///     the headers are removed, whoever set them, and a redirect to another origin drops them
    ///     as it drops credentials: on ``URLSessionTransport`` and the testing kit's sessions; a
    ///     plain `URLSession` follows redirects itself and forwards them (the Sessions guide's
    ///     table). Spans are reported for every request either way.
    ///   - parent: the app's current span for a request that carries no `traceparent`; `nil`
    ///     starts a new trace.
    ///   - redaction: which query values are masked in ``HTTPSpan/url``.
    ///   - report: receives each span as it ends.
    public static func tracing(
        origins: [URL]? = nil, parent: @escaping @Sendable (ActionContext) -> TraceContext? = { _ in nil },
        redaction: Redaction = .default, report: @escaping @Sendable (HTTPSpan) -> Void
    ) -> BuiltInAction {
        BuiltInAction(TracingAction(origins: origins, parent: parent, redaction: redaction, report: report))
    }
}

extension Result<NetworkResponse, NetworkError> {
    /// The response's status, of a success or of an HTTP error.
    fileprivate var statusCode: Int? {
        switch self {
        case .success(let response): response.statusCode
        case .failure(let error): error.statusCode
        }
    }

    /// What OpenTelemetry's `error.type` says of the result: the status code of an HTTP error,
    /// else the error's kind; `nil` for a success.
    fileprivate var errorType: String? {
        guard case .failure(let error) = self else { return nil }
        return error.statusCode.map(String.init) ?? error.kindName
    }
}

extension NetworkError {
    /// Whether the request ended without delivering the answer it had: cancelled or timed out.
    fileprivate var endedWithoutAnswer: Bool {
        switch self {
        case .cancelled, .timedOut: true
        default: false
        }
    }
}
