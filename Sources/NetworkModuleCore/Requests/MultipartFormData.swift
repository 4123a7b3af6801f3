import Foundation

/// The parts of a `multipart/form-data` body (RFC 7578): text fields and files, in order.
///
/// ```swift
/// var form = MultipartFormData()
/// form.addField(name: "title", value: "Holiday")
/// form.addFile(name: "photo", filename: "beach.jpg", contentType: "image/jpeg", data: jpeg)
/// form.addFile(name: "video", contentType: "video/mp4", fileURL: movieURL)
/// let request = UploadPhoto(body: .multipart(form))
/// ```
///
/// Names and file names are escaped the way browsers escape them (`"` as `%22`, CR as `%0D`,
/// LF as `%0A`), so no part can break out of its headers.
///
/// ## Large forms
/// Files added by URL (``addFile(name:filename:contentType:fileURL:)``) are read from disk
/// when the request is built. A form that is then no larger than
/// `encodingMemoryThreshold` (10 MB by default, as Alamofire's) is encoded in memory; a
/// larger one is encoded into a temporary file, chunk by chunk, and uploaded from that file as a
/// stream, so neither the files nor the form are ever held whole in memory. The temporary file
/// is removed when the request ends, however it ends (success, failure, cancel), and a retry
/// encodes the form again.
///
/// ## The boundary
/// The boundary is checked against every byte of every part, files included: a file in a
/// streamed form is scanned as it is copied. A random boundary (`NetworkModule-` and 24 letters
/// and digits, about 143 bits) that occurs in a part is replaced by another; a boundary you
/// chose that occurs in a part fails the request.
public struct MultipartFormData: Sendable, Equatable {
    struct Part: Sendable, Equatable {
        enum Content: Sendable, Equatable {
            case data(Data)
            case file(URL)
        }

        var name: String
        var filename: String?
        var contentType: String?
        var content: Content
    }

    /// The default of `encodingMemoryThreshold`: 10 MB, as Alamofire's.
    @usableFromInline static let defaultEncodingMemoryThreshold: Int64 = 10_000_000

    private(set) var parts: [Part] = []
    let fixedBoundary: String?

    /// The size, in bytes, above which a form with files added by URL is encoded into a
    /// temporary file and streamed from it rather than encoded in memory.
    let encodingMemoryThreshold: Int64

    /// Creates an empty form. Pass a `boundary` only if a server needs a particular one;
    /// by default a random boundary that occurs in no part is chosen when the body is encoded.
    ///
    /// - Parameters:
    ///   - boundary: the boundary to use, or `nil` for a random one.
    ///   - encodingMemoryThreshold: the size above which a form with files added by URL is
    ///     streamed from a temporary file; see the type's overview.
    public init(boundary: String? = nil, encodingMemoryThreshold: Int64 = defaultEncodingMemoryThreshold) {
        self.fixedBoundary = boundary
        self.encodingMemoryThreshold = encodingMemoryThreshold
    }

    /// Appends a text field.
    public mutating func addField(name: String, value: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8))))
    }

    /// Appends a file with its file name and content type.
    public mutating func addFile(
        name: String, filename: String, contentType: String = "application/octet-stream", data: Data
    ) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
    }

    /// Appends the file at `fileURL`, read from disk when the request is built; see "Large forms".
    ///
    /// A file that is missing, is not a regular file or cannot be read then fails the request
    /// with ``InvalidRequestReason/bodyEncodingFailed(_:)`` naming the file.
    ///
    /// - Parameters:
    ///   - name: the field name.
    ///   - filename: the file name the server sees; `nil` for the last component of `fileURL`.
    ///   - contentType: the part's `Content-Type`.
    ///   - fileURL: a file URL.
    public mutating func addFile(
        name: String, filename: String? = nil, contentType: String = "application/octet-stream", fileURL: URL
    ) {
        parts.append(
            Part(
                name: name, filename: filename ?? fileURL.lastPathComponent, contentType: contentType,
                content: .file(fileURL)))
    }

    /// Encodes the parts, returning the body and the boundary it uses: in memory, or in a
    /// temporary file streamed from disk when files added by URL make the form larger than
    /// `encodingMemoryThreshold`.
    func encoded() throws(NetworkError) -> (body: RequestBody.Encoded, boundary: String) {
        try checkContentTypes()
        if let fixedBoundary {
            guard Self.isValidBoundary(fixedBoundary) else {
                throw .invalidRequest(
                    .bodyEncodingFailed(
                        "the multipart boundary must be 1 to 70 letters, digits or '()+_,-./:=? ' and not end in a space"
                    ))
            }
        }
        let fileSizes = try fileSizes()
        let size = parts.reduce(Int64(0)) { total, part in
            let content: Int64
            switch part.content {
            case .data(let data): content = Int64(data.count)
            case .file(let url): content = fileSizes[url] ?? 0
            }
            return total + content + 200
        }
        if !fileSizes.isEmpty, size > encodingMemoryThreshold {
            return try encodedToFile()
        }
        let loaded = try loadingFiles()
        let boundary = try loaded.chooseBoundary()
        var body = Data()
        body.reserveCapacity(Int(clamping: size))
        for part in loaded.parts {
            body.append(contentsOf: Self.head(of: part, boundary: boundary).utf8)
            if case .data(let data) = part.content { body.append(data) }
            body.append(contentsOf: "\r\n".utf8)
        }
        body.append(contentsOf: Self.closing(boundary: boundary).utf8)
        return (.data(body), boundary)
    }

    /// The boundary: the fixed one if it occurs in no part, or a random one that occurs in none.
    func chooseBoundary() throws(NetworkError) -> String {
        if let fixedBoundary {
            guard !occursInParts(Data(fixedBoundary.utf8)) else {
                throw Self.boundaryOccurs(fixedBoundary)
            }
            return fixedBoundary
        }
        var candidate = Self.randomBoundary()
        while occursInParts(Data(candidate.utf8)) { candidate = Self.randomBoundary() }
        return candidate
    }

    static func boundaryOccurs(_ boundary: String) -> NetworkError {
        .invalidRequest(
            .bodyEncodingFailed(
                "the multipart boundary \"\(boundary)\" occurs inside a part; use another or let the framework choose one"
            ))
    }

    private func checkContentTypes() throws(NetworkError) {
        for part in parts {
            // Bytes, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
            if let contentType = part.contentType,
                contentType.utf8.contains(where: { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") })
            {
                throw .invalidRequest(
                    .bodyEncodingFailed(
                        "the content type of multipart part \"\(part.name)\" contains a line break"))
            }
        }
    }

    /// The size of each file added by URL, checked to be a readable regular file.
    private func fileSizes() throws(NetworkError) -> [URL: Int64] {
        var sizes: [URL: Int64] = [:]
        for part in parts {
            guard case .file(let url) = part.content else { continue }
            sizes[url] = try BodyStreamSource.file(url).length ?? 0
        }
        return sizes
    }

    /// The form with every file added by URL read into memory: for a form below the threshold.
    private func loadingFiles() throws(NetworkError) -> MultipartFormData {
        var loaded = self
        for index in loaded.parts.indices {
            guard case .file(let url) = loaded.parts[index].content else { continue }
            do {
                loaded.parts[index].content = .data(try Data(contentsOf: url))
            } catch {
                throw .invalidRequest(.bodyEncodingFailed("the file \(url.path) cannot be read: \(error)"))
            }
        }
        return loaded
    }

    /// The head of `part`: its boundary line and its headers, up to the empty line.
    static func head(of part: Part, boundary: String) -> String {
        var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(escaped(part.name))\""
        if let filename = part.filename { head += "; filename=\"\(escaped(filename))\"" }
        head += "\r\n"
        if let contentType = part.contentType { head += "Content-Type: \(contentType)\r\n" }
        head += "\r\n"
        return head
    }

    /// The closing delimiter of the form.
    static func closing(boundary: String) -> String {
        "--\(boundary)--\r\n"
    }

    /// `boundary` as the value of the `Content-Type` parameter: as it is when it is a token,
    /// quoted when it holds a character a token may not (space, `(`, `)`, `,`, `/`, `:`, `=`,
    /// `?`), as RFC 2046, section 5.1.1, requires.
    static func parameterValue(boundary: String) -> String {
        boundary.contains(where: { "()/,:=? ".contains($0) }) ? "\"\(boundary)\"" : boundary
    }

    /// Whether `boundary` occurs in a part's name, file name, or bytes held in memory (a file
    /// added by URL is scanned as it is copied: ``encodedToFile()``).
    func occursInParts(_ boundary: Data) -> Bool {
        parts.contains { part in
            if case .data(let data) = part.content, data.range(of: boundary) != nil { return true }
            return Data(part.name.utf8).range(of: boundary) != nil
                || part.filename.map { Data($0.utf8).range(of: boundary) != nil } == true
        }
    }

    static func randomBoundary() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let suffix = String((0..<24).map { _ in alphabet.randomElement() ?? "x" })
        return "NetworkModule-\(suffix)"
    }

    private static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=? ")
        return (1...70).contains(boundary.count) && boundary.allSatisfy(allowed.contains)
            && boundary.last != " "
    }

    static func escaped(_ value: String) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
