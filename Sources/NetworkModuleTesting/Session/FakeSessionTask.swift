import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task of a ``FakeNetworkSession``: answers once, or reports `URLError.cancelled` if it is
/// cancelled first.
final class FakeSessionTask: NetworkSessionTask {
    private struct State {
        var completionHandler: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?
        var answer: (Data?, URLResponse?, (any Error)?)?
        var timer: (any NetworkCancellable)?
        var isResumed = false
        /// The stub's chunk size, for a streamed body.
        var chunkSize: Int?
    }

    let request: URLRequest
    /// The answer chosen before the task was made, if any; otherwise the session's stubs answer.
    let presetAnswer: StubbedResponse?
    /// How stubbed redirects are treated.
    let redirectPolicy: RedirectPolicy
    /// Where a streamed 2xx body goes; `nil` to hand it to the completion handler.
    let sink: SessionTransfer.ChunkSink?
    /// Strong: a held task keeps its session alive until it answers or is cancelled.
    private let session: FakeNetworkSession
    private let state: LockedState<State>

    init(
        session: FakeNetworkSession, request: URLRequest, presetAnswer: StubbedResponse?,
        redirectPolicy: RedirectPolicy, sink: SessionTransfer.ChunkSink? = nil,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        self.session = session
        self.request = request
        self.presetAnswer = presetAnswer
        self.redirectPolicy = redirectPolicy
        self.sink = sink
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

    func setAnswer(_ answer: (Data?, URLResponse?, (any Error)?), chunkSize: Int? = nil) {
        state.withLock {
            $0.answer = answer
            $0.chunkSize = chunkSize
        }
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
        let delivery = state.withLock {
            state -> (
                (@Sendable (Data?, URLResponse?, (any Error)?) -> Void), (Data?, URLResponse?, (any Error)?), Int?
            )? in
            guard let handler = state.completionHandler, let answer = state.answer else { return nil }
            state.completionHandler = nil
            state.timer = nil
            return (handler, answer, state.chunkSize)
        }
        guard let (handler, answer, chunkSize) = delivery else { return }
        if let sink, answer.2 == nil, let response = answer.1 as? HTTPURLResponse,
            (200..<300).contains(response.statusCode)
        {
            // Streamed: the body in the stub's chunks, pausing while the sink is full, then the end.
            ChunkFeeder.feed(answer.0 ?? Data(), of: response, in: chunkSize ?? .max, to: sink) {
                handler(nil, response, nil)
            }
            return
        }
        handler(answer.0, answer.1, answer.2)
    }
}
