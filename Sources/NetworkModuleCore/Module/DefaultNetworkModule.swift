import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The network module: builds requests, runs them through actions and a session, and
/// delivers each result exactly once through a completion executor.
///
/// ```swift
/// let module = DefaultNetworkModule(
///     requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
///     session: URLSession.shared,
///     actions: [],
///     completionExecutor: .main
/// )
/// let task = module.performAndDecode(request: GetUser(id: 1), responseType: User.self) { result in
///     // Result<User, NetworkError>, on the main queue, exactly once
/// }
/// task.cancel()  // the completion gets .failure(.cancelled), exactly once
/// ```
///
/// Each request is built (``RequestBuilder``), prepared by the actions, sent (``NetworkSession``),
/// observed by the actions, retried if one asks, and delivered (``CompletionExecutor``); the
/// Actions guide (`docs/actions.md`, "The lifecycle of one request") tells the steps in full.
/// A request that cannot be built completes with ``NetworkError/invalidRequest(_:)`` without
/// reaching the actions or the network.
///
/// The module may be used from any thread. A request in flight holds the module, so it
/// completes even if the caller lets the module go; the module goes when its last request has
/// completed.
public final class DefaultNetworkModule: NetworkModule {
    /// Builds the `URLRequest` of each ``NetworkRequest``.
    let requestBuilder: any RequestBuilder
    /// ``requestBuilder`` when it is a ``DefaultRequestBuilder``, found once: ``buildRequest(_:)``
    /// asks it to leave its header check out.
    private let defaultRequestBuilder: DefaultRequestBuilder?
    /// The transport.
    let session: any NetworkSession
    /// The actions run around every request, in order (a ``BuiltInAction`` as the action it
    /// was made as).
    var actions: [any NetworkModuleAction] { pipeline.actions }
    /// Where completions run.
    let completionExecutor: any CompletionExecutor
    /// Decodes the bodies of ``TypedRequest``s that name no decoder of their own.
    public let decoder: any ResponseDecoder

    // What every request shares, worked out once; a request in flight holds the module.
    /// ``session`` as requests are sent on it (``NetworkSession/transferring``).
    let transferringSession: any TransferringSession
    /// The actions around each request, in their order (the module's and background transfers').
    let pipeline: ActionPipeline
    /// The most attempts one request makes, retries included.
    let maximumAttempts: Int
    /// What ``AcceptableStatusCodes/moduleDefault`` and a caller's `URLRequest` accept.
    let acceptableStatusCodes: AcceptableStatusCodes
    let delayScheduler: any DelayScheduler
    /// Numbers the module's requests: ``ActionContext/sequenceNumber``.
    let requestCount = ModuleRequestCount()
    /// The policy of a caller's `URLRequest` and of a request description that names none.
    let redirectPolicy: RedirectPolicy

    /// Creates a module.
    ///
    /// - Parameters:
    ///   - requestBuilder: turns request descriptions into `URLRequest`s.
    ///   - session: the transport; ``URLSessionTransport/shared`` by default (a `URLSession`
    ///     of the framework's own, which keeps credentials on their origin across redirects
    ///     and bounds response sizes), a session decorator, or a fake in tests. A plain
    ///     `URLSession` goes to ``init(requestBuilder:session:actions:completionExecutor:decoder:acceptableStatusCodes:delayScheduler:maximumAttempts:)``.
    ///   - actions: run around every request, in this order.
    ///   - completionExecutor: where completions run; the main queue by default,
    ///     `.immediate` in tests.
    ///   - decoder: decodes the bodies of ``TypedRequest``s that name no decoder of their own;
    ///     a ``JSONResponseDecoder`` by default (give it your `JSONDecoder` settings), or a
    ///     ``ResponseDecoder`` of your own for an API that speaks another format.
    ///   - acceptableStatusCodes: the statuses that count as success for a request sent with
    ///     `perform(urlRequest:)` and for a ``NetworkRequest`` that keeps the default
    ///     ``NetworkRequest/acceptableStatusCodes`` (``AcceptableStatusCodes/moduleDefault``);
    ///     ``AcceptableStatusCodes/successful`` (any 2xx) by default. A request that names its
    ///     own codes uses those.
    ///   - delayScheduler: waits before retries, and bounds the wait for actions that prepare
    ///     a request later (a token fetch) by the request's timeout; a dispatch timer by default.
    ///   - maximumAttempts: the most attempts one request makes, its retries included, whatever
    ///     its actions decide (10 by default; values below 1 count as 1); after the last, its
    ///     failure is delivered.
    ///   - redirectPolicy: how redirects are treated for a request sent with
    ///     `perform(urlRequest:)` and for a ``NetworkRequest`` whose
    ///     ``NetworkRequest/redirectPolicy`` is `nil`; ``RedirectPolicy/follow`` by default.
    ///     A session that cannot apply another policy fails such requests without sending them
    ///     (see ``RedirectPolicy``).
    public init(
        requestBuilder: some RequestBuilder,
        session: some NetworkSession = URLSessionTransport.shared,
        actions: [any NetworkModuleAction] = [],
        completionExecutor: some CompletionExecutor = .main,
        decoder: any ResponseDecoder = JSONResponseDecoder(),
        acceptableStatusCodes: AcceptableStatusCodes = .successful,
        delayScheduler: (any DelayScheduler)? = nil,
        maximumAttempts: Int = DefaultNetworkModule.defaultMaximumAttempts,
        redirectPolicy: RedirectPolicy = .follow
    ) {
        self.requestBuilder = requestBuilder
        // Not a stored closure: the metadata of a typed-throws function type needs a runtime
        // function that iOS 13 to 17 lack.
        self.defaultRequestBuilder = requestBuilder as? DefaultRequestBuilder
        self.session = session
        self.completionExecutor = completionExecutor
        self.decoder = decoder
        self.transferringSession = session.transferring
        self.maximumAttempts = maximumAttempts
        self.acceptableStatusCodes = acceptableStatusCodes.resolved(moduleDefault: .successful)
        let delayScheduler = delayScheduler ?? DispatchDelayScheduler()
        self.delayScheduler = delayScheduler
        self.pipeline = ActionPipeline(
            actions: actions, baseURL: requestBuilder.baseURL, delayScheduler: delayScheduler)
        self.redirectPolicy = redirectPolicy
    }

    /// Creates a module that sends its requests on a plain `URLSession`:
    /// `DefaultNetworkModule(requestBuilder: builder, session: URLSession.shared)`.
    ///
    /// The framework wraps the session rather than adding methods to `URLSession`, so your own
    /// `URLSession.shared.dataTask(with:completionHandler:)` calls stay unambiguous in files
    /// that import it. ``URLSessionTransport`` is the better transport where you can choose:
    /// a plain `URLSession` forwards credentials on a redirect to another origin on Linux, and
    /// its request timeout is a deadline for the whole response there (see the Sessions guide,
    /// `docs/sessions.md`). The other parameters are those of
    /// ``init(requestBuilder:session:actions:completionExecutor:decoder:acceptableStatusCodes:delayScheduler:maximumAttempts:redirectPolicy:)``
    /// (without `redirectPolicy`: a plain `URLSession` can only follow redirects).
    public convenience init(
        requestBuilder: some RequestBuilder,
        session: URLSession,
        actions: [any NetworkModuleAction] = [],
        completionExecutor: some CompletionExecutor = .main,
        decoder: any ResponseDecoder = JSONResponseDecoder(),
        acceptableStatusCodes: AcceptableStatusCodes = .successful,
        delayScheduler: (any DelayScheduler)? = nil,
        maximumAttempts: Int = DefaultNetworkModule.defaultMaximumAttempts
    ) {
        self.init(
            requestBuilder: requestBuilder, session: URLSessionAdapter(session), actions: actions,
            completionExecutor: completionExecutor, decoder: decoder, acceptableStatusCodes: acceptableStatusCodes,
            delayScheduler: delayScheduler, maximumAttempts: maximumAttempts)
    }

    /// The most attempts a request makes unless the module is created with another limit: 10.
    /// A safety net under the actions' own retry limits (``RetryPolicy`` allows 3 attempts by
    /// default), so that an action that always answers ``RetryDecision/retry`` cannot loop
    /// forever.
    @usableFromInline static let defaultMaximumAttempts = 10
}

extension DefaultNetworkModule {
    /// Builds the `URLRequest` of `request` with ``requestBuilder``. The header fields are checked
    /// once per request, whoever set them: just before the session gets it
    /// (``HeaderValidation``), so a ``DefaultRequestBuilder`` leaves its own check of them out.
    func buildRequest(_ request: any NetworkRequest) throws(NetworkError) -> URLRequest {
        if let defaultRequestBuilder {
            return try defaultRequestBuilder.build(request: request, checkingHeaders: false)
        }
        return try requestBuilder.build(request: request)
    }
}

extension DefaultNetworkModule: PipelineModule {
    /// Every call runs on the module itself.
    package func beginCall(_ source: RequestSource) -> DefaultNetworkModule {
        self
    }
}
