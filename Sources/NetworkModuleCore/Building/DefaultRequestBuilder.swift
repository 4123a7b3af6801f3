import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Builds `URLRequest`s for the paths of one base URL.
///
/// - The base URL and the path are joined with exactly one `/`, whichever side has or
///   lacks it, and the base URL's own path is kept:
///   `https://api.example.com/v2` + `users/1` → `https://api.example.com/v2/users/1`.
/// - A path that is an absolute URL (`https://cdn.example.com/a.png`) is used as it is, its scheme
///   lowercased (`HTTP://host/x` is sent as `http://host/x`: schemes are case-insensitive).
/// - Query items follow any query already in the path, in the caller's order, with names and
///   values percent-encoded per RFC 3986 (`+`, `&`, `=`, `#`, space, non-ASCII: all encoded).
/// - Headers are the default headers overridden by the request's, case-insensitively; the
///   body's `Content-Type` replaces a default one, unless the request's headers set one.
/// - A file, a stream, or a multipart form too large for memory is set as `httpBodyStream`,
///   a fresh stream each time a request is built, with `Content-Length` when its length is
///   known (unless the request's headers set one); see ``RequestBody``.
/// - Invalid input fails with ``NetworkError/invalidRequest(_:)`` saying why: a method that is
///   not a token, a header name or value with CR, LF or another control character, a body
///   that cannot be encoded, a timeout that is not a positive number.
///
/// ```swift
/// let builder = DefaultRequestBuilder(
///     baseURL: URL(string: "https://api.example.com/v2")!,
///     defaultHeaders: ["Accept": "application/json"]
/// )
/// ```
public struct DefaultRequestBuilder: RequestBuilder {
    /// The URL that relative paths are joined to.
    public var baseURL: URL? { base }

    /// Headers sent with every request, unless the request sets the same name.
    let defaultHeaders: HTTPHeaders

    /// The timeout, in seconds, of requests that set none. Default: 60.
    let defaultTimeout: TimeInterval

    /// The cache policy of requests that set none. Default: `.useProtocolCachePolicy`.
    let defaultCachePolicy: URLRequest.CachePolicy

    /// The encoder for JSON bodies that name no encoder of their own.
    let jsonEncoder: JSONEncoder

    private let base: URL
    /// The base URL as text without a trailing `/`, or `nil` if it cannot take a path.
    private let basePrefix: String?

    /// Creates a builder.
    ///
    /// - Parameters:
    ///   - baseURL: an absolute URL with a scheme and a host, and no query or fragment.
    ///     A base URL without them is reported when a request is built, as
    ///     ``InvalidRequestReason/invalidBaseURL(_:)``.
    ///   - defaultHeaders: headers sent with every request.
    ///   - defaultTimeout: the timeout, in seconds, of requests that set none.
    ///   - defaultCachePolicy: the cache policy of requests that set none.
    ///   - jsonEncoder: the encoder for JSON bodies that name no encoder of their own.
    public init(
        baseURL: URL,
        defaultHeaders: HTTPHeaders = [:],
        defaultTimeout: TimeInterval = 60,
        defaultCachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy,
        jsonEncoder: JSONEncoder = JSONEncoder()
    ) {
        self.base = baseURL
        self.defaultHeaders = defaultHeaders
        self.defaultTimeout = defaultTimeout
        self.defaultCachePolicy = defaultCachePolicy
        self.jsonEncoder = jsonEncoder
        self.basePrefix = Self.prefix(of: baseURL)
    }

    /// Builds the `URLRequest` for `request`; see the type's documentation for the rules.
    public func build(request: any NetworkRequest) throws(NetworkError) -> URLRequest {
        try build(request: request, checkingHeaders: true)
    }

    /// Builds the `URLRequest` for `request`, checking its header fields unless
    /// `checkingHeaders` is `false`: a module checks them once, whoever set them, just before
    /// the session gets the request (`DefaultNetworkModule.buildRequest`).
    func build(request: any NetworkRequest, checkingHeaders: Bool) throws(NetworkError) -> URLRequest {
        let method = request.method
        guard HeaderValidation.isToken(method.rawValue) else {
            throw .invalidRequest(.invalidMethod(method.rawValue))
        }
        let url = try makeURL(path: request.path, queryItems: request.queryItems)

        let timeout = request.timeout ?? defaultTimeout
        try RequestTimeout.check(timeout)
        var urlRequest = URLRequest(
            url: url, cachePolicy: request.cachePolicy ?? defaultCachePolicy, timeoutInterval: timeout)
        // URLRequest starts as GET; on Linux setting httpMethod normalizes the string, which
        // costs more than building the rest of a GET request.
        if method != .get { urlRequest.httpMethod = method.rawValue }

        var headers = defaultHeaders
        let requestHeaders = request.headers
        if !requestHeaders.isEmpty { headers = headers.merging(requestHeaders) }
        if let body = request.body {
            let (encoded, contentType) = try body.encoded(defaultEncoder: jsonEncoder)
            switch encoded {
            case .data(let data):
                urlRequest.httpBody = data
            case .stream(let source):
                // A fresh stream for each attempt: a consumed stream is never sent twice.
                urlRequest.httpBodyStream = try BodyStreams.makeStream(from: source)
                if let length = source.length, requestHeaders["Content-Length"] == nil {
                    headers["Content-Length"] = String(length)
                }
            }
            // The body's type wins over a default `Content-Type` (a module-wide JSON type
            // would drop a multipart boundary); only the request's own headers override it.
            if requestHeaders["Content-Type"] == nil { headers["Content-Type"] = contentType }
        }
        if checkingHeaders {
            for field in headers { try HeaderValidation.validate(name: field.name, value: field.value) }
        }
        urlRequest.setHeaderFields(headers)
        return urlRequest
    }

    private func makeURL(path: String, queryItems: [URLQueryItem]) throws(NetworkError) -> URL {
        // One pass over the UTF-8 of the path finds the query and fragment; the URL text is
        // written into one string, encoding only the parts that need it.
        let (pathPart, existingQuery, fragment) = Self.split(path)
        let absolute = Self.isAbsolute(pathPart)
        var text = ""
        if absolute {
            text = Self.encodedAbsoluteURL(String(pathPart))
        } else {
            guard let basePrefix else {
                throw .invalidRequest(.invalidBaseURL(base.absoluteString))
            }
            text.reserveCapacity(basePrefix.utf8.count + path.utf8.count + 32 * queryItems.count)
            text.append(basePrefix)
            if !pathPart.isEmpty {
                // Exactly one "/" between the base and the path, whatever the path starts with.
                let utf8 = pathPart.utf8
                let firstNonSlash = utf8.firstIndex { $0 != UInt8(ascii: "/") } ?? utf8.endIndex
                text.append("/")
                PercentEncoding.appendURLText(
                    pathPart[firstNonSlash...], allowing: PercentEncoding.pathCharacters, to: &text)
            }
        }
        var separator = "?"
        if let existingQuery {
            text.append("?")
            PercentEncoding.appendURLText(existingQuery, allowing: PercentEncoding.queryCharacters, to: &text)
            separator = existingQuery.isEmpty ? "" : "&"
        }
        PercentEncoding.appendQueryItems(queryItems, after: separator, to: &text)
        if let fragment {
            text.append("#")
            PercentEncoding.appendURLText(fragment, allowing: PercentEncoding.queryCharacters, to: &text)
        }
        guard let url = URL(string: text), !absolute || url.host != nil else {
            throw .invalidRequest(.invalidPath(path))
        }
        return url
    }

    /// Splits URL text into the part before `?`, the query and the fragment, scanning UTF-8
    /// (not Characters: a grapheme walk costs far more and finds the same ASCII delimiters).
    private static func split(_ path: String) -> (path: Substring, query: Substring?, fragment: Substring?) {
        let utf8 = path.utf8
        let (question, hash) = utf8.withContiguousStorageIfAvailable(delimiterOffsets) ?? delimiterOffsets(utf8)
        let hashIndex = hash.map { utf8.index(utf8.startIndex, offsetBy: $0) }
        let questionIndex = question.map { utf8.index(utf8.startIndex, offsetBy: $0) }
        let beforeFragment = hashIndex ?? utf8.endIndex
        let query = questionIndex.map { path[utf8.index(after: $0)..<beforeFragment] }
        let fragment = hashIndex.map { path[utf8.index(after: $0)...] }
        return (path[..<(questionIndex ?? beforeFragment)], query, fragment)
    }

    /// The offsets of the first `?` before any `#`, and of the first `#`.
    private static func delimiterOffsets(_ bytes: some Sequence<UInt8>) -> (question: Int?, hash: Int?) {
        var question: Int?
        for (offset, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "#") { return (question, offset) }
            if byte == UInt8(ascii: "?"), question == nil { question = offset }
        }
        return (question, nil)
    }

    /// An absolute URL (without query or fragment) with the characters its path may not hold
    /// encoded. The authority keeps the brackets of an IP-literal host (`http://[::1]:8080`),
    /// which encoded would no longer make a URL.
    private static func encodedAbsoluteURL(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else {
            return PercentEncoding.urlText(url, allowing: PercentEncoding.pathCharacters)
        }
        let pathStart = url[schemeEnd.upperBound...].firstIndex(of: "/") ?? url.endIndex
        // Schemes are case-insensitive (RFC 3986 §3.1) and lowercase is their canonical form:
        // Linux's URLSession refuses `HTTP://` as an unsupported URL.
        let schemeAndAuthority = url[..<schemeEnd.lowerBound].lowercased() + url[schemeEnd.lowerBound..<pathStart]
        let origin = PercentEncoding.urlText(schemeAndAuthority, allowing: authorityCharacters)
        return origin + PercentEncoding.urlText(String(url[pathStart...]), allowing: PercentEncoding.pathCharacters)
    }

    /// What the authority of an absolute URL may hold unencoded: a path's characters and the
    /// brackets of an IP-literal host.
    private static let authorityCharacters = PercentEncoding.pathCharacters.union(ASCIISet("[]"))

    /// Whether `path` starts with a URL scheme (a letter, then letters, digits, `+`, `-` or `.`)
    /// followed by `://`.
    private static func isAbsolute(_ path: Substring) -> Bool {
        // A path that starts with anything but a letter (a "/", as nearly every request's does)
        // needs no search for the colon.
        guard let first = path.utf8.first, ASCIISet.letters.contains(first),
            let colon = path.utf8.firstIndex(of: UInt8(ascii: ":"))
        else { return false }
        return path.utf8[..<colon].allSatisfy(schemeCharacters.contains) && path.utf8[colon...].starts(with: "://".utf8)
    }

    private static let schemeCharacters = ASCIISet.alphanumerics.union(ASCIISet("+-."))

    /// The base URL as text without a trailing `/`, or `nil` if it has no scheme and host
    /// or has a query or fragment.
    private static func prefix(of baseURL: URL) -> String? {
        guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
            components.scheme != nil, components.host?.isEmpty == false,
            components.percentEncodedQuery == nil, components.percentEncodedFragment == nil
        else { return nil }
        var text = (baseURL.withLowercaseScheme ?? baseURL).absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
