import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session of one transfer's operation: sends each attempt through the module's session as a
/// ``TransferOptions`` with the operation's progress reporter and, for a download, its file,
/// asking for the rest of the body when an earlier attempt left part of it.
///
/// The operation sees an ordinary session, so actions, retries, cancellation and the state
/// machine treat a transfer like any request. A class, so that the operation's optional
/// reference to it costs a plain request one pointer test.
final class TransferOperationSession: TransferringSession {
    let base: any TransferringSession
    let reporter: ProgressReporter?
    let download: DownloadFile?
    /// For a stream, where its body goes.
    let chunks: TransferOptions.ChunkSink?
    /// Asked before the actions are asked to retry a failed attempt; when it says no, no action is
    /// asked and the failure stands (a stream whose consumer has had chunks). `nil`: retries are
    /// the actions' decision alone.
    let retryAllowed: (@Sendable () -> Bool)?

    init(
        base: any TransferringSession, reporter: ProgressReporter?, download: DownloadFile?,
        chunks: TransferOptions.ChunkSink? = nil, retryAllowed: (@Sendable () -> Bool)? = nil
    ) {
        self.base = base
        self.reporter = reporter
        self.download = download
        self.chunks = chunks
        self.retryAllowed = retryAllowed
    }

    /// The body bytes attempts wrote to the download's file or handed to the stream, until the
    /// operation counts them.
    private let uncountedBytes = LockedState(0)

    /// The body bytes an attempt received, once: `data`'s, and those it wrote to the download's
    /// file or handed to the stream.
    func receivedBytes(_ data: Data?) -> Int {
        let transferred = uncountedBytes.withLock { bytes in
            defer { bytes = 0 }
            return bytes
        }
        return (data?.count ?? 0) + transferred
    }

    /// Sends the attempt through the module's session with `transfer`'s redirect policy and this
    /// operation's destination and progress.
    func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        var request = request
        var destination = TransferOptions.Destination.memory
        if let download {
            let attempt: DownloadFile.Attempt
            do throws(URLError) {
                // A range the caller asked for is honoured: never replaced by a resume.
                attempt = try download.beginAttempt(resumable: request.value(forHTTPHeaderField: "Range") == nil)
            } catch {
                return UnsentTask(answer: .failure(error), completionHandler: completionHandler)
            }
            if let validator = attempt.validator, attempt.resumingAt > 0 {
                request.setValue("bytes=\(attempt.resumingAt)-", forHTTPHeaderField: "Range")
                request.setValue(validator, forHTTPHeaderField: "If-Range")
            }
            destination = .file(attempt.partialURL, resumingAt: attempt.resumingAt)
        }
        if let chunks {
            // Counted on the way to the sink, for ActionContext.bytesReceived.
            let uncountedBytes = uncountedBytes
            destination = .chunks(
                TransferOptions.ChunkSink { chunk, response, onRoom in
                    uncountedBytes.withLock { $0 += chunk.count }
                    return chunks.receive(chunk, of: response, onRoom: onRoom)
                })
        }
        var progress: (@Sendable (TransferProgress) -> Void)?
        if let reporter {
            progress = { report in reporter.report(report) }
        }
        let transfer = TransferOptions(
            redirectPolicy: transfer.redirectPolicy, destination: destination, progress: progress,
            recorder: transfer.recorder)
        return base.transferTask(with: request, transfer: transfer) {
            [download, uncountedBytes] data, response, error in
            if let written = download?.attemptEnded(response: response) {
                uncountedBytes.withLock { $0 += Int(clamping: written) }
            }
            completionHandler(data, response, error)
        }
    }
}
