import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `perform` call a ``FakeNetworkModule`` received.
public struct PerformedRequest: Sendable {
    /// The request description, for `perform(request:)` and `performAndDecode(request:)`;
    /// `nil` for the calls that take a `URLRequest`.
    public let request: (any NetworkRequest)?
    /// The `URLRequest` the real module would send: built by the fake's request builder
    /// from ``request``, or the one the caller gave. `nil` if the description could not be
    /// built (the call then failed with `.invalidRequest`, as it does with the real module).
    public let urlRequest: URLRequest?

    /// The description as `type`, or `nil` if it is of another type (or there is none):
    /// `module.performedRequests.compactMap { $0.request(as: GetUser.self) }`.
    func request<Request: NetworkRequest>(as type: Request.Type) -> Request? {
        request as? Request
    }
}
