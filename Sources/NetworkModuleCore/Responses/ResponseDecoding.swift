import Foundation

/// The one place where bodies are decoded, for responses and error bodies alike.
enum ResponseDecoding {
    /// Decodes `data` into `type` with `decoder`; an empty body is ``NetworkError/noResponseData``.
    static func decode<Body: Decodable>(_ type: Body.Type, from data: Data, decoder: any ResponseDecoder)
        throws(NetworkError) -> Body
    {
        guard !data.isEmpty else { throw .noResponseData }
        do {
            return try decoder.decode(type, from: data)
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
