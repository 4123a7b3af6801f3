import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The action of ``NetworkModuleAction/signing(secrets:sign:)``.
struct SigningAction: NetworkModuleAction {
    private let sign: @Sendable (URLRequest) throws -> RequestSignature

    /// Registers `secrets` for every redaction in the process, and signs with `sign`.
    init(secrets: Set<String>, sign: @escaping @Sendable (URLRequest) throws -> RequestSignature) {
        for name in secrets {
            CredentialHeaders.register(name)
            CredentialFields.register(name)
        }
        self.sign = sign
    }

    /// Adds the signature to a request for the base URL's origin; leaves any other as it is.
    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        guard let url = urlRequest.url, context.isSameOrigin(as: url) else {
            completion(.success(urlRequest))
            return
        }
        do {
            let signature = try sign(urlRequest)
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

extension NetworkModuleAction where Self == BuiltInAction {
    /// Signs every request to the base URL's origin: adds query items or headers computed from
    /// the request's URL, method and body and the time, as APIs that authenticate with a key, a
    /// timestamp and a hash expect.
    ///
    /// You supply the computation, hash function included (the framework ships no cryptography),
    /// and name the query items and headers that carry secrets, so that they are masked wherever
    /// the framework writes requests down (logs, `curl` commands, recorded traffic):
    ///
    /// ```swift
    /// let signing: any NetworkModuleAction = .signing(secrets: ["apikey", "hash"]) { _ in
    ///     let ts = String(Int(Date().timeIntervalSince1970))
    ///     return .queryItems([
    ///         URLQueryItem(name: "ts", value: ts),
    ///         URLQueryItem(name: "apikey", value: publicKey),
    ///         URLQueryItem(name: "hash", value: md5Hex(ts + privateKey + publicKey)),
    ///     ])
    /// }
    /// ```
    ///
    /// - `sign` gets the request as it would be sent unsigned, before each attempt, after the
    ///   actions before this one in the module's list: put it after any action that changes what
    ///   it signs. It may be called from any thread.
    /// - A body stream (``RequestBody/file(_:contentType:)``, ``RequestBody/stream(length:contentType:_:)``,
    ///   a large multipart form) is not read ahead to be signed, as reading would consume it: the
    ///   request's `httpBody` is then `nil` and its `httpBodyStream` is not. A signature that must
    ///   cover the body should throw for such a request, failing it, or sign it as the API allows
    ///   an unsigned payload (AWS's `UNSIGNED-PAYLOAD`).
    /// - Only requests whose URL has the base URL's origin (scheme, host, port) are signed, like
    ///   ``AuthenticationAction``'s tokens: a request to an absolute URL on another host is sent
    ///   unsigned. Secret headers are also removed on a redirect to another origin.
    /// - A query item is appended to the URL, percent-encoded per RFC 3986; a header replaces one
    ///   of the same name. A thrown error fails the request (``NetworkError/actionFailed(action:error:)``, or
    ///   the ``NetworkError`` thrown).
    /// - `secrets` names query items (compared as ``Redaction`` compares field names) and headers
    ///   (ignoring case) for every redaction in the process, from the moment the action is created.
    public static func signing(
        secrets: Set<String>, sign: @escaping @Sendable (URLRequest) throws -> RequestSignature
    ) -> BuiltInAction {
        BuiltInAction(SigningAction(secrets: secrets, sign: sign))
    }
}
