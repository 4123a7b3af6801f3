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
    /// One request's trace, while it runs.
    struct RequestTrace {
        /// The request's span: its trace, identifier, flag and state.
        let span: TraceContext
        /// The app's span, the request span's parent; `nil` for a new trace.
        let parentSpanID: String?
        /// The attempt prepared and not yet answered: its span and when it started.
        var openAttempt: (number: Int, span: TraceContext, start: Date)?
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
        let ended = traces.withLock { traces -> RequestTrace? in
            guard let trace = traces[context.requestID], trace.openAttempt?.number == context.attempt else {
                return nil
            }
            traces[context.requestID]?.openAttempt = nil
            return trace
        }
        guard let ended, let attempt = ended.openAttempt else { return }
        report(
            span(
                .attempt, context: attempt.span, parent: ended.span.spanID, start: attempt.start, end: now,
                attempt: attempt.number, result: result, requestContext: context))
    }

    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        let now = Date()
        var trace = traces.withLock { $0.removeValue(forKey: context.requestID) }
        if trace == nil {
            // No attempt got as far as this action: the request's span alone, in the app's trace.
            var generator = IdentifierGenerator(source: random)
            let appParent = parent(context)
            trace = RequestTrace(
                span: appParent?.child(using: &generator) ?? .newTrace(using: &generator),
                parentSpanID: appParent?.spanID, openAttempt: nil)
        }
        guard let trace else { return }
        if let open = trace.openAttempt {
            // Prepared and never answered: cancelled, timed out or failed on the way.
            report(
                span(
                    .attempt, context: open.span, parent: trace.span.spanID, start: open.start, end: now,
                    attempt: open.number, result: result, requestContext: context, answered: false))
        }
        let start = now.addingTimeInterval(-context.elapsed)
        report(
            span(
                .request, context: trace.span, parent: trace.parentSpanID, start: min(start, now), end: now,
                attempt: context.attempt, result: result, requestContext: context))
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
            let appParent = received ?? parent(context)
            trace = RequestTrace(
                span: appParent?.child(using: &generator) ?? .newTrace(using: &generator),
                parentSpanID: appParent?.spanID, openAttempt: nil)
        }
        guard var trace else { return true }
        let attemptSpan = trace.span.child(using: &generator)
        trace.openAttempt = (context.attempt, attemptSpan, Date())
        traces.withLock { $0[context.requestID] = trace }
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

    private func span(
        _ kind: HTTPSpan.Kind, context spanContext: TraceContext, parent: String?, start: Date, end: Date,
        attempt: Int, result: Result<NetworkResponse, NetworkError>, requestContext context: ActionContext,
        answered: Bool = true
    ) -> HTTPSpan {
        let observations = answered ? context.recorder?.observations : nil
        let statusCode: Int?
        let errorType: String?
        switch result {
        case .success(let response):
            statusCode = response.statusCode
            errorType = nil
        case .failure(let error):
            statusCode = error.statusCode
            errorType = error.statusCode.map(String.init) ?? error.kindName
        }
        return HTTPSpan(
            kind: kind, context: spanContext, parentSpanID: parent, startTime: start, endTime: max(start, end),
            method: context.method, url: context.sentRequest.map { redaction.loggable($0.url) }, attempt: attempt,
            statusCode: statusCode, errorType: errorType,
            answer: answered ? Self.answer(result, observations) : nil, phases: observations?.phases)
    }

    /// How `result` was served.
    static func answer(_ result: Result<NetworkResponse, NetworkError>, _ observations: AttemptObservations?)
        -> HTTPSpan.Answer?
    {
        switch result {
        case .success(let response):
            if response.httpResponse is CacheStatus.Answer { return response.isStale ? .staleCache : .cache }
        case .failure(let error):
            guard error.statusCode != nil else {
                return observations?.joinedSharedCall == true ? .sharedCall : nil
            }
        }
        return observations?.joinedSharedCall == true ? .sharedCall : .network
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
    ///     requestBuilder: DefaultRequestBuilder(baseURL: api),
    ///     actions: [.tracing { span in exporter.export(span) }, .retry(.default)])
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
    ///     default, for the module's base URL's origin only, as credentials. A redirect to another
    ///     origin never carries them. Spans are reported for every request either way.
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
