import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns a ``NetworkRequest`` description into the `URLRequest` that is sent.
///
/// ``DefaultRequestBuilder`` is the implementation for a base URL; write your own only to
/// change how requests are described on the wire for every request of a module.
public protocol RequestBuilder: Sendable {
    /// The URL that relative paths are joined to, if the builder has one.
    ///
    /// Authentication actions attach credentials only to requests for this URL's origin
    /// (scheme, host and port).
    var baseURL: URL? { get }

    /// Builds the `URLRequest` for `request`.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:)`` with the reason when the request
    ///   cannot be built: nothing is sent then.
    func build(request: any NetworkRequest) throws(NetworkError) -> URLRequest
}
