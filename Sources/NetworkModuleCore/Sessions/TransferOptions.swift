import Foundation

/// What a ``NetworkSession`` task does with a request besides sending it and collecting its
/// body: how it treats redirects, where a successful body goes, and whom it tells how far the
/// transfer has got.
///
/// The module hands one with every request to its session, made a ``TransferringSession`` once
/// (``NetworkSession/transferring``): the transport, the decorators and the testing library's
/// sessions read it as the contract below (one that wraps another passes it on); any other
/// session, wrapped in a ``BufferedSession``, gets it applied to its data task's body.
package struct TransferOptions: Sendable {
    /// Where the body of a successful response goes.
    package enum Destination: Sendable, Equatable {
        /// Collected in memory and handed to the completion handler as its data.
        case memory
        /// Written to the file at `url` as it arrives, never held whole in memory, when the
        /// status is 2xx; the completion handler then gets no data.
        ///
        /// - A `206 Partial Content` whose `Content-Range` starts at `resumingAt` is appended
        ///   after the file's first `resumingAt` bytes (anything after them is cut off first). A
        ///   `206` that starts anywhere else fails with `URLError.cannotParseResponse`; it is only
        ///   ever the answer to a `Range` request the module sent.
        /// - Any other 2xx body replaces the file's contents (the file is created if missing).
        /// - Any other status leaves the file alone: its body is collected in memory, as for
        ///   ``memory``, so that an error body can still be read.
        /// - A file that cannot be created or written (a missing folder, no permission, a full
        ///   disk) fails the task with `URLError.cannotCreateFile` or `URLError.cannotWriteToFile`,
        ///   whose message says why.
        ///
        /// Whatever is written stays when the task fails: the module removes the file or keeps it
        /// to resume from.
        case file(URL, resumingAt: Int64)
        /// Handed to `sink` chunk by chunk as it arrives, in order and one chunk at a time, never
        /// held whole in memory, when the status is 2xx; the completion handler is then called
        /// after the last chunk, with no data.
        ///
        /// - Flow control: when ``ChunkSink/receive(_:of:onRoom:)`` returns `false` the sink is
        ///   full, and the session stops reading the body (it may still hand over the chunks it
        ///   read already) until the sink calls `onRoom`. A paused body does not count as idle for
        ///   the request's timeout.
        /// - Any other status is collected in memory, as for ``memory``, so that an error body can
        ///   still be read; the sink gets none of it.
        /// - The session's own limits apply to the streamed bytes as to any body (for
        ///   ``URLSessionTransport``, ``URLSessionTransport/maximumResponseSize``).
        /// - A task cancelled, failed or completed hands the sink nothing more.
        ///
        /// A session that cannot stream (a user's, through ``BufferedSession``) hands the whole
        /// body over as one chunk once it has arrived.
        case chunks(ChunkSink)
    }

    /// How redirects are treated.
    package var redirectPolicy: RedirectPolicy
    /// Where the body of a successful response goes.
    package var destination: Destination
    /// Told how far each direction has got, from any thread, as often as the session likes (for
    /// every chunk, say), with bytes counted from the start of this task; `nil` when nobody asked.
    /// For a `206` that resumes a ``Destination/file(_:resumingAt:)``, the download's completed
    /// and expected bytes count the kept bytes too, so that a resumed download reports how much
    /// of the whole file is there. The module bounds the rate at which its callers hear of it.
    package var progress: (@Sendable (TransferProgress) -> Void)?

    /// Creates a transfer; by default, redirects followed and the body collected in memory.
    package init(
        redirectPolicy: RedirectPolicy = .follow, destination: Destination = .memory,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) {
        self.redirectPolicy = redirectPolicy
        self.destination = destination
        self.progress = progress
    }

    /// Whether a session that holds bodies in memory has anything to do besides its data task:
    /// a destination other than memory, or someone to tell of progress.
    var needsApplying: Bool {
        if case .memory = destination { progress != nil } else { true }
    }
}
