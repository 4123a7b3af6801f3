import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task of a ``FakeNetworkSession``: answers once, or reports `URLError.cancelled` if it is
/// cancelled first.
final class FakeSessionTask: NetworkSessionTask {
    private struct State {
        /// What runs once resumed: the timer of a delayed answer, if any.
        var lifecycle: SessionTaskLifecycle<any NetworkCancellable>
        var answer: (Data?, URLResponse?, (any Error)?)?
        var chunkSize: Int?
    }

    let request: URLRequest
    /// The answer chosen before the task was made, if any; otherwise the session's stubs answer.
    let presetAnswer: StubbedResponse?
    /// How stubbed redirects are treated.
    let redirectPolicy: RedirectPolicy
    /// Where a streamed 2xx body goes; `nil` to hand it to the completion handler.
    let sink: TransferOptions.ChunkSink?
    /// Strong: a held task keeps its session alive until it answers or is cancelled.
    private let session: FakeNetworkSession
    private let state: LockedState<State>

    init(
        session: FakeNetworkSession, request: URLRequest, presetAnswer: StubbedResponse?,
        redirectPolicy: RedirectPolicy, sink: TransferOptions.ChunkSink? = nil,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        self.session = session
        self.request = request
        self.presetAnswer = presetAnswer
        self.redirectPolicy = redirectPolicy
        self.sink = sink
        self.state = LockedState(State(lifecycle: SessionTaskLifecycle(handler: completionHandler)))
    }

    func resume() {
        if state.withLock({ $0.lifecycle.resume() }) { session.resume(self) }
    }

    func cancel() {
        guard let (handler, timer) = state.withLock({ $0.lifecycle.finish() }) else { return }
        timer?.cancel()
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
        if !state.withLock({ $0.lifecycle.started(timer) }) { timer.cancel() }
    }

    /// Delivers the answer, unless it was delivered or cancelled already.
    func deliverAnswer() {
        let delivery = state.withLock {
            state -> (SessionCompletionHandler, (Data?, URLResponse?, (any Error)?), Int?)?
            in
            guard let answer = state.answer, let (handler, _) = state.lifecycle.finish() else { return nil }
            return (handler, answer, state.chunkSize)
        }
        guard let (handler, answer, chunkSize) = delivery else { return }
        if let sink, answer.2 == nil, let response = answer.1 as? HTTPURLResponse,
            AcceptableStatusCodes.successful.contains(response.statusCode)
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
