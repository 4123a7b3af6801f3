import Foundation

/// Decodes JSON bodies with a new `JSONDecoder` for each body, set up as you say: the default
/// ``ResponseDecoder`` of modules and typed requests, on every system the framework supports.
///
/// ```swift
/// let module = DefaultNetworkModule(
///     requestBuilder: builder,
///     decoder: JSONResponseDecoder { decoder in
///         decoder.keyDecodingStrategy = .convertFromSnakeCase
///         decoder.dateDecodingStrategy = .iso8601
///     })
/// ```
///
/// A fresh decoder per body means no decoder is shared between threads, which Foundation
/// promises to be safe only from iOS 16 and macOS 13 (where a `JSONDecoder` may be passed as it
/// is). Making one costs far less than decoding with it.
public struct JSONResponseDecoder: ResponseDecoder {
    private let configure: @Sendable (JSONDecoder) -> Void

    /// A decoder whose `JSONDecoder`s `configure` sets up; by default with Foundation's defaults.
    ///
    /// - Parameter configure: sets strategies on each new `JSONDecoder`. It runs once per body,
    ///   on whatever thread decodes it, so it must only set properties.
    public init(configure: @escaping @Sendable (JSONDecoder) -> Void = { _ in }) {
        self.configure = configure
    }

    /// Decodes a value of `type` from the JSON in `data`, or throws the `DecodingError`.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let decoder = JSONDecoder()
        configure(decoder)
        return try decoder.decode(type, from: data)
    }
}
