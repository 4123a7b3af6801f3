import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The action of ``NetworkModuleAction/headers(_:)``, ``NetworkModuleAction/header(_:value:)``
/// and ``NetworkModuleAction/requestID(headerName:)``.
struct HeadersAction: NetworkModuleAction {
    private let fields: [(name: String, value: @Sendable (ActionContext) -> String)]

    /// Headers with fixed values.
    init(_ headers: HTTPHeaders) {
        fields = headers.map { field in
            let value = field.value
            return (field.name, { _ in value })
        }
    }

    /// One header whose value is computed before each attempt.
    init(name: String, value: @escaping @Sendable (ActionContext) -> String) {
        fields = [(name, value)]
    }

    /// Sets each header the request does not have yet; an invalid name or value fails the
    /// request when the module checks its header fields, just before sending it.
    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        completion(
            HeaderFieldTable.editing(urlRequest) { headers throws(NetworkError) in
                _ = try prepareHeaderFields(&headers, url: urlRequest.url, context: context)
            })
    }
}

extension HeadersAction: HeaderFieldPreparing {
    func prepareHeaderFields(
        _ headers: inout HeaderFieldTable, url: URL?, context: ActionContext
    ) throws(NetworkError) -> Bool {
        for field in fields {
            headers.setIfMissing(field.name) { field.value(context) }
        }
        return true
    }
}

extension NetworkModuleAction where Self == BuiltInAction {
    /// Adds these fixed headers to every request that does not set them.
    ///
    /// The header actions add fixed headers (`User-Agent`, `Accept-Language`) and computed ones
    /// (a request ID), without overriding a header the request already has:
    ///
    /// ```swift
    /// actions: [
    ///     .headers(["User-Agent": "Notes/2.4.1", "Accept-Language": "pl-PL"]),
    ///     .requestID(),                                   // X-Request-ID: <UUID>, per request
    ///     .header("X-Client-Time") { _ in "\(Date().timeIntervalSince1970)" },
    /// ]
    /// ```
    ///
    /// Values are computed before each attempt, from its ``ActionContext``. The request ID of
    /// ``requestID(headerName:)`` is the context's ``ActionContext/requestID``: the same on every
    /// attempt of one request (so the server's logs tie a retry to its first attempt), different
    /// for every request. A header the request (or an earlier action) already set is left as it is.
    /// These headers go to every host, so never put a secret in them: use
    /// ``AuthenticationAction``, which keeps credentials on the base URL's origin. A name that is
    /// not an HTTP token, or a value that holds a control character (CR and LF among them), fails
    /// the request with ``NetworkError/invalidRequest(_:)``.
    public static func headers(_ headers: HTTPHeaders) -> BuiltInAction {
        BuiltInAction(HeadersAction(headers))
    }

    /// Adds the header `name`, computed before each attempt:
    /// `.header("X-Client-Time") { _ in "\(Date().timeIntervalSince1970)" }`.
    public static func header(_ name: String, value: @escaping @Sendable (ActionContext) -> String) -> BuiltInAction {
        BuiltInAction(HeadersAction(name: name, value: value))
    }

    /// Adds a request ID (a UUID), the same on every attempt of one request:
    /// `X-Request-ID: 6F1C…` by default.
    public static func requestID(headerName: String = "X-Request-ID") -> BuiltInAction {
        header(headerName) { $0.requestID.uuidString }
    }
}
