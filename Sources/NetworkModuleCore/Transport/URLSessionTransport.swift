import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Security) && !canImport(FoundationNetworking)
    import Security
#endif

/// A ``NetworkSession`` on a `URLSession` of its own, whose delegate makes the transport
/// behave the same, and safely, on every platform. The default session of
/// ``DefaultNetworkModule``.
///
/// What it adds over a plain `URLSession` (the Sessions guide, `docs/sessions.md`, "URLSessionTransport
/// or URLSession", compares them rule by rule on each platform):
/// - **Credentials stay with their origin on redirects**: `Authorization`, `Proxy-Authorization`,
///   `Cookie`, the headers ``Redaction/default`` masks, every ``AuthenticationAction``'s and
///   `credentialHeaderNames:` are removed after any ``RedirectPolicy`` has chosen the request.
/// - **Every ``RedirectPolicy``**, and **a bound on response size** (``maximumResponseSize``): a
///   larger body fails with ``NetworkError/responseTooLarge(limit:)``, unread if its length says so.
/// - **Downloads stream to disk, with progress**, and streams deliver the body as it arrives.
/// - **The same behaviour on Linux as on Apple platforms** (idle timeouts, safe cancelling,
///   Apple's `URLError` codes), and **certificate pinning as an opt-in** (`serverTrust:`),
///   failing closed on Linux.
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .ephemeral, maximumResponseSize: 20 * 1024 * 1024)
/// let module = DefaultNetworkModule(requestBuilder: builder, session: transport)
/// ```
///
/// The transport owns its `URLSession` and invalidates it when the transport is released.
public final class URLSessionTransport: NetworkSession, TransferringSession {
    /// A transport on the default configuration, shared by modules that name no session.
    public static let shared = URLSessionTransport()

    /// The header names removed from a request redirected to another origin, in addition to
    /// `Authorization`, `Proxy-Authorization`, `Cookie`, the other credential headers
    /// ``Redaction/default`` masks, and the authentication actions' headers.
    let credentialHeaderNames: Set<String>

    /// The largest body read, in bytes; `nil` for no limit.
    public let maximumResponseSize: Int?

    /// Which HTTPS servers are trusted: the platform's validation (``ServerTrustPolicy/system``)
    /// or pinned certificates or keys.
    let serverTrust: ServerTrustPolicy

    /// The `URLSession` requests are sent on. Its delegate belongs to the transport.
    public let urlSession: URLSession

    let delegate: TransportDelegate

    /// Whether the configuration is a background one (it has an identifier), whose sessions run
    /// no data task: every request is then refused, unsent (see ``BackgroundTransfers``).
    let isBackground: Bool

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - configuration: the configuration of the underlying `URLSession`. A background
    ///     configuration runs no data task: every request then fails unsent with
    ///     ``NetworkError/transportError(_:)-enum.case`` (`URLError.unsupportedURL`); background
    ///     uploads and downloads are ``BackgroundTransfers``'.
    ///   - maximumResponseSize: the largest body read, in bytes (100 MiB by default); `nil`
    ///     for no limit. Bodies are held in memory, so keep this bounded; a download's body is
    ///     streamed to its file instead, and still bounded by this (raise it for large files).
    ///   - credentialHeaderNames: more header names that carry credentials (for example an
    ///     API key header), removed like `Authorization` on a redirect to another origin.
    ///   - serverTrust: which HTTPS servers are trusted; the platform's validation by default.
    ///     Pinned certificates or keys are enforced on Apple platforms; on Linux every HTTPS request
    ///     then fails with ``NetworkError/secureConnectionFailed(_:)-enum.case`` (see
    ///     ``ServerTrustPolicy``).
    public init(
        configuration: URLSessionConfiguration = .default,
        maximumResponseSize: Int? = 100 * 1024 * 1024,
        credentialHeaderNames: Set<String> = [],
        serverTrust: ServerTrustPolicy = .system
    ) {
        let names = Set(
            ["authorization", "proxy-authorization", "cookie"] + credentialHeaderNames.map { $0.lowercased() })
        self.credentialHeaderNames = credentialHeaderNames
        self.maximumResponseSize = maximumResponseSize
        self.serverTrust = serverTrust
        self.isBackground = BackgroundTransferRefusal.refusesDataTasks(configuration)
        self.delegate = TransportDelegate(
            maximumResponseSize: maximumResponseSize, credentialHeaderNames: names, serverTrust: serverTrust)
        #if canImport(FoundationNetworking)
            // No URLCache on Linux: with one, URLSessionTask.cancel() can race the task's
            // completion and trap inside swift-corelibs-foundation (see
            // LinuxURLSessionQuirks.cancelIsSafe(on:)). A copy, so the caller's configuration
            // is left as it was.
            let configuration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
            configuration.urlCache = nil
            // Backpressure: libcurl waits while the delegate lags, so that queued chunks cannot
            // fill memory before the size limit is seen crossed (see BoundedDelegateQueue).
            let delegateQueue: OperationQueue? = BoundedDelegateQueue()
        #else
            let delegateQueue: OperationQueue? = nil
        #endif
        self.urlSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    deinit {
        urlSession.finishTasksAndInvalidate()
    }

    /// Creates a task that sends `request` when resumed, with the transfer's redirect policy, its
    /// body streamed where the transfer says and its progress reported as the bytes move
    /// (docs/transfers.md); otherwise as ``NetworkSession/dataTask(with:completionHandler:)``.
    ///
    /// - **Redirects**: the policy gets the next request without credentials if it leaves the
    ///   caller's origin, and they are removed again from what it returns: no policy can send them
    ///   across origins. On Linux a redirect to HTTPS under pinning is refused.
    /// - **To a file or a sink**: a `2xx` body goes there chunk by chunk, never held in memory,
    ///   and counts against ``maximumResponseSize`` (a `206`'s own bytes). Nothing is written once
    ///   the task has finished; what was written stays, for the module to keep or remove. On Linux
    ///   reading cannot pause while a sink is full (``StreamPause``).
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        if isBackground {
            return BackgroundTransferRefusal.unsentDataTask(for: request, completionHandler: completionHandler)
        }
        if delegate.refusesHTTPS, TransportDelegate.isHTTPS(request.url) {
            return UnsentTask(
                answer: .failure(LinuxURLSessionQuirks.pinningUnsupportedError(url: request.url)),
                completionHandler: completionHandler)
        }
        return TransportTask(
            request: request, transfer: transfer, transport: self, completionHandler: completionHandler)
    }

    /// Itself: the transport a decorator in front of it reports.
    package var underlyingTransport: URLSessionTransport? { self }

    /// Room for the body the response declares, so that it is copied once as it arrives
    /// rather than again at every doubling of its buffer: the `Content-Length`, never more than
    /// the size limit, and at most 8 MiB up front (a server that declares a large body and
    /// sends little gets no large buffer for it; a larger body grows from there).
    static func initialBodyCapacity(for response: URLResponse?, limit: Int?) -> Int {
        guard let declared = response?.expectedContentLength, declared > 0 else { return 0 }
        let bound = max(0, min(limit ?? Int.max, 8 << 20))
        return declared < Int64(bound) ? Int(declared) : bound
    }
}
