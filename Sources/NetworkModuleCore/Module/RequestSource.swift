import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where each attempt's request of one call comes from.
package enum RequestSource: Sendable {
    /// A description: the module's builder builds each attempt's request from it, so the
    /// attempt's request has no other owner and preparing it copies nothing.
    case description(any NetworkRequest)
    /// A request the caller built: each attempt starts from it.
    case urlRequest(URLRequest)

    /// The request's description, `nil` for a caller's `URLRequest`.
    package var networkRequest: (any NetworkRequest)? {
        if case .description(let networkRequest) = self { networkRequest } else { nil }
    }
}
