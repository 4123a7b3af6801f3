import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A description of one HTTP request: what to ask the server, not how to send it.
///
/// Only ``path`` is required; every other property has a default. A ``RequestBuilder``
/// turns the description into a `URLRequest`.
///
/// ```swift
/// struct GetUser: NetworkRequest {
///     let id: Int
///     var path: String { "/users/\(id)" }
///     var queryItems: [URLQueryItem] { [URLQueryItem(name: "fields", value: "name,email")] }
///     var requiresAuthentication: Bool { true }
/// }
/// ```
public protocol NetworkRequest: Sendable {
    /// The path, joined to the builder's base URL with exactly one `/`; or an absolute URL
    /// (`https://cdn.example.com/a.png`), which is used as it is.
    ///
    /// The path may carry a query (`/search?sort=asc`); ``queryItems`` are appended to it.
    /// Characters that may not appear in a URL path (spaces, non-ASCII, …) are
    /// percent-encoded; `%` followed by two hex digits is kept as an existing escape.
    var path: String { get }

    /// The method. Default: `.get`.
    var method: HTTPMethod { get }

    /// Query items, sent in this order, names and values percent-encoded per RFC 3986.
    /// An item with a `nil` value is sent as a bare name. Default: none.
    var queryItems: [URLQueryItem] { get }

    /// Headers for this request. They override the builder's default headers with the same
    /// name (ignoring case). Default: none.
    var headers: HTTPHeaders { get }

    /// The body, which also sets `Content-Type` unless ``headers`` set it. Default: none.
    var body: RequestBody? { get }

    /// The timeout in seconds; `nil` uses the builder's default. Default: `nil`.
    var timeout: TimeInterval? { get }

    /// The cache policy; `nil` uses the builder's default. Default: `nil`.
    var cachePolicy: URLRequest.CachePolicy? { get }

    /// The status codes that count as success. Default: ``AcceptableStatusCodes/moduleDefault``,
    /// the module's codes (any 2xx unless the module was created with others).
    var acceptableStatusCodes: AcceptableStatusCodes { get }

    /// Whether the request needs credentials. Authentication actions attach credentials
    /// only when this is `true` and the URL has the base URL's origin. Default: `false`.
    var requiresAuthentication: Bool { get }

    /// How a module's retry action (``NetworkModuleAction/retry(_:random:now:)``) treats this request, overriding the action's own policy:
    /// ``RetryPolicy/never`` for a request that must not be sent twice, a longer policy for an
    /// important one. `nil` uses the action's policy; without a retry action it has no effect.
    /// Default: `nil`.
    var retryPolicy: RetryPolicy? { get }

    /// How redirects are treated for this request: ``RedirectPolicy/follow``,
    /// ``RedirectPolicy/refuse`` (the `3xx` is the response) or ``RedirectPolicy/decide(_:)``.
    /// `nil` uses the module's policy. Default: `nil`.
    var redirectPolicy: RedirectPolicy? { get }
}

extension NetworkRequest {
    /// `.get`.
    public var method: HTTPMethod { .get }
    /// No query items.
    public var queryItems: [URLQueryItem] { [] }
    /// No headers.
    public var headers: HTTPHeaders { HTTPHeaders() }
    /// No body.
    public var body: RequestBody? { nil }
    /// The builder's default timeout.
    public var timeout: TimeInterval? { nil }
    /// The builder's default cache policy.
    public var cachePolicy: URLRequest.CachePolicy? { nil }
    /// ``AcceptableStatusCodes/moduleDefault``: the module's codes, any 2xx by default.
    public var acceptableStatusCodes: AcceptableStatusCodes { .moduleDefault }
    /// No authentication.
    public var requiresAuthentication: Bool { false }
    /// The retry action's own policy.
    public var retryPolicy: RetryPolicy? { nil }
    /// The module's redirect policy.
    public var redirectPolicy: RedirectPolicy? { nil }
}
