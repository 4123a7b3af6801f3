import Foundation

/// A request that names the type of its response, so the call site names none.
///
/// ```swift
/// struct GetUser: TypedRequest {
///     typealias Response = User
///     let id: Int
///     var path: String { "/users/\(id)" }
/// }
///
/// module.perform(GetUser(id: 1)) { result in show(result) }        // Result<User, NetworkError>
/// let user = try await module.send(GetUser(id: 1))       // User
/// ```
///
/// A `Decodable` response is decoded with the request's ``decoder``, or the module's when it
/// names none (a ``JSONResponseDecoder`` unless the module was given another). Three responses need no
/// decoder: `Void` ignores the body (for a `204 No Content`, say), `Data` is the body as it
/// came, and `String` is the body as UTF-8 text. Any other type implements
/// ``decodeResponse(_:decoder:)``.
///
/// A typed request is a ``NetworkRequest`` like any other: `perform(request:completion:)`
/// still takes it, and the actions see it in ``ActionContext/networkRequest``.
public protocol TypedRequest<Response>: NetworkRequest {
    /// What a successful response becomes.
    associatedtype Response: Sendable

    /// The decoder for this request's body, overriding the module's. Default: `nil`, the
    /// module's decoder.
    var decoder: (any ResponseDecoder)? { get }

    /// Turns a response whose status the request accepts into ``Response``, before the completion
    /// executor (a large body is not decoded on the main queue). The default decodes a
    /// `Decodable` response with `decoder`: the request's ``decoder``, or the module's.
    ///
    /// - Throws: a ``NetworkError``, the request's failure; the defaults throw
    ///   ``NetworkError/noResponseData`` for an empty body and ``NetworkError/decodingFailed(_:)``.
    func decodeResponse(_ response: NetworkResponse, decoder: any ResponseDecoder) throws(NetworkError) -> Response
}

extension TypedRequest {
    /// The module's decoder.
    public var decoder: (any ResponseDecoder)? { nil }
}

extension TypedRequest where Response: Decodable {
    /// Decodes the body with `decoder`; an empty body is ``NetworkError/noResponseData``.
    public func decodeResponse(_ response: NetworkResponse, decoder: any ResponseDecoder) throws(NetworkError)
        -> Response
    {
        try ResponseDecoding.decode(Response.self, from: response.data, decoder: decoder)
    }
}

extension TypedRequest where Response == Data {
    /// The body as it came; empty when the server sent none.
    public func decodeResponse(_ response: NetworkResponse, decoder: any ResponseDecoder) throws(NetworkError)
        -> Data
    {
        response.data
    }
}

extension TypedRequest where Response == String {
    /// The body as UTF-8 text; ``NetworkError/decodingFailed(_:)`` if it is not UTF-8.
    public func decodeResponse(_ response: NetworkResponse, decoder: any ResponseDecoder) throws(NetworkError)
        -> String
    {
        try ResponseDecoding.text(from: response.data)
    }
}

extension TypedRequest where Response == Void {
    /// Nothing: the body, if any, is ignored.
    public func decodeResponse(_ response: NetworkResponse, decoder: any ResponseDecoder) throws(NetworkError) {}
}
