import Foundation

/// A transfer started for async code: its progress as an `AsyncSequence`, and its result to
/// await.
///
/// ```swift
/// let transfer = module.downloadTask(request: GetVideo(id: 7), to: DownloadDestination(videoURL))
/// Task { @MainActor in
///     for await progress in transfer.progress { bar.progress = Float(progress.fractionCompleted ?? 0) }
/// }
/// let download = try await transfer.value
/// ```
///
/// The reports come as ``NetworkModule/download(request:to:progress:completion:)`` gives them (at
/// most about 60 a second per direction, the last at completion) and the sequence ends when the
/// transfer does, before ``value`` returns. Cancelling a `Task` that awaits ``value``, or calling
/// ``cancel()``, cancels the transfer, which then throws ``NetworkError/cancelled``.
public struct TransferTask<Output: Sendable>: Sendable {
    /// The transfer's progress reports; the sequence ends when the transfer ends.
    public let progress: AsyncStream<TransferProgress>
    private let outcome: TransferOutcome<Output>

    init(
        start: (
            _ progress: @escaping @Sendable (TransferProgress) -> Void,
            _ completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
        ) -> any NetworkCancellable
    ) {
        let (progress, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let outcome = TransferOutcome<Output>()
        self.progress = progress
        self.outcome = outcome
        outcome.request.start {
            start(
                { report in continuation.yield(report) },
                { result in
                    continuation.finish()
                    outcome.complete(result)
                })
        }
    }

    /// The transfer's result, once it has ended; awaited by any number of tasks.
    public var value: Output {
        get async throws(NetworkError) {
            try await outcome.value()
        }
    }

    /// Cancels the transfer: ``value`` throws ``NetworkError/cancelled`` unless it already ended.
    public func cancel() {
        outcome.cancel()
    }
}

extension NetworkModule {
    /// Starts a download for async code: ``TransferTask/progress`` to follow it, and
    /// ``TransferTask/value`` to await the file. See ``download(request:to:progress:completion:)``.
    public func downloadTask(request: any NetworkRequest, to destination: DownloadDestination) -> TransferTask<
        DownloadResponse
    > {
        TransferTask { progress, completion in
            download(request: request, to: destination, progress: progress, completion: completion)
        }
    }

    /// Starts a request for async code, with its upload and download progress in
    /// ``TransferTask/progress``. See ``perform(request:progress:completion:)``.
    public func performTask(request: any NetworkRequest) -> TransferTask<NetworkResponse> {
        TransferTask { progress, completion in
            perform(request: request, progress: progress, completion: completion)
        }
    }
}

/// The one result of a ``TransferTask``, and the tasks waiting for it.
final class TransferOutcome<Output: Sendable>: Sendable {
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
