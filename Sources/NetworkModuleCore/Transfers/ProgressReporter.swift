import Foundation

/// Hands a session's progress reports to the caller's handler through the module's completion
/// executor, as ``ProgressThrottle`` allows: the throttle behind one lock, the handler called
/// outside it.
final class ProgressReporter: Sendable {
    private let handler: @Sendable (TransferProgress) -> Void
    private let executor: any CompletionExecutor
    private let throttle = LockedState(ProgressThrottle())

    init(executor: any CompletionExecutor, handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.executor = executor
        self.handler = handler
    }

    /// A report from the session, from any thread.
    func report(_ report: TransferProgress) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard let delivery = throttle.withLock({ $0.received(report, at: now) }) else { return }
        executor.execute { [self] in
            if throttle.withLock({ $0.mayDeliver(delivery) }) { handler(delivery.report) }
        }
    }

    /// Ends the reports and returns the call that delivers the final ones; run it on the
    /// completion executor, just before the result, so that they come before it.
    func finish<Success>(after result: Result<Success, NetworkError>) -> @Sendable () -> Void {
        let succeeded = if case .success = result { true } else { false }
        let reports = throttle.withLock { $0.finish(succeeded: succeeded) }
        return { [handler] in
            for report in reports { handler(report) }
        }
    }
}
