import Foundation

/// The one result of a ``TransferTask``, and the tasks waiting for it.
final class TransferTaskOutcome<Output: Sendable>: Sendable {
    private struct State {
        var result: Result<Output, NetworkError>?
        var waiters: [CheckedContinuation<Result<Output, NetworkError>, Never>] = []
    }

    /// The transfer's request: cancelled by ``cancel()``, even before its handle exists.
    let request = LockedState(TaskLifecycle<any NetworkCancellable, Void>(handler: ()))
    private let state = LockedState(State())

    /// The transfer ended: every waiter, present and future, gets `result`; later calls do nothing.
    func complete(_ result: Result<Output, NetworkError>) {
        request.withLock { _ = $0.finish() }
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Output, NetworkError>, Never>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    func cancel() {
        request.cancel()
    }

    func value() async throws(NetworkError) -> Output {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Output, NetworkError>, Never>) in
                let ready = state.withLock { state -> Result<Output, NetworkError>? in
                    if let result = state.result { return result }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }
}
