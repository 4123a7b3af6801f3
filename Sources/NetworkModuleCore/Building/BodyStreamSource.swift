import Foundation

/// What makes the body stream of a request, each time one is needed: for each attempt, and
/// again when `URLSession` asks for the body anew (`needNewBodyStream`).
struct BodyStreamSource: Sendable {
    /// The number of bytes each stream yields, when known: the `Content-Length`.
    let length: Int64?
    /// Makes a new, unopened stream of the body.
    let makeStream: @Sendable () throws -> InputStream
    /// The file the streams read, when they read one whole: on Linux the transport uploads
    /// the file itself, whose length `URLSession` can then tell the server.
    var file: URL?
    /// The temporary file the streams read, for a body encoded to disk: removed when the
    /// request ends (``BodyStreams/release(_:)``), or when the last stream made from it is gone.
    var temporaryFile: TemporaryFile?

    /// A source that reads the file at `url`, checked now (``checkedFile(_:)``). Its size, read
    /// now, is the length.
    static func file(_ url: URL) throws(NetworkError) -> BodyStreamSource {
        let size = try checkedFile(url)
        return BodyStreamSource(length: size, makeStream: { try Self.stream(reading: url) }, file: url)
    }

    /// Checks that the file at `url` exists, is a regular file and can be opened for reading
    /// now (which a file locked by data protection cannot, whatever its permissions say), and
    /// returns its size, when known.
    static func checkedFile(_ url: URL) throws(NetworkError) -> Int64? {
        let path = url.path
        guard url.isFileURL else {
            throw .invalidRequest(.bodyEncodingFailed("the body file \(url.absoluteString) is not a file URL"))
        }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw .invalidRequest(.bodyEncodingFailed("the body file \(path) does not exist or cannot be read"))
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw .invalidRequest(.bodyEncodingFailed("the body file \(path) is not a regular file"))
        }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            try? handle.close()
        } catch {
            throw .invalidRequest(.bodyEncodingFailed("the body file \(path) cannot be read"))
        }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    /// A source that reads `file`, `length` bytes long, and removes it when it is released.
    static func temporary(_ file: TemporaryFile, length: Int64) -> BodyStreamSource {
        BodyStreamSource(
            length: length, makeStream: { try Self.stream(reading: file.url) }, file: file.url, temporaryFile: file)
    }

    /// A new stream of the body; a failure to make one fails the request.
    func newStream() throws(NetworkError) -> InputStream {
        do {
            return try makeStream()
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .invalidRequest(.bodyEncodingFailed("the body stream could not be made: \(error)"))
        }
    }

    private static func stream(reading url: URL) throws -> InputStream {
        guard let stream = InputStream(url: url) else {
            throw NetworkError.invalidRequest(.bodyEncodingFailed("the body file \(url.path) cannot be read"))
        }
        return stream
    }
}

/// A file in the temporary directory that is removed when it is no longer needed: at
/// ``remove()``, or at the latest when the last reference to it goes.
final class TemporaryFile: Sendable {
    /// Where the file is.
    let url: URL

    /// A new, unique location in the temporary directory; the file is not created.
    init(prefix: String) {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: false)
    }

    /// Removes the file; harmless if it is already gone.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    deinit {
        remove()
    }
}
