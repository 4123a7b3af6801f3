import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session of one transfer's operation: sends each attempt through the module's session as a
/// ``SessionTransfer`` with the operation's progress reporter and, for a download, its file,
/// asking for the rest of the body when an earlier attempt left part of it.
///
/// The operation sees an ordinary session, so actions, retries, cancellation and the state
/// machine treat a transfer like any request.
struct TransferSession: NetworkSession {
    let base: any NetworkSession
    let reporter: ProgressReporter?
    let download: DownloadFile?

    /// The body bytes an attempt received: `data`'s, and those it wrote to the download's file.
    func receivedBytes(_ data: Data?) -> Int {
        (data?.count ?? 0) + (download?.takeWrittenBytes() ?? 0)
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
