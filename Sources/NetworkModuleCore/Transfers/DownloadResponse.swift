import Foundation

/// A finished download: the file at its destination, and the response it came with.
///
/// ```swift
/// module.download(request: GetVideo(id: 7), to: destination) { result in
///     if case .success(let download) = result { player.play(download.fileURL) }
/// }
/// ```
public struct DownloadResponse: Sendable, Equatable {
    /// Where the body is: the destination's URL.
    public let fileURL: URL
    /// The response, whose ``NetworkResponse/data`` is empty: the body is in the file.
    public let response: NetworkResponse

    /// The HTTP status code.
    public var statusCode: Int { response.statusCode }
}
