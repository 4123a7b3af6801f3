import Foundation

/// The one place where bodies are decoded, for responses and error bodies alike.
enum ResponseDecoding {
    /// Decodes `data` into `type` with `decoder`; an empty body is ``NetworkError/noResponseData``.
    static func decode<Body: Decodable>(_ type: Body.Type, from data: Data, decoder: any ResponseDecoder)
        throws(NetworkError) -> Body
    {
        try decode(type, from: data) { data in try decoder.decode(type, from: data) }
    }

    /// Decodes `data` into `type` with a caller's `JSONDecoder`, which is a ``ResponseDecoder``
    /// only from iOS 16 and macOS 13: the older entry points keep taking one.
    static func decode<Body: Decodable>(_ type: Body.Type, from data: Data, decoder: JSONDecoder)
        throws(NetworkError) -> Body
    {
        try decode(type, from: data) { data in try decoder.decode(type, from: data) }
    }

    private static func decode<Body: Decodable>(
        _ type: Body.Type, from data: Data, with decodeBody: (Data) throws -> Body
    ) throws(NetworkError) -> Body {
        guard !data.isEmpty else { throw .noResponseData }
        do {
            return try decodeBody(data)
        } catch {
            throw .decodingFailed(DecodingFailure(decoding: type, error: error))
        }
    }

    /// `data` as UTF-8 text; bytes that are not UTF-8 fail instead of being replaced.
    static func text(from data: Data) throws(NetworkError) -> String {
        guard let text = String(data: data, encoding: .utf8) else {
            throw .decodingFailed(
                DecodingFailure(
                    typeName: "String", kind: .invalidTextEncoding, codingPath: "",
                    debugDescription: "the body is not valid UTF-8"))
        }
        return text
    }
}
