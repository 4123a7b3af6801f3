import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("DefaultRequestBuilder")
struct DefaultRequestBuilderTests {
    /// A request whose every property can be set by the test.
    struct Request: NetworkRequest {
        var path: String
        var method: HTTPMethod = .get
        var queryItems: [URLQueryItem] = []
        var headers: HTTPHeaders = [:]
        var body: RequestBody? = nil
        var timeout: TimeInterval? = nil
        var cachePolicy: URLRequest.CachePolicy? = nil
    }

    static let apiBase = "https://api.example.com"

    /// A builder for `base`, which must parse as a URL.
    func makeBuilder(
        base: String = apiBase, defaultHeaders: HTTPHeaders = [:], defaultTimeout: TimeInterval = 60,
        defaultCachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy
    ) throws -> DefaultRequestBuilder {
        DefaultRequestBuilder(
            baseURL: try #require(URL(string: base)), defaultHeaders: defaultHeaders,
            defaultTimeout: defaultTimeout, defaultCachePolicy: defaultCachePolicy)
    }

    /// The URL text of `request` built against `base`.
    func urlText(_ request: Request, base: String = apiBase) throws -> String {
        let urlRequest = try makeBuilder(base: base).build(request: request)
        return try #require(urlRequest.url).absoluteString
    }

    /// The header fields of `urlRequest` keyed by lowercased name. FoundationNetworking
    /// canonicalizes the casing of names (`X-Request-ID` → `X-Request-Id`), so exact casing
    /// is not observable on every platform; the count of fields is.
    func lowercasedFields(_ urlRequest: URLRequest) -> [String: String] {
        Dictionary((urlRequest.allHTTPHeaderFields ?? [:]).map { ($0.key.lowercased(), $0.value) }) { first, _ in first
        }
    }

    /// The error building `request` fails with, or `nil` if it builds.
    func buildError(_ request: Request, builder: DefaultRequestBuilder) -> NetworkError? {
        do {
            _ = try builder.build(request: request)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Joining the base URL and the path

    @Test(
        "when the base URL and the path have or lack a slash, should join them with exactly one",
        arguments: [
            ("https://api.example.com", "users/1"),
            ("https://api.example.com/", "users/1"),
            ("https://api.example.com", "/users/1"),
            ("https://api.example.com/", "/users/1"),
        ])
    func joinsWithOneSlash(base: String, path: String) throws {
        #expect(try urlText(Request(path: path), base: base) == "https://api.example.com/users/1")
    }

    @Test(
        "when the base URL has a path, should keep it whichever side has the slash",
        arguments: [
            ("https://api.example.com/v2", "users/1"),
            ("https://api.example.com/v2/", "users/1"),
            ("https://api.example.com/v2", "/users/1"),
            ("https://api.example.com/v2/", "/users/1"),
        ])
    func keepsBasePath(base: String, path: String) throws {
        #expect(try urlText(Request(path: path), base: base) == "https://api.example.com/v2/users/1")
    }

    @Test("when the base URL has a port, should keep it")
    func keepsPort() throws {
        #expect(try urlText(Request(path: "health"), base: "http://localhost:8080") == "http://localhost:8080/health")
    }

    @Test("when the path is empty, should use the base URL without a trailing slash")
    func emptyPath() throws {
        #expect(try urlText(Request(path: ""), base: "https://api.example.com/v2") == "https://api.example.com/v2")
        #expect(try urlText(Request(path: ""), base: "https://api.example.com") == "https://api.example.com")
    }

    @Test("when the path is a single slash, should end the URL with one slash")
    func slashPath() throws {
        #expect(try urlText(Request(path: "/"), base: "https://api.example.com/v2") == "https://api.example.com/v2/")
        #expect(try urlText(Request(path: "/"), base: "https://api.example.com/v2/") == "https://api.example.com/v2/")
    }

    @Test("when the path starts with several slashes, should still join with exactly one")
    func severalLeadingSlashes() throws {
        #expect(
            try urlText(Request(path: "//users"), base: "https://api.example.com/v2")
                == "https://api.example.com/v2/users")
    }

    @Test("when the path ends with a slash, should keep it")
    func keepsTrailingSlashOfPath() throws {
        #expect(try urlText(Request(path: "users/")) == "https://api.example.com/users/")
    }

    @Test("when the path is an absolute URL, should use it as is and ignore the base URL")
    func absoluteURL() throws {
        let request = Request(path: "https://cdn.example.com/images/a.png")
        #expect(try urlText(request, base: "https://api.example.com/v2") == "https://cdn.example.com/images/a.png")
    }

    @Test("when the absolute URL has a query, should keep it and append the query items after it")
    func absoluteURLWithQuery() throws {
        let request = Request(
            path: "https://cdn.example.com/a.png?size=large&v=2", queryItems: [URLQueryItem(name: "w", value: "10")])
        #expect(try urlText(request) == "https://cdn.example.com/a.png?size=large&v=2&w=10")
    }

    @Test("when the absolute URL has a port and user info, should keep them")
    func absoluteURLWithPortAndUser() throws {
        #expect(try urlText(Request(path: "http://user@localhost:8081/a/b")) == "http://user@localhost:8081/a/b")
    }

    @Test("when the absolute URL has an IPv6 host, should keep the brackets")
    func absoluteURLWithIPv6Host() throws {
        let url = try makeBuilder().build(request: Request(path: "http://[::1]:8080/health")).url
        #expect(url?.absoluteString == "http://[::1]:8080/health")
        #expect(url?.port == 8080)
        #expect(url?.path == "/health")
    }

    @Test("when the absolute URL has an IPv6 host and a path to encode, should encode only the path")
    func absoluteURLWithIPv6HostAndEncodedPath() throws {
        #expect(try urlText(Request(path: "http://[::1]:8080/a b/[x]")) == "http://[::1]:8080/a%20b/%5Bx%5D")
    }

    @Test("when the absolute URL's path has characters not allowed in a path, should encode them")
    func absoluteURLPathEncoding() throws {
        #expect(
            try urlText(Request(path: "https://cdn.example.com/my file/ü[1]%2F"))
                == "https://cdn.example.com/my%20file/%C3%BC%5B1%5D%2F")
    }

    @Test("when the base URL is invalid but the path is absolute, should use the path")
    func absoluteURLWithInvalidBase() throws {
        #expect(
            try urlText(Request(path: "https://cdn.example.com/a"), base: "/relative/only")
                == "https://cdn.example.com/a")
    }

    @Test("when a path starts with a word and a colon but no //, should treat it as relative")
    func colonInRelativePath() throws {
        #expect(
            try urlText(Request(path: "users:search"), base: "https://api.example.com/v2")
                == "https://api.example.com/v2/users:search")
    }

    // MARK: - Query

    @Test("when the path has a query and there are query items, should append the items after it with &")
    func pathQueryPlusItems() throws {
        let request = Request(
            path: "search?sort=asc",
            queryItems: [URLQueryItem(name: "page", value: "2"), URLQueryItem(name: "q", value: "x")])
        #expect(try urlText(request) == "https://api.example.com/search?sort=asc&page=2&q=x")
    }

    @Test("when the path ends with an empty query, should add the items without a stray &")
    func emptyPathQueryPlusItems() throws {
        let request = Request(path: "search?", queryItems: [URLQueryItem(name: "page", value: "2")])
        #expect(try urlText(request) == "https://api.example.com/search?page=2")
    }

    @Test("when the path has a fragment, should keep it after the query items")
    func fragment() throws {
        let request = Request(path: "docs?lang=en#section-2", queryItems: [URLQueryItem(name: "v", value: "1")])
        let url = try #require(try makeBuilder().build(request: request).url)
        #expect(url.absoluteString == "https://api.example.com/docs?lang=en&v=1#section-2")
        #expect(url.fragment == "section-2")
        #expect(url.query == "lang=en&v=1")
    }

    @Test("when there are query items, should send them in the caller's order, not sorted")
    func queryOrder() throws {
        let items = ["zeta", "alpha", "mu", "alpha"].enumerated().map { URLQueryItem(name: $1, value: String($0)) }
        let url = try #require(try makeBuilder().build(request: Request(path: "list", queryItems: items)).url)
        #expect(url.absoluteString == "https://api.example.com/list?zeta=0&alpha=1&mu=2&alpha=3")
        let decoded = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        #expect(decoded == items)
    }

    @Test("when a query item has a nil value, should send the bare name")
    func nilValuedItem() throws {
        let items = [URLQueryItem(name: "debug", value: nil), URLQueryItem(name: "a", value: "1")]
        let url = try #require(try makeBuilder().build(request: Request(path: "x", queryItems: items)).url)
        #expect(url.absoluteString == "https://api.example.com/x?debug&a=1")
        #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems == items)
    }

    @Test("when a query item has an empty value, should send the name and =")
    func emptyValuedItem() throws {
        #expect(
            try urlText(Request(path: "x", queryItems: [URLQueryItem(name: "q", value: "")]))
                == "https://api.example.com/x?q=")
    }

    @Test(
        "when names and values contain reserved or non-ASCII characters, should percent-encode them per RFC 3986",
        arguments: [
            ("+", "%2B"),
            ("&", "%26"),
            ("=", "%3D"),
            ("#", "%23"),
            ("/", "%2F"),
            ("?", "%3F"),
            (" ", "%20"),
            ("%", "%25"),
            ("🙂", "%F0%9F%99%82"),
            ("日本語", "%E6%97%A5%E6%9C%AC%E8%AA%9E"),
            ("a+b c&d=e", "a%2Bb%20c%26d%3De"),
            ("-._~AZaz09", "-._~AZaz09"),
        ])
    func queryEncoding(raw: String, encoded: String) throws {
        let items = [URLQueryItem(name: "n" + raw, value: raw + "v")]
        let url = try #require(try makeBuilder().build(request: Request(path: "q", queryItems: items)).url)
        #expect(url.absoluteString == "https://api.example.com/q?n\(encoded)=\(encoded)v")
        #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems == items)
    }

    @Test("when many hostile items are sent together, should decode back to exactly the given items")
    func queryRoundTrip() throws {
        let items = [
            URLQueryItem(name: "q", value: "a+b c"),
            URLQueryItem(name: "a&b", value: "c=d"),
            URLQueryItem(name: "frag#", value: "x?y/z"),
            URLQueryItem(name: "pct", value: "100%"),
            URLQueryItem(name: "日本語", value: "🙂"),
            URLQueryItem(name: "flag", value: nil),
        ]
        let url = try #require(try makeBuilder().build(request: Request(path: "search", queryItems: items)).url)
        #expect(
            url.absoluteString
                == "https://api.example.com/search?q=a%2Bb%20c&a%26b=c%3Dd&frag%23=x%3Fy%2Fz&pct=100%25"
                + "&%E6%97%A5%E6%9C%AC%E8%AA%9E=%F0%9F%99%82&flag")
        #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems == items)
    }

    // MARK: - Path encoding

    @Test(
        "when the path has characters not allowed in a URL path, should encode them and keep valid escapes",
        arguments: [
            ("files/my file.txt", "https://api.example.com/files/my%20file.txt"),
            ("users/José", "https://api.example.com/users/Jos%C3%A9"),
            ("tags/日本", "https://api.example.com/tags/%E6%97%A5%E6%9C%AC"),
            ("discount/100% off", "https://api.example.com/discount/100%25%20off"),
            ("discount/100%", "https://api.example.com/discount/100%25"),
            ("discount/%zz", "https://api.example.com/discount/%25zz"),
            ("a/b%2Fc", "https://api.example.com/a/b%2Fc"),
            ("a/b%2fc d", "https://api.example.com/a/b%2fc%20d"),
            ("quote\"d", "https://api.example.com/quote%22d"),
            ("keep/:@!$&'()*+,;=-._~", "https://api.example.com/keep/:@!$&'()*+,;=-._~"),
        ])
    func pathEncoding(path: String, expected: String) throws {
        #expect(try urlText(Request(path: path)) == expected)
    }

    @Test("when an existing %2F escape is in the path, should keep it as one segment")
    func keepsEncodedSlash() throws {
        let url = try #require(try makeBuilder().build(request: Request(path: "a/b%2Fc")).url)
        #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath == "/a/b%2Fc")
    }

    @Test("when the path's own query has a space or a lone %, should encode them")
    func pathQueryEncoding() throws {
        #expect(try urlText(Request(path: "search?q=a b&p=100%")) == "https://api.example.com/search?q=a%20b&p=100%25")
    }

    // MARK: - Invalid base URL

    @Test(
        "when the base URL has no scheme or host, or has a query or fragment, should fail with invalidBaseURL",
        arguments: [
            "/relative/only",
            "api.example.com/v2",
            "https://api.example.com/v2?key=1",
            "https://api.example.com/v2#top",
            "file:///tmp/x",
        ])
    func invalidBaseURL(base: String) throws {
        let builder = try makeBuilder(base: base)
        let baseText = try #require(URL(string: base)).absoluteString
        #expect(buildError(Request(path: "users"), builder: builder) == .invalidRequest(.invalidBaseURL(baseText)))
    }

    @Test("when the base URL is invalid, should report it even for an empty path")
    func invalidBaseURLEmptyPath() throws {
        let builder = try makeBuilder(base: "https://api.example.com?x=1")
        #expect(
            buildError(Request(path: ""), builder: builder)
                == .invalidRequest(.invalidBaseURL("https://api.example.com?x=1")))
    }

    @Test("should expose the base URL it was created with")
    func exposesBaseURL() throws {
        #expect(
            try makeBuilder(base: "https://api.example.com/v2/").baseURL?.absoluteString
                == "https://api.example.com/v2/")
    }

    // MARK: - Method

    @Test(
        "when a standard method is used, should send its uppercase wire value",
        arguments: [
            (HTTPMethod.get, "GET"), (.head, "HEAD"), (.post, "POST"), (.put, "PUT"), (.patch, "PATCH"),
            (.delete, "DELETE"), (.options, "OPTIONS"), (.trace, "TRACE"), (HTTPMethod(rawValue: "CONNECT"), "CONNECT"),
        ])
    func standardMethods(method: HTTPMethod, wire: String) throws {
        #expect(try makeBuilder().build(request: Request(path: "x", method: method)).httpMethod == wire)
    }

    @Test("when no method is set, should send GET")
    func defaultMethod() throws {
        struct PathOnly: NetworkRequest { var path: String { "x" } }
        #expect(try makeBuilder().build(request: PathOnly()).httpMethod == "GET")
    }

    @Test("when a custom method token is used, should send it exactly as given")
    func customMethod() throws {
        #expect(try makeBuilder().build(request: Request(path: "x", method: "PURGE")).httpMethod == "PURGE")
        #expect(
            try makeBuilder().build(request: Request(path: "x", method: HTTPMethod(rawValue: "M-SEARCH"))).httpMethod
                == "M-SEARCH")
    }

    @Test(
        "when the method is not a valid token, should fail with invalidMethod",
        arguments: ["GE T", "", "GET\r\n", "GET\n", "GÉT", "GET(", "\tGET", "GET\0"])
    func invalidMethod(method: String) throws {
        let error = buildError(Request(path: "x", method: HTTPMethod(rawValue: method)), builder: try makeBuilder())
        #expect(error == .invalidRequest(.invalidMethod(method)))
    }

    // MARK: - Headers

    @Test("when the builder has default headers, should send them")
    func defaultHeaders() throws {
        let builder = try makeBuilder(defaultHeaders: ["Accept": "application/json", "X-Client": "tests/1.0"])
        let urlRequest = try builder.build(request: Request(path: "x"))
        #expect(urlRequest.allHTTPHeaderFields?.count == 2)
        #expect(lowercasedFields(urlRequest) == ["accept": "application/json", "x-client": "tests/1.0"])
    }

    @Test(
        "when the request sets a header with other casing than a default, should send one field with the request's value"
    )
    func requestHeaderOverridesCaseInsensitively() throws {
        let builder = try makeBuilder(defaultHeaders: ["content-type": "text/plain", "Accept": "*/*"])
        let urlRequest = try builder.build(request: Request(path: "x", headers: ["Content-Type": "application/xml"]))
        let fields = try #require(urlRequest.allHTTPHeaderFields)
        #expect(fields.count == 2)
        #expect(fields.filter { $0.key.lowercased() == "content-type" }.map(\.value) == ["application/xml"])
        #expect(urlRequest.value(forHTTPHeaderField: "CONTENT-TYPE") == "application/xml")
        #expect(urlRequest.value(forHTTPHeaderField: "Accept") == "*/*")
    }

    @Test("when the request adds headers, should send them together with the defaults")
    func requestHeadersAdded() throws {
        let builder = try makeBuilder(defaultHeaders: ["Accept": "application/json"])
        let urlRequest = try builder.build(request: Request(path: "x", headers: ["X-Request-ID": "abc-123"]))
        #expect(urlRequest.allHTTPHeaderFields?.count == 2)
        #expect(lowercasedFields(urlRequest) == ["accept": "application/json", "x-request-id": "abc-123"])
    }

    @Test(
        "when a header name is empty or not a token, should fail with invalidHeaderName",
        arguments: [
            "", "X Header", "X-Header\r\nX-Admin", "X-Header\n", "X-Header\r", "X\0", "X:Y", "Ünicode", "X\tY",
            "X\u{7F}",
        ])
    func invalidHeaderName(name: String) throws {
        let error = buildError(Request(path: "x", headers: HTTPHeaders([(name, "v")])), builder: try makeBuilder())
        #expect(error == .invalidRequest(.invalidHeaderName(name)))
    }

    @Test("when a default header name is invalid, should fail with invalidHeaderName")
    func invalidDefaultHeaderName() throws {
        let builder = try makeBuilder(defaultHeaders: ["Bad Name": "v"])
        #expect(buildError(Request(path: "x"), builder: builder) == .invalidRequest(.invalidHeaderName("Bad Name")))
    }

    @Test(
        "when a header value has CR, LF, NUL or another control character, should fail without echoing the value",
        arguments: [
            "secret-token\r\nX-Admin: 1", "secret-token\n", "secret-token\r", "secret-token\0", "secret-token\u{01}",
            "secret-token\u{1B}", "secret-token\u{7F}", "secret-token\u{0B}", "secret-token\u{0C}",
        ])
    func invalidHeaderValue(value: String) throws {
        let error = buildError(Request(path: "x", headers: ["X-Api-Key": value]), builder: try makeBuilder())
        #expect(error == .invalidRequest(.invalidHeaderValue(name: "X-Api-Key")))
        let description = try #require(error).description
        #expect(!description.contains("secret-token"))
        #expect(!description.contains("X-Admin"))
        #expect(description.contains("X-Api-Key"))
    }

    @Test("when a default header value has a line break, should fail with invalidHeaderValue")
    func invalidDefaultHeaderValue() throws {
        let builder = try makeBuilder(defaultHeaders: ["Authorization": "Bearer t\r\nX: 1"])
        #expect(
            buildError(Request(path: "x"), builder: builder)
                == .invalidRequest(.invalidHeaderValue(name: "Authorization")))
    }

    @Test("when an invalid default header value is overridden by the request, should build")
    func overriddenInvalidDefault() throws {
        let builder = try makeBuilder(defaultHeaders: ["X-Token": "bad\nvalue"])
        let urlRequest = try builder.build(request: Request(path: "x", headers: ["x-token": "good"]))
        #expect(urlRequest.allHTTPHeaderFields?.count == 1)
        #expect(lowercasedFields(urlRequest) == ["x-token": "good"])
    }

    @Test(
        "when a header value has non-ASCII text, a horizontal tab, or is empty, should send it",
        arguments: ["Zoë Ünicode 日本", "a\tb", "", "\"quoted\"; q=0.5, */*"])
    func allowedHeaderValues(value: String) throws {
        let urlRequest = try makeBuilder().build(request: Request(path: "x", headers: ["X-Note": value]))
        #expect(urlRequest.value(forHTTPHeaderField: "X-Note") == value)
    }

    @Test("when a header name uses every token symbol, should send it")
    func tokenSymbolsInName() throws {
        let name = "X!#$%&'*+-.^_`|~09az"
        let urlRequest = try makeBuilder().build(request: Request(path: "x", headers: HTTPHeaders([(name, "1")])))
        #expect(urlRequest.allHTTPHeaderFields?.count == 1)
        #expect(lowercasedFields(urlRequest) == [name.lowercased(): "1"])
    }

    // MARK: - Timeout and cache policy

    @Test("when the request sets no timeout, should use 60 seconds by default")
    func defaultTimeout() throws {
        #expect(try makeBuilder().build(request: Request(path: "x")).timeoutInterval == 60)
    }

    @Test("when the builder sets a default timeout, should use it for requests that set none")
    func builderTimeout() throws {
        #expect(try makeBuilder(defaultTimeout: 12.5).build(request: Request(path: "x")).timeoutInterval == 12.5)
    }

    @Test("when the request sets a timeout, should use it over the default")
    func perRequestTimeout() throws {
        #expect(try makeBuilder(defaultTimeout: 30).build(request: Request(path: "x", timeout: 5)).timeoutInterval == 5)
    }

    @Test(
        "when the request's timeout is 0, negative or infinite, should fail with invalidTimeout",
        arguments: [0, -1, -0.001, .infinity, -.infinity])
    func invalidTimeout(timeout: TimeInterval) throws {
        let error = buildError(Request(path: "x", timeout: timeout), builder: try makeBuilder())
        #expect(error == .invalidRequest(.invalidTimeout(timeout)))
    }

    @Test("when the request's timeout is NaN, should fail with invalidTimeout carrying NaN")
    func nanTimeout() throws {
        let error = buildError(Request(path: "x", timeout: .nan), builder: try makeBuilder())
        guard case .invalidRequest(.invalidTimeout(let timeout)) = error else {
            Issue.record("expected invalidTimeout, got \(String(describing: error))")
            return
        }
        #expect(timeout.isNaN)
    }

    @Test("when the builder's default timeout is invalid and the request sets none, should fail with invalidTimeout")
    func invalidDefaultTimeout() throws {
        #expect(
            buildError(Request(path: "x"), builder: try makeBuilder(defaultTimeout: 0))
                == .invalidRequest(.invalidTimeout(0)))
    }

    @Test("when the request sets no cache policy, should use the protocol's policy by default")
    func defaultCachePolicy() throws {
        #expect(try makeBuilder().build(request: Request(path: "x")).cachePolicy == .useProtocolCachePolicy)
    }

    @Test("when the builder sets a default cache policy, should use it for requests that set none")
    func builderCachePolicy() throws {
        let builder = try makeBuilder(defaultCachePolicy: .returnCacheDataElseLoad)
        #expect(try builder.build(request: Request(path: "x")).cachePolicy == .returnCacheDataElseLoad)
    }

    @Test("when the request sets a cache policy, should use it over the default")
    func perRequestCachePolicy() throws {
        let builder = try makeBuilder(defaultCachePolicy: .returnCacheDataElseLoad)
        let request = Request(path: "x", cachePolicy: .reloadIgnoringLocalCacheData)
        #expect(try builder.build(request: request).cachePolicy == .reloadIgnoringLocalCacheData)
    }

    // MARK: - No body

    @Test("when the request has no body, should send no body and no Content-Type")
    func noBody() throws {
        let urlRequest = try makeBuilder().build(request: Request(path: "x", method: .post))
        #expect(urlRequest.httpBody == nil)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == nil)
    }
}
