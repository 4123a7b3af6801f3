import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension NetworkModule {
    /// ``perform(request:completion:)``, then one download report, complete, when it succeeds:
    /// what a module that cannot see the bytes move can say.
    @discardableResult
    public func perform(
        request: any NetworkRequest,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        perform(request: request) { result in
            if case .success(let response) = result {
                let received = Int64(response.data.count)
                progress(TransferProgress(direction: .download, completedBytes: received, expectedBytes: received))
            }
            completion(result)
        }
    }

    /// ``perform(request:completion:)``, then the body, held in memory, written to
    /// `destination` as ``DefaultNetworkModule`` would leave it: right for fakes and small files.
    @discardableResult
    public func download(
        request: any NetworkRequest,
        to destination: DownloadDestination,
        progress: (@Sendable (TransferProgress) -> Void)?,
        completion: @escaping @Sendable (Result<DownloadResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        perform(request: request) { result in
            let file = DownloadFile(destination: destination)
            let output = result.flatMap { response -> Result<DownloadResponse, NetworkError> in
                do throws(URLError) {
                    _ = try file.beginAttempt()
                } catch {
                    return .failure(NetworkError(error))
                }
                return file.place(response)
            }
            if case .success(let download) = output, let progress {
                let received = DownloadFile.size(of: download.fileURL)
                progress(TransferProgress(direction: .download, completedBytes: received, expectedBytes: received))
            }
            completion(output)
        }
    }

    /// ``download(request:to:progress:completion:)`` with no progress handler.
    ///
    /// ```swift
    /// module.download(request: GetVideo(id: 7), to: DownloadDestination(videoURL)) { result in
    ///     if case .success(let download) = result { player.play(download.fileURL) }
    /// }
    /// ```
    @discardableResult
    public func download(
        request: any NetworkRequest,
        to destination: DownloadDestination,
        completion: @escaping @Sendable (Result<DownloadResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        download(request: request, to: destination, progress: nil, completion: completion)
    }
}
