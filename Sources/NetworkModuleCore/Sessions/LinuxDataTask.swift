#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// A `URLSessionDataTask` adapted to behave on Linux as it does on Apple platforms: the
    /// request's timeout is enforced (``ResponseDeadlines``) and libcurl's error codes are
    /// mapped to Apple's (``LinuxURLSessionQuirks``).
    final class LinuxDataTask: NetworkSessionTask {
        private typealias CompletionHandler = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

        private struct State {
            /// Present until the outcome is reported: taking it out reports it, once.
            var completionHandler: CompletionHandler?
            var deadline: Deadline?
        }

        private let state: LockedState<State>
        private let timeout: TimeInterval
        private let task: URLSessionDataTask

        init(
            session: URLSession, request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) {
            let state = LockedState(State(completionHandler: completionHandler))
            self.state = state
            timeout = request.timeoutInterval
            task = session.dataTask(with: request) { data, response, error in
                Self.report(to: state, data, response, error.map(LinuxURLSessionQuirks.normalized))
            }
        }

        func resume() {
            let task = task
            let state = state
            let deadline = ResponseDeadlines.shared.schedule(after: timeout) {
                Self.report(to: state, nil, nil, URLError(.timedOut))
                task.cancel()
            }
            let isRunning = state.withLock { state -> Bool in
                guard state.completionHandler != nil else { return false }
                state.deadline = deadline
                return true
            }
            if isRunning { task.resume() } else { deadline.cancel() }
        }

        func cancel() {
            task.cancel()
        }

        private static func report(
            to state: LockedState<State>, _ data: Data?, _ response: URLResponse?, _ error: (any Error)?
        ) {
            let taken = state.withLock { state -> (CompletionHandler, Deadline?)? in
                guard let handler = state.completionHandler else { return nil }
                defer {
                    state.completionHandler = nil
                    state.deadline = nil
                }
                return (handler, state.deadline)
            }
            guard let (handler, deadline) = taken else { return }
            deadline?.cancel()
            handler(data, response, error)
        }
    }
#endif
