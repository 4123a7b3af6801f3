/// The names of common HTTP header fields, spelled as RFC 9110 spells them, for use wherever a
/// header name is a `String`: in ``HTTPHeaders`` literals and subscripts, and in `URLRequest`.
///
/// ```swift
/// let headers: HTTPHeaders = [HTTPHeaderName.accept: "application/json"]
/// let next = response.headers[HTTPHeaderName.link]
/// ```
///
/// Header names compare ignoring case, so these match however a server spells the field.
public enum HTTPHeaderName {
    /// `Accept`: the media types the client accepts.
    public static let accept = "Accept"
    /// `Accept-Encoding`: the content codings the client accepts.
    public static let acceptEncoding = "Accept-Encoding"
    /// `Accept-Language`: the languages the client prefers.
    public static let acceptLanguage = "Accept-Language"
    /// `Authorization`: the client's credentials.
    public static let authorization = "Authorization"
    /// `Cache-Control`: caching directives.
    public static let cacheControl = "Cache-Control"
    /// `Content-Encoding`: the coding applied to the body.
    public static let contentEncoding = "Content-Encoding"
    /// `Content-Length`: the body's length in bytes.
    public static let contentLength = "Content-Length"
    /// `Content-Type`: the body's media type.
    public static let contentType = "Content-Type"
    /// `Cookie`: cookies sent to the server.
    public static let cookie = "Cookie"
    /// `ETag`: the version of the response's resource.
    public static let eTag = "ETag"
    /// `If-Modified-Since`: a conditional request's date.
    public static let ifModifiedSince = "If-Modified-Since"
    /// `If-None-Match`: a conditional request's entity tags.
    public static let ifNoneMatch = "If-None-Match"
    /// `Last-Modified`: when the response's resource last changed.
    public static let lastModified = "Last-Modified"
    /// `Link`: links to related resources, such as the next page (RFC 8288).
    public static let link = "Link"
    /// `Location`: where a redirect or a created resource is.
    public static let location = "Location"
    /// `Retry-After`: how long to wait before trying again.
    public static let retryAfter = "Retry-After"
    /// `Set-Cookie`: a cookie the server sets.
    public static let setCookie = "Set-Cookie"
    /// `User-Agent`: the client's name and version.
    public static let userAgent = "User-Agent"
    /// `WWW-Authenticate`: how to authenticate, with a `401`.
    public static let wwwAuthenticate = "WWW-Authenticate"
}
