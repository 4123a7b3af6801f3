import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What makes two requests "the same request" for ``DeduplicatedSession`` and
/// ``CachedSession``: the method, the URL, every header except the ignored ones (names
/// compared ignoring case, values exactly), and the body bytes.
///
/// A request whose body is a stream has no key: its bytes cannot be compared without
/// reading them.
struct RequestKey: Hashable, Sendable {
    /// One header that counts, with its name lowercased.
    struct Header: Hashable, Sendable {
        let name: String
        let value: String
    }

    let method: String
    let url: URL
    /// Sorted by name, so that the order the caller set them in does not matter.
    let headers: [Header]
    let body: Data?

    /// The key of `request`, or `nil` if it has no URL or a streamed body.
    ///
    /// - Parameter ignoredHeaderNames: lowercased names of headers that do not count.
    init?(_ request: URLRequest, ignoringHeaderNames ignoredHeaderNames: Set<String>) {
        guard let url = request.url, request.httpBodyStream == nil else { return nil }
        method = request.httpMethod ?? "GET"
        self.url = url
        body = request.httpBody
        guard let fields = request.allHTTPHeaderFields, !fields.isEmpty else {
            headers = []
            return
        }
        var headers: [Header] = []
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            let lowercased = name.lowercased()
            if !ignoredHeaderNames.contains(lowercased) { headers.append(Header(name: lowercased, value: value)) }
        }
        if headers.count > 1 { headers.sort { $0.name < $1.name } }
        self.headers = headers
    }
}
