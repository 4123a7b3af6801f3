#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// A `URLSessionDataTask` of a plain `URLSession`, adapted to behave on Linux as it does on
    /// Apple platforms where it can: the request's timeout is enforced (``ResponseDeadlines``)
    /// and libcurl's error codes are mapped to Apple's (``LinuxURLSessionQuirks``).
    ///
    /// - The `URLSessionDataTask` is created when the task is resumed, so a task cancelled
    ///   before that never creates one (swift-corelibs-foundation would keep a created task,
    ///   and its completion handler, until the session is invalidated).
    /// - The timeout is a deadline for the whole response, counted from `resume()`: with a
    ///   completion handler, swift-corelibs-foundation shows no progress to measure idleness
    ///   by. (``URLSessionTransport``, whose delegate sees every chunk, makes it an idle
    ///   timeout, as on Apple platforms.)
    /// - A resumed task is cancelled in the `URLSession` only where that is safe
    ///   (``LinuxURLSessionQuirks/cancelIsSafe(on:)``: the session has no `URLCache`).
    ///   Otherwise the caller still gets its `.cancelled` or `.timedOut` at once, and the
    ///   transfer runs on until it ends or Linux's own timer stops it, one second after the
    ///   request's timeout; its answer is dropped.
    final class LinuxDataTask: NetworkSessionTask {
        private typealias CompletionHandler = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

        private struct State {
            /// Present until the outcome is reported: taking it out reports it, once.
            var completionHandler: CompletionHandler?
            var isResumed = false
            /// The `URLSession`'s task, once created by `resume()`.
            var task: URLSessionDataTask?
            var deadline: Deadline?
        }

        private let state: LockedState<State>
        private let session: URLSession
        private let request: URLRequest

        init(
            session: URLSession, request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) {
            self.state = LockedState(State(completionHandler: completionHandler))
            self.session = session
            self.request = request
        }

        func resume() {
            let isFirst = state.withLock { state -> Bool in
                guard state.completionHandler != nil, !state.isResumed else { return false }
                state.isResumed = true
                return true
            }
            guard isFirst else { return }
            let state = state
            let session = session
            var outgoing = request
            outgoing.timeoutInterval = LinuxURLSessionQuirks.outgoingTimeout(
                for: request.timeoutInterval, idleTimeoutEnforced: false)
            let url = request.url
            let task = LinuxURLSessionQuirks.task(in: session, for: outgoing) { data, response, error in
                Self.report(to: state, data, response, error.map { LinuxURLSessionQuirks.normalized($0, sentTo: url) })
            }
            let deadline = ResponseDeadlines.shared.schedule(after: request.timeoutInterval) {
                Self.report(to: state, nil, nil, URLError.timedOut(url))
                if LinuxURLSessionQuirks.cancelIsSafe(on: session) { task.cancel() }
            }
            let isRunning = state.withLock { state -> Bool in
                guard state.completionHandler != nil else { return false }
                state.task = task
                state.deadline = deadline
                return true
            }
            if isRunning {
                task.resume()
            } else {
                // Cancelled while the task was being created: it was never resumed, and
                // cancelling a task before it runs is safe; it leaves the session's registry.
                deadline.cancel()
                task.cancel()
            }
        }

        func cancel() {
            let task = state.withLock { $0.task }
            Self.report(to: state, nil, nil, URLError.cancelled(request))
            if let task, LinuxURLSessionQuirks.cancelIsSafe(on: session) { task.cancel() }
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
