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
/// What it adds over handing the module a plain `URLSession`:
/// - **Credentials stay with their origin on redirects.** When a redirect leads to another
///   origin (scheme, host or port), `Authorization`, `Proxy-Authorization`, `Cookie`, the
///   API-key and token headers ``Redaction/default`` masks (`X-API-Key`, `X-Auth-Token`, …),
///   the header of every ``AuthenticationAction`` (whatever its name) and the names given as
///   `credentialHeaderNames:` are removed from the redirected request, after any
///   ``RedirectPolicy`` has chosen it, so that no policy can put them back.
/// - **Every ``RedirectPolicy``**: follow, refuse (the `3xx` is delivered), or decide per hop.
/// - **A bound on response size.** A body larger than ``maximumResponseSize`` (decoded bytes
///   counted) is not read to the end: the request fails with
///   ``NetworkError/responseTooLarge(limit:)``, before any of the body is read when its
///   `Content-Length` already says so, and memory stays within about twice the limit.
/// - **Downloads stream to disk, with progress**, and streams deliver the body as it arrives.
/// - **The same behaviour on Linux as on Apple platforms**: the request's timeout is an idle
///   timeout, cancelling is safe at any moment, a 401 challenge is delivered instead of hanging,
///   and libcurl's errors are mapped to Apple's `URLError` codes.
/// - **Certificate pinning, as an explicit opt-in** (`serverTrust:`): enforced on Apple
///   platforms; on Linux, where `URLSession` cannot enforce it, HTTPS requests fail closed.
///
/// The Sessions guide (`docs/sessions.md`, "URLSessionTransport or URLSession") compares it with
/// a plain `URLSession` on each platform, rule by rule.
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
    /// body streamed where the transfer says and its progress reported as the bytes move;
    /// otherwise as ``NetworkSession/dataTask(with:completionHandler:)``.
    ///
    /// - **Redirects**: at each redirect the delegate hands the policy the request `URLSession`
    ///   would send next, without credentials if it leads to another origin, then removes the
    ///   credentials again from the request the policy returns, if that one goes to another
    ///   origin: a policy can change the next request, or stop (the `3xx` response is then
    ///   delivered with its body), but never send credentials across origins. On Linux a request
    ///   the policy returns is still refused when it would reach HTTPS under pinning.
    /// - **To a file**: a `2xx` body is written to the file as each chunk arrives, never held in
    ///   memory, and the completion handler gets no data. The file is opened when the response
    ///   head arrives (an empty body still creates it), keeping the bytes a `206` continues as
    ///   ``TransferOptions/Destination/file(_:resumingAt:)`` says; other statuses are collected
    ///   in memory. ``maximumResponseSize`` bounds file bodies too (the `206`'s own bytes, not the
    ///   kept ones). A file that cannot be opened or written fails the task with
    ///   `URLError.cannotCreateFile` or `URLError.cannotWriteToFile` and cancels it. Nothing is
    ///   written to the file, nor is it created, once the task has finished (cancelled, timed
    ///   out, failed): what it wrote until then stays, for the module to keep or remove.
    /// - **Progress**, on `URLSession`'s delegate queue: the download at the response head and at
    ///   every chunk (bytes received, expected from the `Content-Length` when it counts the bytes
    ///   delivered, with the kept bytes added for a resumed `206`), and the upload as
    ///   `URLSession` sends the body (expected from `URLSession`, else from the request's body or
    ///   `Content-Length`).
    /// - **To a sink** (``TransferOptions/Destination/chunks(_:)``): each chunk of a `2xx` body
    ///   goes to the sink as it arrives, never collected, counted against ``maximumResponseSize``
    ///   as any body. On Apple platforms reading pauses while the sink is full (the task is
    ///   suspended; a paused body is not idle for the request's timeout). On Linux it cannot:
    ///   swift-corelibs-foundation has no way to pause a transfer (a suspended task goes on reading), so the
    ///   sink takes what arrives, up to ``maximumResponseSize``, and a stream that must outlast it
    ///   needs a larger limit or none.
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        if isBackground {
            return BackgroundTransferRefusal.unsentDataTask(for: request, completionHandler: completionHandler)
        }
        if delegate.refusesHTTPS, TransportDelegate.isHTTPS(request.url) {
            return UnsentTask(
                error: LinuxURLSessionQuirks.pinningUnsupportedError(url: request.url),
                completionHandler: completionHandler)
        }
        return TransportTask(
            request: request, transfer: transfer, transport: self, completionHandler: completionHandler)
    }

    /// Itself: the transport a decorator in front of it reports.
    package var underlyingTransport: URLSessionTransport? { self }

    /// Cancels `task` from a background queue, so that no caller waits for it.
    ///
    /// On Linux `URLSessionTask.cancel()` waits for the session's work queue, which may itself
    /// be waiting for room on the delegate queue (``BoundedDelegateQueue``): called from a
    /// delegate method it would stall both, and from a caller's thread (Swift concurrency's
    /// pool, the deadlines' timer) it would wait for the delegate to catch up. The outcome is
    /// reported before this is called; chunks that arrive meanwhile find no record and are
    /// dropped.
    static func cancelWithoutWaiting(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }

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
