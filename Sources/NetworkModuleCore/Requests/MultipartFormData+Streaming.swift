import Foundation

extension MultipartFormData {
    /// The size of the pieces a file is copied in: the most of it held in memory at once.
    static let copyChunkSize = 1 << 20

    /// Encodes the form into a temporary file, copying each file added by URL in chunks and
    /// scanning it for the boundary as it goes, and returns the file as a stream source.
    func encodedToFile() throws(NetworkError) -> (body: RequestBody.Encoded, boundary: String) {
        var boundary = try chooseBoundary()
        while true {
            let file = TemporaryFile(prefix: "NetworkModule-multipart")
            if let length = try write(to: file, boundary: boundary) {
                return (.stream(.temporary(file, length: length)), boundary)
            }
            // The boundary occurs in a file: the partly written file goes with `file`.
            guard fixedBoundary == nil else { throw Self.boundaryOccurs(boundary) }
            repeat { boundary = Self.randomBoundary() } while occursInParts(Data(boundary.utf8))
        }
    }

    /// Writes the form to `file` and returns its length, or `nil` if `boundary` occurs in a file.
    private func write(to file: TemporaryFile, boundary: String) throws(NetworkError) -> Int64? {
        do {
            // Streams rather than FileHandle: its throwing reads and writes need macOS 10.15.4.
            guard let output = OutputStream(url: file.url, append: false) else {
                throw NetworkError.invalidRequest(
                    .bodyEncodingFailed("the temporary file \(file.url.path) for a multipart form cannot be created"))
            }
            output.open()
            defer { output.close() }
            var length: Int64 = 0
            func emit(_ data: Data) throws {
                try Self.write(data, to: output)
                length += Int64(data.count)
            }
            let delimiter = Data(boundary.utf8)
            for part in parts {
                try emit(Data(Self.head(of: part, boundary: boundary).utf8))
                switch part.content {
                case .data(let data):
                    try emit(data)
                case .file(let url):
                    guard try Self.copy(url, scanningFor: delimiter, to: emit) else { return nil }
                }
                try emit(Data("\r\n".utf8))
            }
            try emit(Data(Self.closing(boundary: boundary).utf8))
            return length
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .invalidRequest(.bodyEncodingFailed("a multipart form could not be written to disk: \(error)"))
        }
    }

    /// Copies the file at `url` through `emit` chunk by chunk; `false`, with the copy left
    /// unfinished, if `delimiter` occurs in it (within a chunk or across two).
    private static func copy(_ url: URL, scanningFor delimiter: Data, to emit: (Data) throws -> Void) throws -> Bool {
        guard let input = InputStream(url: url) else {
            throw NetworkError.invalidRequest(.bodyEncodingFailed("the file \(url.path) cannot be read"))
        }
        input.open()
        defer { input.close() }
        var buffer = [UInt8](repeating: 0, count: copyChunkSize)
        // The last bytes of what was read so far, fewer than the delimiter: the start of a
        // delimiter that a chunk cut in two.
        var tail = Data()
        while true {
            let count = input.read(&buffer, maxLength: buffer.count)
            if count < 0 {
                throw input.streamError
                    ?? NetworkError.invalidRequest(.bodyEncodingFailed("the file \(url.path) cannot be read"))
            }
            if count == 0 { break }
            let chunk = Data(buffer[0..<count])
            var junction = tail
            junction.append(chunk.prefix(delimiter.count - 1))
            if chunk.range(of: delimiter) != nil || junction.range(of: delimiter) != nil { return false }
            if chunk.count >= delimiter.count - 1 {
                tail = Data(chunk.suffix(delimiter.count - 1))
            } else {
                tail.append(chunk)
                tail = Data(tail.suffix(delimiter.count - 1))
            }
            try emit(chunk)
        }
        return true
    }

    /// Writes all of `data` to `output`.
    private static func write(_ data: Data, to output: OutputStream) throws {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = output.write(base + offset, maxLength: raw.count - offset)
                guard written > 0 else {
                    throw output.streamError
                        ?? NetworkError.invalidRequest(.bodyEncodingFailed("a temporary file could not be written"))
                }
                offset += written
            }
        }
    }
}
