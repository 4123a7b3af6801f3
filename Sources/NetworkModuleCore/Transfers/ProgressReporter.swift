import Foundation

/// Hands a session's progress reports to the caller's handler through the module's completion
/// executor, as ``ProgressThrottle`` allows: the throttle behind one lock, the handler called
/// outside it.
final class ProgressReporter: Sendable {
    private struct State {
        var throttle = ProgressThrottle()
        /// The end, while it waits for deliveries still running (``ProgressThrottle/endIsReady()``).
        var waitingEnd: (@Sendable () -> Void)?
    }

    private let handler: @Sendable (TransferProgress) -> Void
    private let executor: any CompletionExecutor
    private let state = LockedState(State())

    init(executor: any CompletionExecutor, handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.executor = executor
        self.handler = handler
    }

    /// A report from the session, from any thread.
    func report(_ report: TransferProgress) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard let delivery = state.withLock({ $0.throttle.received(report, at: now) }) else { return }
        executor.execute { [self] in
            guard state.withLock({ $0.throttle.mayDeliver(delivery) }) else { return }
            handler(delivery.report)
            let end = state.withLock { state in state.throttle.delivered() ? state.waitingEnd.take() : nil }
            end?()
        }
    }

    /// Ends the reports and returns the end: a call, to run on the completion executor, that
    /// delivers the final reports and then runs `then` (which delivers the result). On a
    /// concurrent executor a report handed to the caller before the end may still be running:
    /// the end then waits for it, and runs on its thread when it returns.
    func finish<Success>(
        after result: Result<Success, NetworkError>
    ) -> @Sendable (_ then: @escaping @Sendable () -> Void) -> Void {
        let succeeded = if case .success = result { true } else { false }
        let reports = state.withLock { $0.throttle.finish(succeeded: succeeded) }
        return { [handler, state] then in
            let end: @Sendable () -> Void = {
                for report in reports { handler(report) }
                then()
            }
            let runsNow = state.withLock { state in
                guard !state.throttle.endIsReady() else { return true }
                state.waitingEnd = end
                return false
            }
            if runsNow { end() }
        }
    }
}
