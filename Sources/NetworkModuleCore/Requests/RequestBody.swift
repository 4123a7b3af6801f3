import Foundation

/// The body of a ``NetworkRequest``, and the `Content-Type` that goes with it.
///
/// ```swift
/// let json: RequestBody = .json(NewUser(name: "Ada"))
/// let fields: RequestBody = .formURLEncoded(["grant_type": "password", "username": "ada"])
/// let png: RequestBody = .data(pngData, contentType: "image/png")
/// let upload: RequestBody = .multipart(form)
/// let video: RequestBody = .file(videoURL, contentType: "video/mp4")
/// let archive: RequestBody = .stream(length: size, contentType: "application/octet-stream") { try openArchive() }
/// ```
///
/// The body is encoded when the request is built. An encoding failure fails the request
/// with ``NetworkError/invalidRequest(_:)`` (``InvalidRequestReason/bodyEncodingFailed(_:)``);
/// a request is never sent with a silently empty body.
///
/// A file, a stream, and a multipart form whose files make it larger than its
/// `MultipartFormData`'s `encodingMemoryThreshold` are sent from a stream (`httpBodyStream`),
/// never loaded whole into memory. Each attempt (a retry) is built again and gets a fresh
/// stream: a consumed stream is never sent twice.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case json(any Encodable & Sendable, encoder: JSONEncoder?)
        case data(Data, contentType: String)
        case formURLEncoded([(name: String, value: String)])
        case multipart(MultipartFormData)
        case file(URL, contentType: String)
        case stream(length: Int64?, contentType: String, makeStream: @Sendable () throws -> InputStream)
    }

    /// A body encoded for one attempt: bytes, or a stream read as it is sent.
    enum Encoded {
        case data(Data)
        case stream(BodyStreamSource)
    }

    let content: Content

    /// Whether the builder may send this body as a stream (a file, a stream, a multipart form that
    /// may pass its memory threshold): only then does a request look for its body stream.
    var mayStream: Bool {
        switch content {
        case .file, .stream, .multipart: true
        case .json, .data, .formURLEncoded: false
        }
    }

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

    /// The bytes of the file at `url`, read from disk as they are sent, with the given
    /// `Content-Type`; `Content-Length` is the file's size when the request is built.
    ///
    /// A file that is missing, is not a regular file or cannot be read fails the request when
    /// it is built, with ``InvalidRequestReason/bodyEncodingFailed(_:)`` naming the file.
    public static func file(_ url: URL, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .file(url, contentType: contentType))
    }

    /// The bytes of a stream that `makeStream` opens, read as they are sent.
    ///
    /// `makeStream` is called each time the request is built, so each attempt (a retry) gets
    /// a fresh stream, and again when `URLSession` asks for the body anew (a 307 or 308
    /// redirect, an authentication challenge); it may be called from any thread, and must
    /// return a stream that has not been opened. An error it throws fails the request with
    /// ``InvalidRequestReason/bodyEncodingFailed(_:)``.
    ///
    /// - Parameters:
    ///   - length: the number of bytes the stream yields, sent as `Content-Length`; with `nil`
    ///     the body is sent with chunked transfer coding, which some servers refuse.
    ///   - contentType: the `Content-Type` of the body.
    ///   - makeStream: makes a new stream of the body, each time it is called.
    public static func stream(
        length: Int64?, contentType: String = "application/octet-stream",
        _ makeStream: @escaping @Sendable () throws -> InputStream
    ) -> RequestBody {
        RequestBody(content: .stream(length: length, contentType: contentType, makeStream: makeStream))
    }

    /// Encodes the body; `defaultEncoder` is used for JSON bodies that name no encoder.
    func encoded(defaultEncoder: JSONEncoder) throws(NetworkError) -> (body: Encoded, contentType: String) {
        switch content {
        case .json(let value, let encoder):
            do {
                return (.data(try (encoder ?? defaultEncoder).encode(value)), "application/json")
            } catch {
                throw .invalidRequest(.bodyEncodingFailed(String(describing: error)))
            }
        case .data(let data, let contentType):
            return (.data(data), contentType)
        case .formURLEncoded(let fields):
            let encoded = fields.map {
                PercentEncoding.formURLEncoded($0.name) + "=" + PercentEncoding.formURLEncoded($0.value)
            }.joined(separator: "&")
            return (.data(Data(encoded.utf8)), "application/x-www-form-urlencoded")
        case .multipart(let form):
            let (body, boundary) = try form.encoded()
            return (body, "multipart/form-data; boundary=\(MultipartFormData.parameterValue(boundary: boundary))")
        case .file(let url, let contentType):
            return (.stream(try BodyStreamSource.file(url)), contentType)
        case .stream(let length, let contentType, let makeStream):
            return (.stream(BodyStreamSource(length: length, makeStream: makeStream)), contentType)
        }
    }
}
