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
        /// What runs once resumed: the `URLSessionDataTask` and the deadline of the response.
        private typealias Running = (task: URLSessionDataTask, deadline: Deadline)

        private let lifecycle: LockedState<SessionTaskLifecycle<Running>>
        private let session: URLSession
        private let request: URLRequest

        init(
            session: URLSession, request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) {
            self.lifecycle = LockedState(SessionTaskLifecycle(handler: completionHandler))
            self.session = session
            self.request = request
        }

        func resume() {
            guard lifecycle.withLock({ $0.resume() }) else { return }
            let lifecycle = lifecycle
            let session = session
            var outgoing = request
            outgoing.timeoutInterval = LinuxURLSessionQuirks.outgoingTimeout(
                for: request.timeoutInterval, idleTimeoutEnforced: false)
            let url = request.url
            let task = LinuxURLSessionQuirks.task(in: session, for: outgoing) { data, response, error in
                Self.report(
                    to: lifecycle, data, response, error.map { LinuxURLSessionQuirks.normalized($0, sentTo: url) })
            }
            let deadline = ResponseDeadlines.shared.schedule(after: request.timeoutInterval) {
                Self.report(to: lifecycle, nil, nil, URLError.timedOut(url))
                if LinuxURLSessionQuirks.cancelIsSafe(on: session) { task.cancel() }
            }
            if lifecycle.withLock({ $0.started((task, deadline)) }) {
                task.resume()
            } else {
                // Cancelled while the task was being created: it was never resumed, and
                // cancelling a task before it runs is safe; it leaves the session's registry.
                deadline.cancel()
                task.cancel()
            }
        }

        func cancel() {
            let running = Self.report(to: lifecycle, nil, nil, URLError.cancelled(request))
            if let task = running?.task, LinuxURLSessionQuirks.cancelIsSafe(on: session) { task.cancel() }
        }

        /// Reports the outcome, once, and stops the deadline; returns what was running, the
        /// first time, for a cancel to stop.
        @discardableResult
        private static func report(
            to lifecycle: LockedState<SessionTaskLifecycle<Running>>, _ data: Data?, _ response: URLResponse?,
            _ error: (any Error)?
        ) -> Running? {
            guard let (handler, running) = lifecycle.withLock({ $0.finish() }) else { return nil }
            running?.deadline.cancel()
            handler(data, response, error)
            return running
        }
    }
#endif
