import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session of one transfer's operation: sends each attempt through the module's session as a
/// ``SessionTransfer`` with the operation's progress reporter and, for a download, its file,
/// asking for the rest of the body when an earlier attempt left part of it.
///
/// The operation sees an ordinary session, so actions, retries, cancellation and the state
/// machine treat a transfer like any request. A class, so that the operation's optional
/// reference to it costs a plain request one pointer test.
final class TransferSession: NetworkSession {
    let base: any NetworkSession
    let reporter: ProgressReporter?
    let download: DownloadFile?
    /// For a stream, where its body goes.
    let chunks: SessionTransfer.ChunkSink?
    /// Asked before the actions are asked to retry a failed attempt; when it says no, no action is
    /// asked and the failure stands (a stream whose consumer has had chunks). `nil`: retries are
    /// the actions' decision alone.
    let retryAllowed: (@Sendable () -> Bool)?

    init(
        base: any NetworkSession, reporter: ProgressReporter?, download: DownloadFile?,
        chunks: SessionTransfer.ChunkSink? = nil, retryAllowed: (@Sendable () -> Bool)? = nil
    ) {
        self.base = base
        self.reporter = reporter
        self.download = download
        self.chunks = chunks
        self.retryAllowed = retryAllowed
    }

    /// The bytes of a stream's attempts handed to its sink, until the operation counts them.
    private let streamedBytes = LockedState(0)

    /// The body bytes an attempt received: `data`'s, those it wrote to the download's file, and
    /// those it handed to the stream.
    func receivedBytes(_ data: Data?) -> Int {
        let streamed =
            chunks == nil
            ? 0
            : streamedBytes.withLock { bytes in
                defer { bytes = 0 }
                return bytes
            }
        return (data?.count ?? 0) + (download?.takeWrittenBytes() ?? 0) + streamed
    }

    func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        dataTask(with: request, redirectPolicy: .follow, completionHandler: completionHandler)
    }

    func dataTask(
        with request: URLRequest, redirectPolicy: RedirectPolicy,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        var request = request
        var destination = SessionTransfer.Destination.memory
        if let download {
            let attempt: DownloadFile.Attempt
            do throws(URLError) {
                attempt = try download.beginAttempt()
            } catch {
                return UnsentTask(error: error, completionHandler: completionHandler)
            }
            if let validator = attempt.validator, attempt.resumingAt > 0 {
                request.setValue("bytes=\(attempt.resumingAt)-", forHTTPHeaderField: "Range")
                request.setValue(validator, forHTTPHeaderField: "If-Range")
            }
            destination = .file(attempt.partialURL, resumingAt: attempt.resumingAt)
        }
        if let chunks {
            // Counted on the way to the sink, for ActionContext.bytesReceived.
            let streamedBytes = streamedBytes
            destination = .chunks(
                SessionTransfer.ChunkSink { chunk, response, onRoom in
                    streamedBytes.withLock { $0 += chunk.count }
                    return chunks.receive(chunk, of: response, onRoom: onRoom)
                })
        }
        var progress: (@Sendable (TransferProgress) -> Void)?
        if let reporter {
            progress = { report in reporter.report(report) }
        }
        let transfer = SessionTransfer(redirectPolicy: redirectPolicy, destination: destination, progress: progress)
        return base.transferTask(with: request, transfer: transfer) { [download] data, response, error in
            download?.attemptEnded(response: response)
            completionHandler(data, response, error)
        }
    }
}
