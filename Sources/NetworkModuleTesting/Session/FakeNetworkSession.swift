import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `NetworkSession` that answers from stubs instead of the network, and records every
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
/// - A request that no stub matches fails loudly: it gets a `501 Not Implemented` whose body
///   names the request and lists the registered stubs, the same message goes to standard
///   error and to `onUnmatchedRequest` (hook your test framework's failure function there),
///   and the request is kept in ``unmatchedRequests``. The code under test sees
///   `NetworkError.serverError` with that body, so even a test without the hook fails with
///   the message in view.
/// - By default an answer without delay is delivered inside `resume()`, so with the immediate
///   executor a request completes inside `perform`. With `holdingResponses: true` answers
///   wait until the test releases them (oldest first, newest first, or a chosen request), to
///   test cancellation and ordering deterministically.
/// - Cancelling a task that has not answered delivers `URLError.cancelled`, as `URLSession`
///   does.
/// - Redirects: with `.follow` (the default) a stubbed `3xx` is delivered as it
///   is; stub the final answer to test a followed redirect. With `.decide { … }`
///   the session follows a stubbed `3xx` that has a `Location` as `URLSession` would, asking
///   the policy at each hop and answering each next request from the stubs (each is recorded),
///   with credential headers removed from a request that leaves the original request's
///   origin, after the policy returned it; `.refuse` delivers the `3xx`. After
///   16 hops it fails with `URLError.httpTooManyRedirects`.
///
/// Thread-safe: stubs may be added and requests made from any thread.
public final class FakeNetworkSession: NetworkSession, TransferringSession {
    private struct State {
        var stubs = StubTable<URLRequest>()
        var recordedRequests: [URLRequest] = []
        var unmatchedRequests: [URLRequest] = []
        var held: [FakeSessionTask] = []
        var cancelledCount = 0
    }

    private let state = LockedState(State())
    /// Whether answers wait for ``releaseNext()`` and its kin instead of being delivered when
    /// the task is resumed.
    private let holdsResponses: Bool
    private let delayScheduler: any DelayScheduler
    private let onUnmatchedRequest: (@Sendable (String) -> Void)?

    /// Creates a fake session.
    ///
    /// - Parameters:
    ///   - holdingResponses: whether answers are held until the test releases them
    ///     (``releaseNext()``, ``releaseAll()`` and their kin); `false` by default, which
    ///     delivers each answer when its task is resumed (after the response's delay, if it has
    ///     one).
    ///   - delayScheduler: waits out delayed responses; pass a `ManualDelayScheduler` to
    ///     control time in tests.
    ///   - onUnmatchedRequest: called with a message for each request no stub matches,
    ///     for example `{ XCTFail($0) }` or `{ Issue.record(Comment(rawValue: $0)) }`.
    public init(
        holdingResponses: Bool = false,
        delayScheduler: (any DelayScheduler)? = nil,
        onUnmatchedRequest: (@Sendable (String) -> Void)? = nil
    ) {
        self.holdsResponses = holdingResponses
        self.delayScheduler = delayScheduler ?? DispatchDelayScheduler()
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
        state.withLock { $0.stubs.add(matcher.description, matches: matcher.matches, responses: responses) }
    }

    /// Answers requests that match `matcher` with a response computed from the request,
    /// for a fake backend that echoes or routes:
    /// ```swift
    /// session.stub(.pathPrefix("/echo")) { request in .text(request.url?.query ?? "") }
    /// ```
    /// `respond` runs without any lock held, on the thread that resumes the task.
    public func stub(_ matcher: RequestMatcher, respond: @escaping @Sendable (URLRequest) -> StubbedResponse) {
        state.withLock {
            $0.stubs.add(matcher.description, matches: matcher.matches, responses: [], responder: respond)
        }
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

    // MARK: Held answers

    /// How many answers are held, waiting for ``releaseNext()`` or ``releaseAll()``.
    public var heldCount: Int {
        state.withLock { $0.held.count }
    }

    /// The requests whose answers are held, oldest first.
    public var heldRequests: [URLRequest] {
        state.withLock { $0.held.map(\.request) }
    }

    /// Delivers the oldest held answer; returns `false` if none was held.
    @discardableResult
    public func releaseNext() -> Bool {
        release(choosing: { held in held.indices.first })
    }

    /// Delivers the newest held answer; returns `false` if none was held. Calling it
    /// repeatedly answers requests in the reverse of the order they were sent.
    @discardableResult
    public func releaseLast() -> Bool {
        release(choosing: { held in held.indices.last })
    }

    /// Delivers the oldest held answer whose request matches `matcher`; returns `false` if
    /// no held request matches.
    ///
    /// ```swift
    /// session.release(.path("/users/2"))   // answer the second request before the first
    /// ```
    @discardableResult
    public func release(_ matcher: RequestMatcher) -> Bool {
        // The matcher is the test's code: it runs on a snapshot, outside the lock.
        let chosen = state.withLock { $0.held }.first { matcher.matches($0.request) }
        return release(choosing: { held in held.firstIndex { $0 === chosen } })
    }

    /// Delivers every held answer, oldest first, including answers to requests sent by the
    /// code the released completions run.
    public func releaseAll() {
        while releaseNext() {}
    }

    /// Takes the held task `choose` picks out of the lock, then delivers its answer.
    private func release(choosing choose: ([FakeSessionTask]) -> Int?) -> Bool {
        let task = state.withLock { state -> FakeSessionTask? in
            choose(state.held).map { state.held.remove(at: $0) }
        }
        task?.deliverAnswer()
        return task != nil
    }

    // MARK: NetworkSession

    /// Creates a task that answers `request` from the stubs when resumed, following stubbed
    /// redirects as the transfer's redirect policy says (see ``FakeNetworkSession``): a streamed
    /// 2xx body goes to the sink in the stub's chunks (``StubbedResponse/inChunks(of:)``; one
    /// chunk by default), pausing while the sink is full; a file destination and progress get the
    /// body whole, once it has arrived.
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        transferTask(with: request, transfer: transfer, answer: nil, completionHandler: completionHandler)
    }

    /// ``transferTask(with:transfer:completionHandler:)``, answered with `answer` when given
    /// instead of a stub (and then never redirected), with everything else (recording, delay,
    /// held answers, cancellation, chunks) as usual: how ``FakeNetworkModule`` sends the
    /// answer it chose for a call.
    func transferTask(
        with request: URLRequest, transfer: TransferOptions, answer: StubbedResponse?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        if case .chunks(let sink) = transfer.destination {
            return FakeSessionTask(
                session: self, request: request, presetAnswer: answer, redirectPolicy: transfer.redirectPolicy,
                sink: sink, completionHandler: completionHandler)
        }
        return FakeSessionTask(
            session: self, request: request, presetAnswer: answer, redirectPolicy: transfer.redirectPolicy,
            completionHandler: transfer.appliedToWholeBody(of: request, completionHandler: completionHandler))
    }

    // MARK: Internals used by the tasks

    /// Records `task`'s request and schedules its answer.
    func resume(_ task: FakeSessionTask) {
        var request = task.request
        var answer = stubbedAnswer(for: request, preset: task.presetAnswer)
        var raw = answer.answer(for: request)
        var hops = 0
        // Stubbed redirects are followed only for a policy that is not `.follow` (see above).
        while !task.redirectPolicy.isFollow, task.presetAnswer == nil,
            let redirect = raw.1 as? HTTPURLResponse, let proposed = Self.redirected(request, by: redirect)
        {
            hops += 1
            guard hops <= Self.maximumRedirects else {
                let userInfo: [String: Any] = proposed.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:]
                raw = (nil, nil, URLError(.httpTooManyRedirects, userInfo: userInfo))
                break
            }
            let original = task.request.url
            let next = CredentialHeaders.strippedForRedirect(proposed, from: original)
            // The policy is the test's code: no lock is held.
            guard let chosen = task.redirectPolicy.nextRequest(after: redirect, next: next, hopNumber: hops) else {
                break
            }
            request = CredentialHeaders.strippedForRedirect(chosen, from: original)
            answer = stubbedAnswer(for: request, preset: nil)
            raw = answer.answer(for: request)
        }
        task.setAnswer(raw, chunkSize: answer.chunkSize)
        if holdsResponses {
            state.withLock { $0.held.append(task) }
        } else if answer.delay > 0 {
            let timer = delayScheduler.schedule(after: answer.delay) { task.deliverAnswer() }
            task.setTimer(timer)
        } else {
            task.deliverAnswer()
        }
    }

    /// Records `request` and picks its answer: `preset`, or the stub that matches it.
    private func stubbedAnswer(for request: URLRequest, preset: StubbedResponse?) -> StubbedResponse {
        let candidates = state.withLock { state in
            state.recordedRequests.append(request)
            return preset == nil ? state.stubs.candidates : []
        }
        // Matchers and responders are the test's code: they run outside the lock.
        let picked = StubTable.pick(for: request, among: candidates)
        switch (preset, picked.flatMap { stub in state.withLock { $0.stubs.answer(forStub: stub.id) } }) {
        case (let preset?, _): return preset
        case (nil, .fixed(let response)?): return response
        case (nil, .computed(let respond)?): return respond(request)
        case (nil, nil): return unmatchedResponse(for: request)
        }
    }

    /// The most redirects one request follows, as a browser would allow.
    private static let maximumRedirects = 16

    /// The request `URLSession` would send after `response` to `request`, with the redirect's
    /// URL; `nil` if `response` is not a redirect with a usable `Location`. `303`, and a `POST`
    /// answered with `301` or `302`, become a `GET` without a body (RFC 9110 §15.4).
    private static func redirected(
        _ request: URLRequest, by response: HTTPURLResponse
    ) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = response.value(forHTTPHeaderField: "Location"),
            let url = URL(string: location, relativeTo: response.url ?? request.url)?.absoluteURL
        else { return nil }
        var next = request
        next.url = url
        let method = request.httpMethod ?? "GET"
        let becomesGET = response.statusCode == 303 ? method != "HEAD" : method == "POST" && response.statusCode < 303
        if becomesGET {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        return next
    }

    /// Forgets a held task that was cancelled and counts the cancellation.
    func didCancel(_ task: FakeSessionTask) {
        state.withLock { state in
            state.cancelledCount += 1
            state.held.removeAll { $0 === task }
        }
    }

    private func unmatchedResponse(for request: URLRequest) -> StubbedResponse {
        let message = state.withLock { state in
            state.unmatchedRequests.append(request)
            return state.stubs.unmatchedMessage(
                source: "FakeNetworkSession", request: LoudMiss.describe(method: request.httpMethod, url: request.url))
        }
        return LoudMiss.report(message, to: onUnmatchedRequest)
    }
}
