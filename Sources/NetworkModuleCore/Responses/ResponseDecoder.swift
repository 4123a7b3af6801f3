import Foundation

/// Turns a body's bytes into a `Decodable` value: JSON, a property list, or a format of your own.
///
/// `JSONDecoder` (the default everywhere) and `PropertyListDecoder` conform as they are. A module
/// uses one decoder for every typed request (`DefaultNetworkModule(…, decoder:)`), a
/// ``TypedRequest`` may name its own (``TypedRequest/decoder``), and the same decoder reads a
/// server's error body (``NetworkError/decodedBody(as:decoder:)``). Your own format needs one
/// method:
///
/// ```swift
/// struct XMLBodyDecoder: ResponseDecoder {
///     func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
///         try MyXMLDecoder().decode(type, from: data)
///     }
/// }
/// ```
///
/// A thrown `DecodingError` becomes ``NetworkError/decodingFailed(_:)`` with the key and path
/// that failed; any other error becomes a ``DecodingFailure`` of kind
/// ``DecodingFailure/Kind/other`` with the error's description. The decoder may be called from
/// any thread, for several responses at once.
public protocol ResponseDecoder: Sendable {
    /// Decodes a value of `type` from `data`, or throws.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value
}

extension JSONDecoder: ResponseDecoder {}

extension PropertyListDecoder: ResponseDecoder {}
