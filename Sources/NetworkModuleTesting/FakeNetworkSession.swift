import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` that answers from stubs instead of the network, and records every
/// request it receives.
///
/// ```swift
/// let session = FakeNetworkSession()
/// session.stub(.path("/users/1"), with: .json(User(id: 1, name: "Ada")))
/// session.stub(.path("/flaky"), with: .status(503), .status(200))  // first 503, then 200
/// let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: .immediate)
/// ```
///
/// - The most recently added stub that matches a request answers it. A stub with several
///   responses answers them in turn and repeats the last one.
/// - A request that no stub matches gets a `501` whose body lists the request and the
///   registered stubs, the message goes to standard error and to `onUnmatchedRequest`
///   (hook your test framework's failure function there), and the request is kept in
///   ``unmatchedRequests``.
/// - With ``Delivery-swift.enum/immediate`` an answer without delay is delivered inside
///   `resume()`, so with the immediate executor a request completes inside `perform`.
///   With ``Delivery-swift.enum/manual`` answers wait until the test releases them, to
///   test cancellation and ordering deterministically.
/// - Cancelling a task that has not answered delivers `URLError.cancelled`, as `URLSession`
///   does.
///
/// Thread-safe: stubs may be added and requests made from any thread.
public final class FakeNetworkSession: NetworkSession {
    /// When answers are delivered.
    public enum Delivery: Sendable {
        /// When the task is resumed (after the response's delay, if it has one).
        case immediate
        /// When the test calls ``releaseNext()`` or ``releaseAll()``.
        case manual
    }

    private struct Stub {
        let matcher: RequestMatcher
        let responses: [StubbedResponse]
        let responder: (@Sendable (URLRequest) -> StubbedResponse)?
        var served = 0

        /// The next response of the sequence; the last one repeats.
        mutating func nextResponse() -> StubbedResponse {
            defer { served += 1 }
            return responses[min(served, responses.count - 1)]
        }
    }

    private struct State {
        var stubs: [Stub] = []
        var recordedRequests: [URLRequest] = []
        var unmatchedRequests: [URLRequest] = []
        var held: [FakeSessionTask] = []
        var cancelledCount = 0
    }

    private let state = LockedState(State())
    private let delivery: Delivery
    private let delayScheduler: any DelayScheduler
    private let onUnmatchedRequest: (@Sendable (String) -> Void)?

    /// Creates a fake session.
    ///
    /// - Parameters:
    ///   - delivery: when answers are delivered; `.immediate` by default.
    ///   - delayScheduler: waits out delayed responses; pass a `ManualDelayScheduler` to
    ///     control time in tests.
    ///   - onUnmatchedRequest: called with a message for each request no stub matches,
    ///     for example `{ XCTFail($0) }` or `{ Issue.record(Comment(rawValue: $0)) }`.
    public init(
        delivery: Delivery = .immediate,
        delayScheduler: some DelayScheduler = .dispatch,
        onUnmatchedRequest: (@Sendable (String) -> Void)? = nil
    ) {
        self.delivery = delivery
        self.delayScheduler = delayScheduler
        self.onUnmatchedRequest = onUnmatchedRequest
    }

    // MARK: Stubbing

    /// Answers requests that match `matcher` with `responses`, in turn; the last one repeats.
    public func stub(_ matcher: RequestMatcher, with responses: StubbedResponse...) {
        stub(matcher, sequence: responses)
    }

    /// Answers requests that match `matcher` with `responses`, in turn; the last one repeats.
    public func stub(_ matcher: RequestMatcher, sequence responses: [StubbedResponse]) {
        guard !responses.isEmpty else { return }
        state.withLock { $0.stubs.append(Stub(matcher: matcher, responses: responses, responder: nil)) }
    }

    /// Answers requests that match `matcher` with a response computed from the request,
    /// for a fake backend that echoes or routes:
    /// ```swift
    /// session.stub(.pathPrefix("/echo")) { request in .text(request.url?.query ?? "") }
    /// ```
    /// `respond` runs without any lock held, on the thread that resumes the task.
    public func stub(_ matcher: RequestMatcher, respond: @escaping @Sendable (URLRequest) -> StubbedResponse) {
        state.withLock { $0.stubs.append(Stub(matcher: matcher, responses: [], responder: respond)) }
    }

    /// Removes every stub (recorded requests are kept).
    public func removeAllStubs() {
        state.withLock { $0.stubs.removeAll() }
    }

    // MARK: Recording

    /// Every request the session was asked to send, in order.
    public var recordedRequests: [URLRequest] {
        state.withLock { $0.recordedRequests }
    }

    /// The requests that no stub matched, in order.
    public var unmatchedRequests: [URLRequest] {
        state.withLock { $0.unmatchedRequests }
    }

    /// How many tasks were cancelled before they answered.
    public var cancelledCount: Int {
        state.withLock { $0.cancelledCount }
    }

    // MARK: Manual delivery

    /// How many answers are held, waiting for ``releaseNext()`` or ``releaseAll()``.
    public var heldCount: Int {
        state.withLock { $0.held.count }
    }

    /// Delivers the oldest held answer; returns `false` if none was held.
    @discardableResult
    public func releaseNext() -> Bool {
        let task = state.withLock { state -> FakeSessionTask? in
            state.held.isEmpty ? nil : state.held.removeFirst()
        }
        task?.deliverAnswer()
        return task != nil
    }

    /// Delivers every held answer, oldest first.
    public func releaseAll() {
        while releaseNext() {}
    }

    // MARK: NetworkSession

    /// Creates a task that answers `request` from the stubs when resumed.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        FakeSessionTask(session: self, request: request, completionHandler: completionHandler)
    }

    // MARK: Internals used by the tasks

    /// Records `task`'s request and schedules its answer.
    func resume(_ task: FakeSessionTask) {
        enum Choice {
            case fixed(StubbedResponse)
            case computed(@Sendable (URLRequest) -> StubbedResponse)
            case unmatched
        }
        let choice = state.withLock { state -> Choice in
            state.recordedRequests.append(task.request)
            guard let index = state.stubs.lastIndex(where: { $0.matcher.matches(task.request) }) else {
                state.unmatchedRequests.append(task.request)
                return .unmatched
            }
            if let responder = state.stubs[index].responder { return .computed(responder) }
            return .fixed(state.stubs[index].nextResponse())
        }
        let answer: StubbedResponse
        switch choice {
        case .fixed(let response): answer = response
        case .computed(let respond): answer = respond(task.request)  // the caller's code: outside the lock
        case .unmatched: answer = unmatchedResponse(for: task.request)
        }
        task.setAnswer(answer.answer(for: task.request))
        switch delivery {
        case .manual:
            state.withLock { $0.held.append(task) }
        case .immediate where answer.delay > 0:
            let timer = delayScheduler.schedule(after: answer.delay) { task.deliverAnswer() }
            task.setTimer(timer)
        case .immediate:
            task.deliverAnswer()
        }
    }

    /// Forgets a held task that was cancelled and counts the cancellation.
    func didCancel(_ task: FakeSessionTask) {
        state.withLock { state in
            state.cancelledCount += 1
            state.held.removeAll { $0 === task }
        }
    }

    private func unmatchedResponse(for request: URLRequest) -> StubbedResponse {
        let stubs = state.withLock { $0.stubs.map(\.matcher.description) }
        let message = """
            FakeNetworkSession: no stub matches \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "(no URL)").
            Registered stubs (newest last): \(stubs.isEmpty ? "none" : stubs.joined(separator: "; "))
            """
        FileHandle.standardError.write(Data((message + "\n").utf8))
        onUnmatchedRequest?(message)
        return .text(message, status: 501)
    }
}

/// A task of a ``FakeNetworkSession``: answers once, or reports `URLError.cancelled` if it is
/// cancelled first.
final class FakeSessionTask: NetworkSessionTask {
    private struct State {
        var completionHandler: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?
        var answer: (Data?, URLResponse?, (any Error)?)?
        var timer: (any NetworkCancellable)?
        var isResumed = false
    }

    let request: URLRequest
    /// Strong: a held task keeps its session alive until it answers or is cancelled.
    private let session: FakeNetworkSession
    private let state: LockedState<State>

    init(
        session: FakeNetworkSession, request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        self.session = session
        self.request = request
        self.state = LockedState(State(completionHandler: completionHandler))
    }

    func resume() {
        let first = state.withLock { state -> Bool in
            defer { state.isResumed = true }
            return !state.isResumed && state.completionHandler != nil
        }
        if first { session.resume(self) }
    }

    func cancel() {
        let handler = state.withLock { state -> (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)? in
            defer {
                state.completionHandler = nil
                state.timer?.cancel()
                state.timer = nil
            }
            return state.completionHandler
        }
        guard let handler else { return }
        session.didCancel(self)
        handler(nil, nil, URLError(.cancelled))
    }

    func setAnswer(_ answer: (Data?, URLResponse?, (any Error)?)) {
        state.withLock { $0.answer = answer }
    }

    func setTimer(_ timer: any NetworkCancellable) {
        let alreadyDone = state.withLock { state -> Bool in
            guard state.completionHandler != nil else { return true }
            state.timer = timer
            return false
        }
        if alreadyDone { timer.cancel() }
    }

    /// Delivers the answer, unless it was delivered or cancelled already.
    func deliverAnswer() {
        let delivery = state.withLock { state -> ((@Sendable (Data?, URLResponse?, (any Error)?) -> Void), (Data?, URLResponse?, (any Error)?))? in
            guard let handler = state.completionHandler, let answer = state.answer else { return nil }
            state.completionHandler = nil
            state.timer = nil
            return (handler, answer)
        }
        guard let (handler, answer) = delivery else { return }
        handler(answer.0, answer.1, answer.2)
    }
}
