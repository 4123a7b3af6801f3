import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a recorded request's body could not be read the way a test asked.
struct RecordedBodyError: Error, CustomStringConvertible, Equatable {
    /// What was wrong, naming the request.
    let description: String
}

/// Reading back the body of a request a fake session recorded. The body is the request's
/// `httpBody`; a body given as a stream (`httpBodyStream`) cannot be read back, because a
/// stream is read once, by the session that sends it.
extension URLRequest {
    /// The body as UTF-8 text.
    ///
    /// - Throws: an error whose description names the request, if there is no body or it is not UTF-8.
    public func bodyText() throws -> String {
        let data = try requireBody()
        guard let text = String(data: data, encoding: .utf8) else {
            throw bodyError("is not UTF-8 text (\(data.count) bytes)")
        }
        return text
    }

    /// The JSON body decoded into `type`:
    /// `#expect(try session.recordedRequests[0].bodyJSON(as: NewNote.self) == NewNote(text: "Hi"))`.
    ///
    /// - Throws: an error whose description names the request and says why, if there is no body
    ///   or it does not decode.
    public func bodyJSON<Body: Decodable>(as type: Body.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Body {
        let data = try requireBody()
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw bodyError(
                "does not decode as \(type): \(error); body: \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
    }

    /// The JSON body as `JSONSerialization` reads it (`[String: Any]`, `[Any]`, `String`,
    /// `NSNumber` or `NSNull`), for bodies without a `Decodable` type:
    /// `let object = try request.bodyJSONObject() as? [String: Any]`.
    ///
    /// - Throws: an error whose description names the request, if there is no body or it is not JSON.
    public func bodyJSONObject() throws -> Any {
        let data = try requireBody()
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw bodyError("is not JSON: \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
    }

    /// The fields of an `application/x-www-form-urlencoded` body, in order, with `+` read as
    /// a space and percent escapes decoded. A field without `=` has a `nil` value.
    ///
    /// ```swift
    /// #expect(try request.bodyFormFields() == [URLQueryItem(name: "q", value: "a b&c")])
    /// ```
    ///
    /// - Throws: an error whose description names the request, if there is no body, it is not
    ///   UTF-8, or a percent escape is invalid.
    public func bodyFormFields() throws -> [URLQueryItem] {
        try bodyText().split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try formDecoded(parts[0])
            return URLQueryItem(name: name, value: try parts.count > 1 ? formDecoded(parts[1]) : nil)
        }
    }

    private func formDecoded(_ encoded: Substring) throws -> String {
        let text = encoded.replacingOccurrences(of: "+", with: " ")
        guard let decoded = text.removingPercentEncoding else {
            throw bodyError("has an invalid percent escape in the form field \"\(encoded)\"")
        }
        return decoded
    }

    private func requireBody() throws -> Data {
        guard let body = httpBody, !body.isEmpty else {
            throw bodyError(httpBodyStream == nil ? "is empty" : "is a stream, which cannot be read back")
        }
        return body
    }

    private func bodyError(_ problem: String) -> RecordedBodyError {
        RecordedBodyError(
            description: "the body of \(httpMethod ?? "GET") \(url?.absoluteString ?? "(no URL)") \(problem)")
    }
}
