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
    private let outcome: TransferTaskOutcome<Output>

    init(
        start: (
            _ progress: @escaping @Sendable (TransferProgress) -> Void,
            _ completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
        ) -> any NetworkCancellable
    ) {
        let (progress, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let outcome = TransferTaskOutcome<Output>()
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
