import Foundation

extension NetworkSession {
    /// The framework's transport that this session sends on: itself, or the one its decorators
    /// (``CachedSession``, ``DeduplicatedSession``, ``ThrottledSession``) wrap, however deep;
    /// `nil` for a session of the app's own or a `URLSession`.
    ///
    /// How a part of the framework that makes its own `URLSession` (``BackgroundTransfers``)
    /// applies the transport's settings, its credential header names and its `serverTrust`, to
    /// that session too: a cache in front of the transport must not turn pinning off.
    var underlyingTransport: URLSessionTransport? {
        switch self {
        case let transport as URLSessionTransport: transport
        case let cached as CachedSession: cached.wrapped.underlyingTransport
        case let deduplicated as DeduplicatedSession: deduplicated.wrapped.underlyingTransport
        case let throttled as ThrottledSession: throttled.wrapped.underlyingTransport
        default: nil
        }
    }
}
