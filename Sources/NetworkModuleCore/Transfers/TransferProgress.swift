import Foundation

/// How far one direction of a request's transfer has got: bytes done, and bytes expected when
/// the request or the server said.
///
/// ```swift
/// module.download(request: GetVideo(id: 7), to: DownloadDestination(videoURL), progress: { progress in
///     guard !progress.isUpload else { return }
///     bar.progress = Float(progress.fractionCompleted ?? 0)
/// }) { result in show(result) }
/// ```
///
/// Reports reach the caller through the module's completion executor, at most about 60 a second
/// for each direction of a request; the last report of each direction comes at completion, before
/// the result. See `docs/transfers.md`.
public struct TransferProgress: Sendable, Equatable {
    /// Which way the bytes go: `true` for the request body, to the server; `false` for the
    /// response body, from the server (a download).
    public let isUpload: Bool
    /// Bytes sent or received so far, in this attempt; for a resumed download, the bytes already
    /// on disk count as received.
    public let completedBytes: Int64
    /// The bytes expected in all: the body's length, or the response's `Content-Length` (plus the
    /// bytes already on disk, for a resumed download); `nil` when nobody said.
    public let expectedBytes: Int64?

    /// Creates a report; sessions and fakes create them, callers only read them.
    ///
    /// - Parameters:
    ///   - isUpload: `true` for the request body's progress, `false` for the response body's.
    ///   - completedBytes: the bytes moved so far; a negative count is taken as 0.
    ///   - expectedBytes: the bytes expected in all, `nil` when unknown; a negative count is
    ///     taken as 0.
    init(isUpload: Bool, completedBytes: Int64, expectedBytes: Int64?) {
        self.isUpload = isUpload
        self.completedBytes = max(0, completedBytes)
        self.expectedBytes = expectedBytes.map { max(0, $0) }
    }

    /// `completedBytes` over `expectedBytes`, between 0 and 1; `nil` when the total is unknown.
    /// An expected total of zero bytes is complete.
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }
}
