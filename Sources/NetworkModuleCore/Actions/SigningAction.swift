import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signs every request to the base URL's origin: adds query items or headers computed from the
/// request's URL, method and body and the time, as APIs that authenticate with a key, a
/// timestamp and a hash expect.
///
/// You supply the computation, hash function included (the framework ships no cryptography),
/// and name the query items and headers that carry secrets, so that they are masked wherever
/// the framework writes requests down (logs, `curl` commands, recorded traffic):
///
/// ```swift
/// let signing = SigningAction(secrets: ["apikey", "hash"]) { request in
///     let ts = String(Int(request.date.timeIntervalSince1970))
///     return .queryItems([
///         URLQueryItem(name: "ts", value: ts),
///         URLQueryItem(name: "apikey", value: publicKey),
///         URLQueryItem(name: "hash", value: md5Hex(ts + privateKey + publicKey)),
///     ])
/// }
/// ```
///
/// - The signature is computed before each attempt, after the actions before this one in the
///   module's list, so put it after any action that changes what it signs.
/// - Only requests whose URL has the base URL's origin (scheme, host, port) are signed, like
///   ``AuthenticationAction``'s tokens: a request to an absolute URL on another host is sent
///   unsigned. Secret headers are also removed on a redirect to another origin.
/// - A query item is appended to the URL, percent-encoded per RFC 3986; a header replaces one
///   of the same name. A thrown error fails the request (``NetworkError/actionFailed(_:)``, or
///   the ``NetworkError`` thrown).
/// - `secrets` names query items (compared as ``Redaction`` compares field names) and headers
///   (ignoring case) for every redaction in the process, from the moment the action is created.
public struct SigningAction: NetworkModuleAction {
    /// What a signature may be computed from.
    public struct Request: Sendable {
        /// The URL as it would be sent unsigned, with its query.
        public let url: URL
        /// The method, uppercase: `GET`, `POST`, …
        public let method: String
        /// The body, or `nil` for none or for a body stream (``hasBodyStream``).
        public let body: Data?
        /// Whether the body is a stream (``RequestBody/file(_:contentType:)``,
        /// ``RequestBody/stream(length:contentType:_:)``, a large multipart form): it is not
        /// read ahead to be signed, as reading would consume it, so ``body`` is `nil`. A
        /// signature that must cover the body should throw for such a request, failing it,
        /// or sign it as the API allows an unsigned payload (AWS's `UNSIGNED-PAYLOAD`).
        public let hasBodyStream: Bool
        /// The headers the request has so far.
        public let headers: HTTPHeaders
        /// The time of this attempt, from the action's clock.
        public let date: Date
        /// The action's context: the attempt, the request description, the sequence number.
        public let context: ActionContext
    }

    /// What signing adds to a request: query items, headers, or both.
    public struct Signature: Sendable {
        /// Appended to the URL's query, in this order.
        public var queryItems: [URLQueryItem]
        /// Set on the request, replacing fields of the same name.
        public var headers: HTTPHeaders

        /// A signature of query items and headers.
        public init(queryItems: [URLQueryItem] = [], headers: HTTPHeaders = [:]) {
            self.queryItems = queryItems
            self.headers = headers
        }

        /// A signature of query items only.
        public static func queryItems(_ items: [URLQueryItem]) -> Signature {
            Signature(queryItems: items)
        }

        /// A signature of headers only.
        public static func headers(_ headers: HTTPHeaders) -> Signature {
            Signature(headers: headers)
        }
    }

    private let sign: @Sendable (Request) throws -> Signature
    private let clock: @Sendable () -> Date

    /// Creates a signing action.
    ///
    /// - Parameters:
    ///   - secrets: the names of the query items and headers the signature adds that hold
    ///     secrets (an API key, a hash): masked by every ``Redaction`` from now on.
    ///   - clock: the time of each attempt; `Date()` by default, a fixed date in tests.
    ///   - sign: computes the signature of one attempt; may be called from any thread.
    public init(
        secrets: Set<String>,
        clock: @escaping @Sendable () -> Date = { Date() },
        sign: @escaping @Sendable (Request) throws -> Signature
    ) {
        for name in secrets {
            CredentialHeaders.register(name)
            CredentialFields.register(name)
        }
        self.sign = sign
        self.clock = clock
    }

    /// Adds the signature to a request for the base URL's origin; leaves any other as it is.
    public func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        guard let url = urlRequest.url, context.isSameOrigin(as: url) else {
            completion(.success(urlRequest))
            return
        }
        let input = Request(
            url: url, method: urlRequest.httpMethod ?? "GET", body: urlRequest.httpBody,
            hasBodyStream: urlRequest.httpBodyStream != nil,
            headers: HTTPHeaders(urlRequest.allHTTPHeaderFields ?? [:]), date: clock(), context: context)
        do {
            let signature = try sign(input)
            var signed = urlRequest
            if !signature.queryItems.isEmpty {
                guard let signedURL = url.appendingQueryItems(signature.queryItems) else {
                    throw NetworkError.invalidRequest(.invalidPath(url.absoluteString))
                }
                signed.url = signedURL
            }
            for field in signature.headers {
                signed.setValue(field.value, forHTTPHeaderField: field.name)
            }
            completion(.success(signed))
        } catch {
            completion(.failure(error))
        }
    }
}

extension NetworkModuleAction where Self == SigningAction {
    /// Signs each request to the base URL's origin with what `sign` computes; `secrets` names
    /// the query items and headers to mask in logs: `.signing(secrets: ["hash"]) { request in … }`.
    public static func signing(
        secrets: Set<String>,
        clock: @escaping @Sendable () -> Date = { Date() },
        sign: @escaping @Sendable (SigningAction.Request) throws -> SigningAction.Signature
    ) -> SigningAction {
        SigningAction(secrets: secrets, clock: clock, sign: sign)
    }
}
