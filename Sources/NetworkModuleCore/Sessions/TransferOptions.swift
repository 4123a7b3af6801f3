import Foundation

/// What a ``NetworkSession`` task does with a request besides sending it and collecting its
/// body: redirects, where a successful body goes, and whom it tells of progress. Every
/// ``TransferringSession`` applies it as below (a decorator passes it on); a user's session gets
/// it applied by ``BufferedSession``.
package struct TransferOptions: Sendable {
    /// Where the body of a successful response goes.
    package enum Destination: Sendable, Equatable {
        /// Collected in memory and handed to the completion handler as its data.
        case memory
        /// Written to the file at `url` as it arrives when the status is 2xx (the completion
        /// handler then gets no data): a `206` whose `Content-Range` starts at `resumingAt` is
        /// appended after the file's first `resumingAt` bytes (anything after them cut off), a
        /// `206` that starts elsewhere fails with `URLError.cannotParseResponse`, any other 2xx
        /// replaces the file (created if missing). Any other status leaves the file alone, its
        /// body collected in memory. A file that cannot be created or written fails the task with
        /// `URLError.cannotCreateFile` or `.cannotWriteToFile`, saying why. What is written stays
        /// when the task fails: the module removes the file or resumes from it.
        case file(URL, resumingAt: Int64)
        /// Handed to `sink` chunk by chunk as it arrives, in order and one at a time, when the
        /// status is 2xx; the completion handler is then called after the last chunk, with no
        /// data. When ``ChunkSink/receive(_:of:onRoom:)`` returns `false`, the session stops
        /// reading (chunks already read are still handed over) until the sink calls `onRoom`; a
        /// paused body is not idle for the timeout. Any other status is collected in memory, the
        /// sink gets none of it. The session's limits apply (``URLSessionTransport/maximumResponseSize``);
        /// a task cancelled, failed or completed hands the sink nothing more. A session that cannot
        /// stream (``BufferedSession``) hands the whole body over as one chunk.
        case chunks(ChunkSink)
    }

    /// How redirects are treated.
    package var redirectPolicy: RedirectPolicy
    /// Where the body of a successful response goes.
    package var destination: Destination
    /// Told how far each direction has got, from any thread, as often as the session likes, in
    /// bytes from the start of this task (a resumed ``Destination/file(_:resumingAt:)`` counts the
    /// kept bytes too); `nil` when nobody asked. The module bounds how often its callers hear it.
    package var progress: (@Sendable (TransferProgress) -> Void)?
    /// Whether the completion handler returns at once: it runs no action's hook, decodes
    /// nothing and hands its caller's completion to a queue (or calls one that asked to run on
    /// the session's thread, ``CompletionExecutor/immediate``). Then ``URLSessionTransport`` and a
    /// plain `URLSession` call it on `URLSession`'s delegate queue, as a raw completion handler
    /// runs, rather than on a queue of the framework's own (``CompletionHandlerQueue``): the
    /// hand-off costs each request thread wake-ups that nothing needs. `false` by default, so a
    /// handler nobody vouched for never holds up the delegate queue. The module sets it
    /// (`RequestOperation`); a decorator that shares one call among several callers does not.
    package var handlerIsShort: Bool
    /// Where the session writes what it learned of the attempt besides its answer (the
    /// platform's timings, a shared call), before calling the completion handler; `nil` when
    /// nobody reads it. A decorator that makes a call of its own passes on what that call's
    /// recorder got.
    package var recorder: AttemptRecorder?

    /// Creates a transfer; by default, redirects followed and the body collected in memory.
    package init(
        redirectPolicy: RedirectPolicy = .follow, destination: Destination = .memory,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, handlerIsShort: Bool = false,
        recorder: AttemptRecorder? = nil
    ) {
        self.redirectPolicy = redirectPolicy
        self.destination = destination
        self.progress = progress
        self.handlerIsShort = handlerIsShort
        self.recorder = recorder
    }

    /// Whether a task has anything to do besides a plain data task's: a destination other than
    /// memory, or someone to tell of progress.
    var needsApplying: Bool {
        if case .memory = destination { progress != nil } else { true }
    }
}
