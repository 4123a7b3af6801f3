import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("MultipartFormData")
struct MultipartFormDataTests {
    struct Request: NetworkRequest {
        var path = "upload"
        var method: HTTPMethod = .post
        var headers: HTTPHeaders = [:]
        var body: RequestBody?
    }

    /// One part read back from an encoded body.
    struct ParsedPart: Equatable {
        var headers: [String]
        var data: Data
    }

    static let allBytes = Data((0...255).map { UInt8($0) })

    func build(_ form: MultipartFormData, headers: HTTPHeaders = [:]) throws -> URLRequest {
        let builder = DefaultRequestBuilder(baseURL: try #require(URL(string: "https://api.example.com")))
        return try builder.build(request: Request(headers: headers, body: .multipart(form)))
    }

    func buildError(_ form: MultipartFormData) throws -> NetworkError? {
        do {
            _ = try build(form)
            return nil
        } catch let error as NetworkError {
            return error
        }
    }

    /// The boundary named by the `Content-Type` header, unquoted.
    func boundary(of urlRequest: URLRequest) throws -> String {
        let contentType = try #require(urlRequest.value(forHTTPHeaderField: "Content-Type"))
        let prefix = "multipart/form-data; boundary="
        #expect(contentType.hasPrefix(prefix))
        var boundary = Substring(contentType.dropFirst(prefix.count))
        if boundary.first == "\"" {
            #expect(boundary.last == "\"")
            boundary = boundary.dropFirst().dropLast()
        }
        return String(boundary)
    }

    /// Splits `body` on `boundary` into parts (header lines and bytes), checking the framing:
    /// the opening delimiter, CRLF after each delimiter and the closing `--boundary--\r\n`.
    func parse(_ body: Data, boundary: String) throws -> [ParsedPart] {
        let opening = Data("--\(boundary)".utf8)
        let delimiter = Data("\r\n--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        try #require(body.starts(with: opening))
        var rest = body.dropFirst(opening.count)
        var parts: [ParsedPart] = []
        while !rest.starts(with: Data("--".utf8)) {
            try #require(rest.starts(with: Data("\r\n".utf8)))
            rest = rest.dropFirst(2)
            let end = try #require(rest.range(of: delimiter))
            let part = rest[rest.startIndex..<end.lowerBound]
            rest = rest[end.lowerBound...].dropFirst(delimiter.count)
            let separator = try #require(part.range(of: headerEnd))
            let headerText = String(decoding: part[part.startIndex..<separator.lowerBound], as: UTF8.self)
            parts.append(
                ParsedPart(
                    headers: headerText.components(separatedBy: "\r\n"),
                    data: Data(part[separator.upperBound...])))
        }
        #expect(Data(rest) == Data("--\r\n".utf8))
        return parts
    }

    // MARK: - Encoding

    @Test("when a form has a field and a file, should encode the exact bytes of each part")
    func exactBody() throws {
        var form = MultipartFormData(boundary: "XyZ")
        form.addField(name: "title", value: "Holiday")
        form.addFile(name: "photo", filename: "a.txt", contentType: "text/plain", data: Data("hi".utf8))
        let urlRequest = try build(form)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=XyZ")
        let expected =
            "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nhi\r\n--XyZ--\r\n"
        #expect(urlRequest.httpBody == Data(expected.utf8))
    }

    @Test("when a form has fields and binary files, should read back every part's headers and bytes in order")
    func roundTrip() throws {
        var form = MultipartFormData()
        form.addField(name: "title", value: "Holiday ☀️")
        form.addFile(name: "photo", filename: "beach.jpg", contentType: "image/jpeg", data: Self.allBytes)
        form.addFile(name: "raw", filename: "blob.bin", data: Data([0x0D, 0x0A, 0x2D, 0x2D, 0x0D, 0x0A]))
        form.addField(name: "empty", value: "")
        let urlRequest = try build(form)
        let parts = try parse(try #require(urlRequest.httpBody), boundary: try boundary(of: urlRequest))
        #expect(
            parts == [
                ParsedPart(headers: [#"Content-Disposition: form-data; name="title""#], data: Data("Holiday ☀️".utf8)),
                ParsedPart(
                    headers: [
                        #"Content-Disposition: form-data; name="photo"; filename="beach.jpg""#,
                        "Content-Type: image/jpeg",
                    ], data: Self.allBytes),
                ParsedPart(
                    headers: [
                        #"Content-Disposition: form-data; name="raw"; filename="blob.bin""#,
                        "Content-Type: application/octet-stream",
                    ], data: Data([0x0D, 0x0A, 0x2D, 0x2D, 0x0D, 0x0A])),
                ParsedPart(headers: [#"Content-Disposition: form-data; name="empty""#], data: Data()),
            ])
    }

    @Test(
        "when a name or file name has a quote, CR or LF, should escape it as %22, %0D, %0A",
        arguments: [
            ("a\"b", "a%22b"),
            ("a\rb", "a%0Db"),
            ("a\nb", "a%0Ab"),
            ("x\"\r\nContent-Type: text/html\r\n\r\n<evil>", "x%22%0D%0AContent-Type: text/html%0D%0A%0D%0A<evil>"),
            ("日本 語.txt", "日本 語.txt"),
        ])
    func escaping(raw: String, escaped: String) throws {
        var form = MultipartFormData()
        form.addField(name: raw, value: "v")
        form.addFile(name: "file", filename: raw, contentType: "text/plain", data: Data("f".utf8))
        let urlRequest = try build(form)
        let parts = try parse(try #require(urlRequest.httpBody), boundary: try boundary(of: urlRequest))
        #expect(
            parts.map(\.headers) == [
                ["Content-Disposition: form-data; name=\"\(escaped)\""],
                ["Content-Disposition: form-data; name=\"file\"; filename=\"\(escaped)\"", "Content-Type: text/plain"],
            ])
        #expect(parts.map(\.data) == [Data("v".utf8), Data("f".utf8)])
    }

    @Test("when a form is empty, should send just the closing delimiter")
    func emptyForm() throws {
        let fixed = try build(MultipartFormData(boundary: "B0undary"))
        #expect(fixed.httpBody == Data("--B0undary--\r\n".utf8))

        let generated = try build(MultipartFormData())
        #expect(generated.httpBody == Data("--\(try boundary(of: generated))--\r\n".utf8))
    }

    @Test("when the request sets its own Content-Type, should keep it and still encode the body")
    func requestContentTypeWins() throws {
        var form = MultipartFormData(boundary: "B")
        form.addField(name: "a", value: "1")
        let urlRequest = try build(form, headers: ["Content-Type": "multipart/mixed; boundary=B"])
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "multipart/mixed; boundary=B")
        #expect(
            urlRequest.httpBody == Data("--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--\r\n".utf8))
    }

    // MARK: - Boundaries

    @Test("when no boundary is given, should generate one that occurs in no part")
    func generatedBoundary() throws {
        var form = MultipartFormData()
        form.addField(name: "NetworkModule-", value: String(repeating: "NetworkModule-", count: 50))
        form.addFile(name: "f", filename: "NetworkModule-.bin", data: Self.allBytes)
        let urlRequest = try build(form)
        let boundary = try boundary(of: urlRequest)
        let suffix = try #require(boundary.split(separator: "-", maxSplits: 1).last)
        #expect(boundary.hasPrefix("NetworkModule-"))
        #expect(suffix.count == 24)
        #expect(suffix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        let body = try #require(urlRequest.httpBody)
        let parts = try parse(body, boundary: boundary)
        #expect(parts.count == 2)
        for part in parts {
            #expect(part.data.range(of: Data(boundary.utf8)) == nil)
            #expect(!part.headers.joined().contains(boundary))
        }
    }

    @Test("when the same form is encoded twice, should choose a new random boundary each time")
    func boundariesDiffer() throws {
        var form = MultipartFormData()
        form.addField(name: "a", value: "1")
        #expect(try boundary(of: build(form)) != boundary(of: build(form)))
    }

    @Test(
        "when a fixed boundary occurs inside a part's data, name or file name, should fail instead of sending a broken body",
        arguments: ["data", "name", "filename"])
    func fixedBoundaryCollision(place: String) throws {
        var form = MultipartFormData(boundary: "sep42")
        form.addFile(
            name: place == "name" ? "a-sep42" : "a", filename: place == "filename" ? "sep42.txt" : "a.txt",
            data: Data((place == "data" ? "xx--sep42--xx" : "xx").utf8))
        #expect(
            try buildError(form)
                == .invalidRequest(
                    .bodyEncodingFailed(
                        "the multipart boundary \"sep42\" occurs inside a part; use another or let the framework choose one"
                    )))
    }

    @Test(
        "when a fixed boundary is not 1 to 70 allowed characters, should fail",
        arguments: [
            "", String(repeating: "a", count: 71), "ends-with-space ", "quote\"d", "line\r\nbreak", "tab\there",
            "semi;colon", "café", "back\\slash",
        ])
    func invalidFixedBoundary(boundary: String) throws {
        var form = MultipartFormData(boundary: boundary)
        form.addField(name: "a", value: "1")
        #expect(
            try buildError(form)
                == .invalidRequest(
                    .bodyEncodingFailed(
                        "the multipart boundary must be 1 to 70 letters, digits or '()+_,-./:=? ' and not end in a space"
                    )))
    }

    @Test("when a fixed boundary is 70 characters long, should use it")
    func longestFixedBoundary() throws {
        let boundary = String(repeating: "b", count: 70)
        let urlRequest = try build(MultipartFormData(boundary: boundary))
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=\(boundary)")
    }

    @Test(
        "when a fixed boundary has characters not allowed in a bare header parameter, should quote it in Content-Type",
        arguments: ["a b", "a:b", "a=b", "a/b", "a?b", "(ab)", "a,b", "'()+_,-./:=? x"])
    func quotedBoundary(boundary: String) throws {
        var form = MultipartFormData(boundary: boundary)
        form.addField(name: "a", value: "1")
        let urlRequest = try build(form)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=\"\(boundary)\"")
        let parts = try parse(try #require(urlRequest.httpBody), boundary: boundary)
        #expect(parts == [ParsedPart(headers: [#"Content-Disposition: form-data; name="a""#], data: Data("1".utf8))])
    }

    @Test(
        "when a fixed boundary is a token, should send it unquoted",
        arguments: ["simple", "A-b_c.d+e'f", "----WebKitFormBoundary7MA4YWxkTrZu0gW"])
    func unquotedBoundary(boundary: String) throws {
        let urlRequest = try build(MultipartFormData(boundary: boundary))
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=\(boundary)")
    }

    // MARK: - Part content types

    @Test(
        "when a file's content type has a line break, should fail naming the part",
        arguments: ["text/plain\r\nX-Evil: 1", "text/plain\nX", "text/plain\r"])
    func contentTypeInjection(contentType: String) throws {
        var form = MultipartFormData()
        form.addField(name: "ok", value: "1")
        form.addFile(name: "upload", filename: "a.txt", contentType: contentType, data: Data("x".utf8))
        #expect(
            try buildError(form)
                == .invalidRequest(
                    .bodyEncodingFailed("the content type of multipart part \"upload\" contains a line break")))
    }

    // MARK: - Equality

    @Test("when two forms have the same parts and boundary, should be equal; otherwise not")
    func equality() {
        var first = MultipartFormData(boundary: "B")
        first.addField(name: "a", value: "1")
        var second = MultipartFormData(boundary: "B")
        second.addField(name: "a", value: "1")
        #expect(first == second)

        var otherValue = MultipartFormData(boundary: "B")
        otherValue.addField(name: "a", value: "2")
        #expect(first != otherValue)

        var otherBoundary = MultipartFormData(boundary: "C")
        otherBoundary.addField(name: "a", value: "1")
        #expect(first != otherBoundary)
    }
}
