import Foundation

/// The body streams the request builder made, with their sources: the transport makes a fresh
/// stream of the same body when `URLSession` asks for one, and the pipeline removes a body's
/// temporary file when the request ends (``release(_:)``). An entry whose stream is gone (a
/// request built and sent outside a module) is dropped, with its file, when the next stream is
/// made; any temporary file still known at a normal exit is removed then.
enum BodyStreams {
    private struct Entry {
        weak var stream: InputStream?
        let source: BodyStreamSource
    }

    /// The streams made, by identity; each entry checks that its stream is still the same
    /// object, as an identifier may be reused once a stream is gone.
    private static let entries = LockedState<[ObjectIdentifier: Entry]>([:])

    /// A new stream from `source`, known until its request ends.
    static func makeStream(from source: BodyStreamSource) throws(NetworkError) -> InputStream {
        if source.temporaryFile != nil { _ = exitCleanup }
        let stream = try source.newStream()
        let dropped = entries.withLock { entries in
            let dead = entries.filter { $0.value.stream == nil }
            for key in dead.keys { entries[key] = nil }
            entries[ObjectIdentifier(stream)] = Entry(stream: stream, source: source)
            return dead
        }
        // Dropped outside the lock: the last reference to a temporary file removes it from disk.
        _ = consume dropped
        return stream
    }

    /// A new stream of the same body as `stream` (a retry's, a redirect's), known here as
    /// `stream` is, so that a later `needNewBodyStream` for it finds the body too; `nil` for a
    /// stream the builder did not make, or one whose source fails. Nobody need release it: the
    /// temporary file, if any, is `stream`'s, and the entry goes with the stream.
    static func freshStream(replacing stream: InputStream) -> InputStream? {
        guard let source = source(of: stream) else { return nil }
        return try? makeStream(from: source)
    }

    /// The length of `stream`'s body, when the builder made it and knows it.
    static func length(of stream: InputStream) -> Int64? {
        source(of: stream)?.length
    }

    /// The file `stream` reads whole, when the builder made it from one.
    static func file(of stream: InputStream) -> URL? {
        source(of: stream)?.file
    }

    /// Forgets `stream` and removes its temporary file, if any: its request has ended. Harmless
    /// for a stream the builder did not make.
    static func release(_ stream: InputStream) {
        let released = entries.withLock { entries in
            entries.removeValue(forKey: ObjectIdentifier(stream))
        }
        guard let released, released.stream === stream else { return }
        released.source.temporaryFile?.remove()
    }

    /// Registers, once, the removal of the temporary files still known at exit.
    private static let exitCleanup: Void = {
        atexit { BodyStreams.removeTemporaryFiles() }
    }()

    /// Removes every temporary file still known, and forgets its stream.
    private static func removeTemporaryFiles() {
        let files = entries.withLock { entries in
            let files = entries.values.compactMap(\.source.temporaryFile)
            entries = entries.filter { $0.value.source.temporaryFile == nil }
            return files
        }
        for file in files { file.remove() }
    }

    /// The source `stream` was made from, when the builder made it: the transport keeps it for
    /// the task, so that `needNewBodyStream` finds it whatever stream `URLSession` holds.
    static func source(of stream: InputStream) -> BodyStreamSource? {
        entries.withLock { entries in
            guard let entry = entries[ObjectIdentifier(stream)], entry.stream === stream else { return nil }
            return entry.source
        }
    }
}
