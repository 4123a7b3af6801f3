import Foundation

/// Where a download's file goes, and what to do about a file already there and a folder not yet
/// there.
///
/// ```swift
/// let destination = DownloadDestination(documents.appendingPathComponent("videos/intro.mp4"))
/// module.download(request: GetVideo(id: 7), to: destination) { result in show(result) }
/// ```
///
/// The body is streamed to a hidden file beside the destination (so that the last step is a
/// rename on one volume, not a copy) and moved there only when the request succeeds; whatever
/// way it fails or is cancelled, nothing is left behind. See `docs/transfers.md`.
public struct DownloadDestination: Sendable, Equatable {
    /// The file's URL: a `file:` URL.
    public let url: URL
    /// Whether a file already at ``url`` is replaced. When `true`, it is replaced in one step once
    /// the download has succeeded (until then it stays as it was); when `false`, the download
    /// fails, before anything is sent, with `URLError.cannotCreateFile` (see
    /// ``NetworkError/transportError(_:)-enum.case``).
    public let replacesExistingFile: Bool
    /// Whether the folders up to ``url`` are created when missing; when `false`, a missing folder
    /// fails the download with `URLError.cannotCreateFile`.
    public let createsFolders: Bool

    /// A destination at `url`.
    ///
    /// - Parameters:
    ///   - url: a `file:` URL; any other URL fails the download, before anything is sent, with
    ///     `URLError.cannotCreateFile`.
    ///   - replacesExistingFile: whether a file already there is replaced once the download has
    ///     succeeded (`true`, the default) or fails the download before anything is sent (`false`).
    ///   - createsFolders: whether missing folders are created: `true` by default.
    public init(_ url: URL, replacesExistingFile: Bool = true, createsFolders: Bool = true) {
        self.url = url
        self.replacesExistingFile = replacesExistingFile
        self.createsFolders = createsFolders
    }
}
