import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What makes two requests "the same request" for ``DeduplicatedSession`` and ``CachedSession``:
/// the method, the URL, the headers but the ignored ones (names ignoring case), the body bytes,
/// and for de-duplication the timeout and the cache policy. A streamed body has no key: its bytes
/// cannot be compared unread. The hash is computed once, when the key is made: hashing the URL,
/// headers and body on every table lookup would cost more than the rest of a decorator's work.
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
    /// The timeout and the raw cache policy, when they count; `nil` when they do not.
    let loadOptions: LoadOptions?
    private let precomputedHash: Int

    /// A request's timeout and cache policy.
    struct LoadOptions: Hashable, Sendable {
        /// The timeout as ``RequestTimeout`` reads it: a NaN would make the key unequal to
        /// itself, and its call could never be found again to be removed.
        let timeout: RequestTimeout
        let cachePolicy: UInt
    }

    /// The key of `request`, or `nil` if it has no URL or a streamed body. `onIgnoredHeader` sees
    /// each ignored header (`ignoredHeaderNames` are lowercased, and so is the name it gets), so
    /// that a caller reads the ones it needs in the same pass.
    init?(
        _ request: URLRequest, ignoringHeaderNames ignoredHeaderNames: Set<String>, includingLoadOptions: Bool = false,
        onIgnoredHeader: (_ lowercasedName: String, _ value: String) -> Void = { _, _ in }
    ) {
        guard let url = request.url, request.httpBodyStream == nil else { return nil }
        method = request.httpMethod ?? "GET"
        self.url = url
        body = request.httpBody
        loadOptions =
            includingLoadOptions
            ? LoadOptions(
                timeout: RequestTimeout(seconds: request.timeoutInterval), cachePolicy: request.cachePolicy.rawValue)
            : nil
        var headers: [Header] = []
        if let fields = request.allHTTPHeaderFields, !fields.isEmpty {
            headers.reserveCapacity(fields.count)
            for (name, value) in fields {
                let lowercased = name.lowercased()
                if ignoredHeaderNames.contains(lowercased) {
                    onIgnoredHeader(lowercased, value)
                } else {
                    headers.append(Header(name: lowercased, value: value))
                }
            }
            if headers.count > 1 { headers.sort { $0.name < $1.name } }
        }
        self.headers = headers
        var hasher = Hasher()
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(headers)
        hasher.combine(body)
        hasher.combine(loadOptions)
        precomputedHash = hasher.finalize()
    }

    static func == (lhs: RequestKey, rhs: RequestKey) -> Bool {
        lhs.precomputedHash == rhs.precomputedHash && lhs.method == rhs.method && lhs.url == rhs.url
            && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.loadOptions == rhs.loadOptions
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(precomputedHash)
    }
}
