import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task that is never sent: it reports its ``Answer`` when resumed (an error, or a response
/// no server sent, such as a cache's `504` for `only-if-cached`), or cancellation if cancelled
/// first; either way once.
final class UnsentTask: NetworkSessionTask {
    /// What the task reports when resumed.
    enum Answer: Sendable {
        case failure(URLError)
        case response(Data, HTTPURLResponse)

        /// Hands the answer to `handler`, as a session's completion handler takes it.
        func report(to handler: (Data?, URLResponse?, (any Error)?) -> Void) {
            switch self {
            case .failure(let error): handler(nil, nil, error)
            case .response(let data, let response): handler(data, response, nil)
            }
        }
    }

    private let answer: Answer
    /// Nothing ever runs for it.
    private let lifecycle: LockedState<SessionTaskLifecycle<Never>>

    init(answer: Answer, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) {
        self.answer = answer
        self.lifecycle = LockedState(SessionTaskLifecycle(handler: completionHandler))
    }

    func resume() { report(answer) }

    func cancel() { report(.failure(URLError(.cancelled))) }

    private func report(_ answer: Answer) {
        guard let handler = lifecycle.withLock({ $0.finish() })?.handler else { return }
        answer.report(to: handler)
    }
}
