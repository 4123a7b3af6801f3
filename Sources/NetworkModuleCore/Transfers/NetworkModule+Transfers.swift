import Foundation

extension NetworkModule {
    /// Performs `request` and tells `progress` how far its upload and download have got, through
    /// the completion executor, at most about 60 times a second per direction, the last time at
    /// completion, before the result. See `docs/transfers.md`.
    ///
    /// A module of your own (a mock) reports the download once, complete, when it succeeds:
    /// what a module that cannot see the bytes move can say.
    @discardableResult
    public func perform(
        request: any NetworkRequest,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        let call = call(.description(request))
        let reporter = ProgressReporter(executor: call.module.completionExecutor, handler: progress)
        let session = TransferOperationSession(base: call.module.transferringSession, reporter: reporter, download: nil)
        return call.start(transfer: session) { result in
            let end = reporter.finish(after: result)
            return (result, { cancelled in end { completion(cancelled ? .failure(.cancelled) : result) } })
        }
    }

    /// Performs `request` and streams its body to a file, moved to `destination` when the request
    /// succeeds; on failure or cancel no file is left. `progress`, when given, is told how far the
    /// transfer has got, as for ``perform(request:progress:completion:)``. See
    /// `docs/transfers.md`.
    ///
    /// ```swift
    /// module.download(request: GetVideo(id: 7), to: DownloadDestination(videoURL)) { result in
    ///     if case .success(let download) = result { player.play(download.fileURL) }
    /// }
    /// ```
    ///
    /// The body goes to a hidden file beside `destination` (never held whole in memory, and
    /// bounded by the session's response size limit), moved there when the request succeeds and
    /// removed whatever way it fails or is cancelled. A retry (by ``NetworkModuleAction/retry(_:random:now:)``, say) resumes
    /// from what the failed attempt wrote, with a `Range` request checked by `If-Range`, when the
    /// server sent a strong `ETag` or a `Last-Modified` date; otherwise it starts over.
    ///
    /// A module of your own (a mock) holds the body in memory and writes it to `destination` as
    /// ``DefaultNetworkModule`` would leave it: right for fakes and small files.
    @discardableResult
    public func download(
        request: any NetworkRequest,
        to destination: DownloadDestination,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DownloadResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        let call = call(.description(request))
        let reporter = progress.map { ProgressReporter(executor: call.module.completionExecutor, handler: $0) }
        let file = DownloadFile(destination: destination)
        let session = TransferOperationSession(
            base: call.module.transferringSession, reporter: reporter, download: file)
        return call.start(transfer: session) { result in
            // Off the completion executor: the file is moved (or removed) before the actions'
            // didFinish and before the caller hears of it.
            let output = result.flatMap(file.place)
            if case .failure = output { file.discard() }
            let seen = output.map(\.response)
            // Cancelled after the file was placed, before the caller heard of it: a cancel leaves
            // no file.
            let deliver: @Sendable (Bool) -> Void = { cancelled in
                guard cancelled else { return completion(output) }
                if case .success(let download) = output { try? FileManager.default.removeItem(at: download.fileURL) }
                completion(.failure(.cancelled))
            }
            guard let end = reporter?.finish(after: output) else { return (seen, deliver) }
            return (seen, { cancelled in end { deliver(cancelled) } })
        }
    }
}
