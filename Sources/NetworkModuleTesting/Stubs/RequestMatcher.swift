import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides which stub of a ``FakeNetworkSession`` answers a request.
///
/// Matchers combine with `&&`:
/// ```swift
/// session.stub(.method(.post) && .path("/users"), with: .json(User(id: 1, name: "Ada"), status: 201))
/// ```
///
/// For anything else, write a closure: `RequestMatcher("has a trace ID") { $0.value(forHTTPHeaderField: "X-Trace") != nil }`.
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// How the matcher reads in failure messages, for example `POST && path == "/users"`.
    public let description: String
    private let predicate: @Sendable (URLRequest) -> Bool

    /// Creates a matcher from a predicate; `description` names it in failure messages.
    public init(_ description: String, matches predicate: @escaping @Sendable (URLRequest) -> Bool) {
        self.description = description
        self.predicate = predicate
    }

    /// Whether `request` matches.
    public func matches(_ request: URLRequest) -> Bool {
        predicate(request)
    }

    /// Every request.
    public static let any = RequestMatcher("any request") { _ in true }

    /// Requests with this method.
    public static func method(_ method: HTTPMethod) -> RequestMatcher {
        RequestMatcher(method.rawValue) { $0.httpMethod == method.rawValue }
    }

    /// Requests whose URL path is exactly `path` (percent-decoded), for example `/users/1`.
    public static func path(_ path: String) -> RequestMatcher {
        RequestMatcher("path == \"\(path)\"") { $0.url?.path == path }
    }

    /// Requests whose URL path starts with `prefix`.
    public static func pathPrefix(_ prefix: String) -> RequestMatcher {
        RequestMatcher("path starts with \"\(prefix)\"") { $0.url?.path.hasPrefix(prefix) == true }
    }

    /// Requests whose whole URL path matches the regular expression `pattern`, for example
    /// `/users/[0-9]+`. An invalid pattern matches nothing.
    public static func pathPattern(_ pattern: String) -> RequestMatcher {
        let expression = try? NSRegularExpression(pattern: "^(?:\(pattern))$")
        return RequestMatcher("path matches /\(pattern)/") { request in
            guard let expression, let path = request.url?.path else { return false }
            return expression.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
        }
    }

    /// Requests with a query item `name`, with `value` if given (any value if `nil`).
    public static func query(_ name: String, _ value: String? = nil) -> RequestMatcher {
        RequestMatcher("query \(name)" + (value.map { " == \"\($0)\"" } ?? "")) { request in
            guard let url = request.url,
                let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems
            else { return false }
            return items.contains { $0.name == name && (value == nil || $0.value == value) }
        }
    }

    /// Requests with header `name` (ignoring case) equal to `value`, or present at all if
    /// `value` is `nil`.
    public static func header(_ name: String, _ value: String? = nil) -> RequestMatcher {
        RequestMatcher("header \(name)" + (value.map { " == \"\($0)\"" } ?? "")) { request in
            guard let actual = request.value(forHTTPHeaderField: name) else { return false }
            return value == nil || actual == value
        }
    }

    /// Requests whose body (`httpBody`) is exactly `data`. A body stream is not read, so
    /// a request with one matches no body matcher but ``streamedBody(length:)``.
    public static func body(_ data: Data) -> RequestMatcher {
        RequestMatcher("body == \(data.count) bytes") { $0.httpBodyStream == nil && $0.httpBody ?? Data() == data }
    }

    /// Requests whose body is a stream (`RequestBody.file(_:contentType:)`,
    /// `RequestBody.stream(length:contentType:_:)`, a large multipart form), of `length` bytes
    /// if given (the length the request states). The stream is not read.
    public static func streamedBody(length: Int? = nil) -> RequestMatcher {
        RequestMatcher("streamed body" + (length.map { " of \($0) bytes" } ?? "")) { request in
            request.httpBodyStream != nil && (length == nil || request.knownBodyLength == length)
        }
    }

    /// Requests whose body is JSON equal to `json`: the same values, whatever the key order
    /// and spacing (`1` equals `1.0`). Invalid JSON in `json` matches nothing.
    public static func jsonBody(_ json: String) -> RequestMatcher {
        let expected = JSONValue(parsing: Data(json.utf8))
        return RequestMatcher("JSON body == \(json)") { request in
            guard let expected, let body = request.httpBody else { return false }
            return JSONValue(parsing: body) == expected
        }
    }

    /// Requests whose body is JSON equal to `value` encoded with `encoder`, whatever the key
    /// order. A value that cannot be encoded matches nothing.
    public static func jsonBody(_ value: some Encodable & Sendable, encoder: JSONEncoder = JSONEncoder())
        -> RequestMatcher
    {
        let encoded = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
        return jsonBody(encoded ?? "(\(type(of: value)) could not be encoded)")
    }

    /// Requests whose body satisfies `predicate` (which gets an empty `Data` for a request
    /// without a body; a body stream matches nothing); `description` names it in failure messages.
    public static func body(_ description: String, where predicate: @escaping @Sendable (Data) -> Bool)
        -> RequestMatcher
    {
        RequestMatcher("body \(description)") { $0.httpBodyStream == nil && predicate($0.httpBody ?? Data()) }
    }

    /// Requests that match both.
    public static func && (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher("\(lhs.description) && \(rhs.description)") { lhs.matches($0) && rhs.matches($0) }
    }
}
