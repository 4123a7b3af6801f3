import Foundation

/// Turns a body's bytes into a `Decodable` value: JSON, a property list, or a format of your own.
///
/// A module uses one decoder for every typed request (`DefaultNetworkModule(…, decoder:)`), a
/// ``TypedRequest`` may name its own (``TypedRequest/decoder``), and the same decoder reads a
/// server's error body (``HTTPErrorResponse/decodeBody(as:decoder:)-(_,ResponseDecoder)``).
///
/// The default everywhere is ``JSONResponseDecoder``, which also takes your `JSONDecoder`
/// settings. `JSONDecoder` and `PropertyListDecoder` conform as they are from iOS 16, macOS 13,
/// tvOS 16 and watchOS 9, where Foundation declares them `Sendable`; an app that supports
/// earlier systems uses ``JSONResponseDecoder``, because a decoder is called from any thread.
/// Your own format needs one method:
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

// Foundation declares both decoders `Sendable` only from these releases; before them, one shared
// across threads is not promised to be safe, so the conformance starts where the promise does.
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension JSONDecoder: ResponseDecoder {}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension PropertyListDecoder: ResponseDecoder {}
