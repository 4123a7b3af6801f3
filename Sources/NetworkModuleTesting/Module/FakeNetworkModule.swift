import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `NetworkModule` that answers from stubs, for testing code that depends on the module
/// (a view model, a repository) without a session or a `URLRequest` in sight.
///
/// ```swift
/// let module = FakeNetworkModule()
/// module.stub(GetUser.self, with: .json(#"{"id": 1, "name": "Ada"}"#))
/// module.stub(GetUser.self, where: { $0.id == 2 }, with: .status(404))
/// let viewModel = ProfileViewModel(module: module)   // depends on `any NetworkModule`
/// viewModel.load(userID: 1)
/// #expect(module.performed(GetUser.self).map(\.id) == [1])
/// ```
///
/// Each call runs through a real `DefaultNetworkModule` (without actions) whose session
/// answers with the response the stubs chose, so everything after the stubs behaves as in
/// the app: the request is built by the request builder (a request that cannot be built
/// fails with `.invalidRequest`), the status is checked against the request's
/// `acceptableStatusCodes`, a transport error maps to its `NetworkError` case,
/// `performAndDecode` decodes with the same rules, and every call delivers exactly one
/// result through the completion executor, `.cancelled` included.
///
/// - The newest stub that matches answers; a stub with several responses answers them in
///   turn and repeats the last. ``StubbedResponse/failure(_:)`` fails with a given error.
/// - A call that no stub matches fails loudly, as with ``FakeNetworkSession``: a `501`
///   (`.serverError`) whose body names the request and lists the stubs, the same message on
///   standard error and to `onUnmatchedRequest`.
/// - A stubbed response is the call's answer whatever the request's redirect policy: a stubbed
///   `3xx` is delivered as it is (checked against `acceptableStatusCodes`), never followed.
/// - With `holdingResponses: true` answers wait for ``releaseNext()``, ``releaseLast()`` or
///   ``releaseAll()``, so a test can cancel a call in flight, or answer calls out of order.
///
/// Thread-safe: stubs may be added and calls made from any thread.
public final class FakeNetworkModule: NetworkModule {
    private struct State {
        var stubs = StubTable<PerformedRequest>()
        var performed: [PerformedRequest] = []
        var unmatched: [PerformedRequest] = []
    }

    /// The base URL of the default request builder: a reserved `.invalid` host, so a stray
    /// real request could never reach anything.
    public static let defaultBaseURL = URL(string: "https://fake-network-module.invalid") ?? URL(fileURLWithPath: "/")

    /// Builds the `URLRequest` of each call, as the real module would.
    let requestBuilder: any RequestBuilder
    /// Where results are delivered.
    let completionExecutor: any CompletionExecutor
    /// Decodes the bodies of typed requests that name no decoder of their own, as the real
    /// module's decoder does.
    public let decoder: any ResponseDecoder

    private let state = LockedState(State())
    private let session: FakeNetworkSession
    private let onUnmatchedRequest: (@Sendable (String) -> Void)?

    /// Creates a fake module.
    ///
    /// - Parameters:
    ///   - requestBuilder: builds each call's `URLRequest`; a builder for ``defaultBaseURL``
    ///     by default. Pass the app's own builder to stub by full URL or default headers.
    ///   - completionExecutor: where results are delivered; `.immediate` by default, so a call
    ///     answered without delay completes inside `perform`.
    ///   - decoder: decodes typed requests' bodies; a `JSONResponseDecoder` by default. Pass the app
    ///     module's decoder when it is another.
    ///   - holdingResponses: whether every answer is held until the test releases it; `false`
    ///     by default.
    ///   - delayScheduler: waits out delayed responses; pass a ``ManualDelayScheduler`` to
    ///     control time.
    ///   - onUnmatchedRequest: called with a message for each call that no stub matches.
    public init(
        requestBuilder: some RequestBuilder = DefaultRequestBuilder(baseURL: FakeNetworkModule.defaultBaseURL),
        completionExecutor: some CompletionExecutor = .immediate,
        decoder: any ResponseDecoder = JSONResponseDecoder(),
        holdingResponses: Bool = false,
        delayScheduler: (any DelayScheduler)? = nil,
        onUnmatchedRequest: (@Sendable (String) -> Void)? = nil
    ) {
        self.requestBuilder = requestBuilder
        self.completionExecutor = completionExecutor
        self.decoder = decoder
        self.session = FakeNetworkSession(holdingResponses: holdingResponses, delayScheduler: delayScheduler)
        self.onUnmatchedRequest = onUnmatchedRequest
    }

    // MARK: Stubbing

    /// Answers calls with a request of type `type` (for which `predicate` holds, when given) with
    /// `responses`, in turn; the last one repeats: `module.stub(GetUser.self, with: .json(user))`,
    /// `module.stub(GetUser.self, where: { $0.id == 2 }, with: .status(404))`.
    public func stub<Request: NetworkRequest>(
        _ type: Request.Type, where predicate: (@Sendable (Request) -> Bool)? = nil,
        with responses: StubbedResponse...
    ) {
        guard let predicate else {
            addStub("\(type)", matches: { $0.request is Request }, responses: responses)
            return
        }
        addStub(
            "\(type) where …",
            matches: { performed in performed.request(as: type).map(predicate) ?? false },
            responses: responses)
    }

    /// Answers calls whose `URLRequest` (as the request builder builds it) matches `matcher`
    /// with `responses`, in turn; the last one repeats: `module.stub(.path("/users/1"), with: .status(204))`.
    /// This also answers the calls that take a `URLRequest`.
    public func stub(_ matcher: RequestMatcher, with responses: StubbedResponse...) {
        addStub(matcher.description, matches: { $0.urlRequest.map(matcher.matches) ?? false }, responses: responses)
    }

    /// Answers calls with a request of type `type` with a response computed from the request;
    /// `respond` runs without any lock held, on the thread that performs the call.
    public func stub<Request: NetworkRequest>(
        _ type: Request.Type, respond: @escaping @Sendable (Request) -> StubbedResponse
    ) {
        state.withLock { state in
            state.stubs.add(
                "\(type) (computed)", matches: { $0.request is Request }, responses: [],
                responder: { performed in performed.request(as: type).map(respond) ?? .status(LoudMiss.statusCode) })
        }
    }

    /// Removes every stub (performed requests are kept).
    public func removeAllStubs() {
        state.withLock { $0.stubs.removeAll() }
    }

    private func addStub(
        _ description: String, matches: @escaping @Sendable (PerformedRequest) -> Bool, responses: [StubbedResponse]
    ) {
        guard !responses.isEmpty else { return }
        state.withLock { $0.stubs.add(description, matches: matches, responses: responses) }
    }

    // MARK: Recording

    /// Every call, in the order it was made.
    public var performedRequests: [PerformedRequest] {
        state.withLock { $0.performed }
    }

    /// The request descriptions of type `type` that were performed, in order:
    /// `#expect(module.performed(GetUser.self).map(\.id) == [1, 2])`.
    public func performed<Request: NetworkRequest>(_ type: Request.Type) -> [Request] {
        performedRequests.compactMap { $0.request(as: type) }
    }

    /// The calls that no stub matched, in order.
    public var unmatchedRequests: [PerformedRequest] {
        state.withLock { $0.unmatched }
    }

    /// How many calls were cancelled before they were answered.
    public var cancelledCount: Int {
        session.cancelledCount
    }

    // MARK: Held answers

    /// How many answers are held, waiting to be released.
    public var heldCount: Int {
        session.heldCount
    }

    /// Delivers the oldest held answer; returns `false` if none was held.
    @discardableResult
    public func releaseNext() -> Bool {
        session.releaseNext()
    }

    /// Delivers the newest held answer; returns `false` if none was held.
    @discardableResult
    public func releaseLast() -> Bool {
        session.releaseLast()
    }

    /// Delivers every held answer, oldest first.
    public func releaseAll() {
        session.releaseAll()
    }

    private func unmatchedResponse(for performed: PerformedRequest) -> StubbedResponse {
        let name = LoudMiss.describe(method: performed.urlRequest?.httpMethod, url: performed.urlRequest?.url)
        let message = state.withLock { state in
            state.unmatched.append(performed)
            return state.stubs.unmatchedMessage(
                source: "FakeNetworkModule",
                request: performed.request.map { "\($0) (\(name))" } ?? name)
        }
        return LoudMiss.report(message, to: onUnmatchedRequest)
    }
}

/// The session of one call of a ``FakeNetworkModule``: answers with the response the fake's
/// stubs chose, through the fake's ``FakeNetworkSession`` (for delays, held answers and
/// cancellation).
extension FakeNetworkModule: PipelineModule {
    /// Records the call, picks its answer from the stubs, and runs it on a module of its own
    /// whose session gives that answer: every variant (typed, decoding, progress, download,
    /// stream) then runs as on the real module.
    package func beginCall(_ source: RequestSource) -> DefaultNetworkModule {
        let performed: PerformedRequest =
            switch source {
            case .description(let request):
                PerformedRequest(request: request, urlRequest: try? requestBuilder.build(request: request))
            case .urlRequest(let urlRequest): PerformedRequest(request: nil, urlRequest: urlRequest)
            }
        let candidates = state.withLock { state in
            state.performed.append(performed)
            return state.stubs.candidates
        }
        var answer = StubbedResponse.status(LoudMiss.statusCode)
        if performed.urlRequest != nil {
            // Matchers and responders are the test's code: they run outside the lock.
            let picked = StubTable.pick(for: performed, among: candidates)
            switch picked.flatMap({ stub in state.withLock { $0.stubs.answer(forStub: stub.id) } }) {
            case .fixed(let response)?: answer = response
            case .computed(let respond)?: answer = respond(performed)
            case nil: answer = unmatchedResponse(for: performed)
            }
        }
        return DefaultNetworkModule(
            requestBuilder: requestBuilder,
            session: PresetAnswerSession(session: session, answer: answer),
            completionExecutor: completionExecutor, decoder: decoder)
    }
}

private struct PresetAnswerSession: TransferringSession {
    let session: FakeNetworkSession
    let answer: StubbedResponse

    func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        session.transferTask(with: request, transfer: transfer, answer: answer, completionHandler: completionHandler)
    }
}
