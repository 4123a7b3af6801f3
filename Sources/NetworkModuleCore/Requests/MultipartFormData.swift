import Foundation

/// The parts of a `multipart/form-data` body (RFC 7578): text fields and files, in order.
///
/// ```swift
/// var form = MultipartFormData()
/// form.addField(name: "title", value: "Holiday")
/// form.addFile(name: "photo", filename: "beach.jpg", contentType: "image/jpeg", data: jpeg)
/// let request = UploadPhoto(body: .multipart(form))
/// ```
///
/// The boundary is chosen so that it occurs in no part. Names and file names are escaped
/// the way browsers escape them (`"` as `%22`, CR as `%0D`, LF as `%0A`), so no part can
/// break out of its headers.
public struct MultipartFormData: Sendable, Equatable {
    struct Part: Sendable, Equatable {
        var name: String
        var filename: String?
        var contentType: String?
        var data: Data
    }

    private(set) var parts: [Part] = []
    private let fixedBoundary: String?

    /// Creates an empty form. Pass a `boundary` only if a server needs a particular one;
    /// by default a random boundary that occurs in no part is chosen when the body is encoded.
    public init(boundary: String? = nil) {
        self.fixedBoundary = boundary
    }

    /// Appends a text field.
    public mutating func addField(name: String, value: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, data: Data(value.utf8)))
    }

    /// Appends a file with its file name and content type.
    public mutating func addFile(
        name: String, filename: String, contentType: String = "application/octet-stream", data: Data
    ) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, data: data))
    }

    /// Encodes the parts, returning the body and the boundary it uses.
    func encoded() throws(NetworkError) -> (data: Data, boundary: String) {
        let boundary: String
        if let fixedBoundary {
            guard Self.isValidBoundary(fixedBoundary) else {
                throw .invalidRequest(
                    .bodyEncodingFailed(
                        "the multipart boundary must be 1 to 70 letters, digits or '()+_,-./:=? ' and not end in a space"
                    ))
            }
            guard !occursInParts(Data(fixedBoundary.utf8)) else {
                throw .invalidRequest(
                    .bodyEncodingFailed(
                        "the multipart boundary \"\(fixedBoundary)\" occurs inside a part; use another or let the framework choose one"
                    ))
            }
            boundary = fixedBoundary
        } else {
            var candidate = Self.randomBoundary()
            while occursInParts(Data(candidate.utf8)) { candidate = Self.randomBoundary() }
            boundary = candidate
        }
        var body = Data()
        body.reserveCapacity(parts.reduce(0) { $0 + $1.data.count + 200 })
        for part in parts {
            // Bytes, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
            if let contentType = part.contentType,
                contentType.utf8.contains(where: { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") })
            {
                throw .invalidRequest(
                    .bodyEncodingFailed(
                        "the content type of multipart part \"\(part.name)\" contains a line break"))
            }
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
            if let filename = part.filename { head += "; filename=\"\(Self.escaped(filename))\"" }
            head += "\r\n"
            if let contentType = part.contentType { head += "Content-Type: \(contentType)\r\n" }
            head += "\r\n"
            body.append(contentsOf: head.utf8)
            body.append(part.data)
            body.append(contentsOf: "\r\n".utf8)
        }
        body.append(contentsOf: "--\(boundary)--\r\n".utf8)
        return (body, boundary)
    }

    /// `boundary` as the value of the `Content-Type` parameter: as it is when it is a token,
    /// quoted when it holds a character a token may not (space, `(`, `)`, `,`, `/`, `:`, `=`,
    /// `?`), as RFC 2046, section 5.1.1, requires.
    static func parameterValue(boundary: String) -> String {
        boundary.contains(where: { "()/,:=? ".contains($0) }) ? "\"\(boundary)\"" : boundary
    }

    private func occursInParts(_ boundary: Data) -> Bool {
        parts.contains { part in
            part.data.range(of: boundary) != nil
                || Data(part.name.utf8).range(of: boundary) != nil
                || part.filename.map { Data($0.utf8).range(of: boundary) != nil } == true
        }
    }

    private static func randomBoundary() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let suffix = String((0..<24).map { _ in alphabet.randomElement() ?? "x" })
        return "NetworkModule-\(suffix)"
    }

    private static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=? ")
        return (1...70).contains(boundary.count) && boundary.allSatisfy(allowed.contains)
            && boundary.last != " "
    }

    private static func escaped(_ value: String) -> String {
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
