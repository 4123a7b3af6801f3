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
    /// What to do when a file is already at the destination.
    public enum ExistingFile: Sendable, Equatable {
        /// Replace it, in one step, once the download has succeeded: until then it stays as it was.
        case replace
        /// Fail the download, before anything is sent, with `URLError.cannotCreateFile` (see
        /// ``NetworkError/transportError(_:)-enum.case``).
        case fail
    }

    /// The file's URL: a `file:` URL.
    public let url: URL
    /// What to do when a file is already at ``url``.
    public let existingFile: ExistingFile
    /// Whether the folders up to ``url`` are created when missing; when `false`, a missing folder
    /// fails the download with `URLError.cannotCreateFile`.
    public let createsFolders: Bool

    /// A destination at `url`.
    ///
    /// - Parameters:
    ///   - url: a `file:` URL; any other URL fails the download, before anything is sent, with
    ///     `URLError.cannotCreateFile`.
    ///   - existingFile: what to do about a file already there: ``ExistingFile/replace`` by default.
    ///   - createsFolders: whether missing folders are created: `true` by default.
    public init(_ url: URL, existingFile: ExistingFile = .replace, createsFolders: Bool = true) {
        self.url = url
        self.existingFile = existingFile
        self.createsFolders = createsFolders
    }
}
