import Foundation

/// The body of a ``NetworkRequest``, and the `Content-Type` that goes with it.
///
/// ```swift
/// var body: RequestBody? { .json(NewUser(name: "Ada")) }
/// var body: RequestBody? { .formURLEncoded(["grant_type": "password", "username": "ada"]) }
/// var body: RequestBody? { .data(pngData, contentType: "image/png") }
/// var body: RequestBody? { .multipart(form) }
/// ```
///
/// The body is encoded when the request is built. An encoding failure fails the request
/// with ``NetworkError/invalidRequest(_:)`` (``InvalidRequestReason/bodyEncodingFailed(_:)``);
/// a request is never sent with a silently empty body.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case json(any Encodable & Sendable, encoder: JSONEncoder?)
        case data(Data, contentType: String)
        case formURLEncoded([(name: String, value: String)])
        case multipart(MultipartFormData)
    }

    let content: Content

    /// JSON encoded from `value`, with `encoder` or, when `nil`, the builder's encoder.
    /// `Content-Type: application/json`.
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil)
        -> RequestBody
    {
        RequestBody(content: .json(value, encoder: encoder))
    }

    /// Raw bytes sent as they are, with the given `Content-Type`.
    public static func data(_ data: Data, contentType: String) -> RequestBody {
        RequestBody(content: .data(data, contentType: contentType))
    }

    /// `application/x-www-form-urlencoded` fields, in the given order.
    public static func formURLEncoded(_ fields: KeyValuePairs<String, String>) -> RequestBody {
        RequestBody(content: .formURLEncoded(fields.map { (name: $0.key, value: $0.value) }))
    }

    /// `application/x-www-form-urlencoded` fields, in the given order.
    public static func formURLEncoded(_ fields: [(name: String, value: String)]) -> RequestBody {
        RequestBody(content: .formURLEncoded(fields))
    }

    /// `multipart/form-data` with the fields and files of `form`.
    public static func multipart(_ form: MultipartFormData) -> RequestBody {
        RequestBody(content: .multipart(form))
    }

    /// Encodes the body; `defaultEncoder` is used for JSON bodies that name no encoder.
    func encoded(defaultEncoder: JSONEncoder) throws(NetworkError) -> (data: Data, contentType: String) {
        switch content {
        case .json(let value, let encoder):
            do {
                return (try (encoder ?? defaultEncoder).encode(value), "application/json")
            } catch {
                throw .invalidRequest(.bodyEncodingFailed(String(describing: error)))
            }
        case .data(let data, let contentType):
            return (data, contentType)
        case .formURLEncoded(let fields):
            let encoded = fields.map {
                PercentEncoding.formURLEncoded($0.name) + "=" + PercentEncoding.formURLEncoded($0.value)
            }.joined(separator: "&")
            return (Data(encoded.utf8), "application/x-www-form-urlencoded")
        case .multipart(let form):
            let (data, boundary) = try form.encoded()
            return (data, "multipart/form-data; boundary=\(MultipartFormData.parameterValue(boundary: boundary))")
        }
    }
}
