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
///   origin (scheme, host or port), `Authorization`, `Cookie` and the other
///   ``credentialHeaderNames`` are removed from the redirected request. (Linux's
///   `URLSession` forwards them.)
/// - **A bound on response size.** A body larger than ``maximumResponseSize`` is not read to
///   the end: the request fails with ``NetworkError/responseTooLarge(limit:)``.
/// - **The request's timeout is honoured on Linux**, as a deadline for the whole response.
/// - **No hang on a 401 challenge on Linux.** Linux's `URLSession` waits forever when a
///   server answers 401 with `WWW-Authenticate` and no credential is stored; here the 401
///   is delivered, as on Apple platforms.
/// - libcurl's error codes are mapped to the ones Apple's `URLSession` reports, TLS failures
///   included (an untrusted certificate is `URLError.serverCertificateUntrusted`).
/// - **Certificate pinning, as an explicit opt-in** (``serverTrust``): enforced on Apple
///   platforms; on Linux, where `URLSession` cannot enforce it, HTTPS requests fail closed.
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .ephemeral, maximumResponseSize: 20 * 1024 * 1024)
/// let module = DefaultNetworkModule(requestBuilder: builder, session: transport)
/// ```
///
/// The transport owns its `URLSession` and invalidates it when the transport is released.
public final class URLSessionTransport: NetworkSession {
    /// A transport on the default configuration, shared by modules that name no session.
    public static let shared = URLSessionTransport()

    /// The header names removed from a request redirected to another origin, in addition to
    /// `Authorization`, `Proxy-Authorization` and `Cookie`.
    public let credentialHeaderNames: Set<String>

    /// The largest body read, in bytes; `nil` for no limit.
    public let maximumResponseSize: Int?

    /// Which HTTPS servers are trusted: the platform's validation (``ServerTrustPolicy/system``)
    /// or pinned certificates.
    public let serverTrust: ServerTrustPolicy

    /// The `URLSession` requests are sent on. Its delegate belongs to the transport.
    public let urlSession: URLSession

    private let delegate: TransportDelegate

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - configuration: the configuration of the underlying `URLSession`.
    ///   - maximumResponseSize: the largest body read, in bytes (100 MiB by default); `nil`
    ///     for no limit. Bodies are held in memory, so keep this bounded.
    ///   - credentialHeaderNames: more header names that carry credentials (for example an
    ///     API key header), removed like `Authorization` on a redirect to another origin.
    ///   - serverTrust: which HTTPS servers are trusted; the platform's validation by default.
    ///     Pinned certificates are enforced on Apple platforms; on Linux every HTTPS request
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
        self.delegate = TransportDelegate(
            maximumResponseSize: maximumResponseSize, credentialHeaderNames: names, serverTrust: serverTrust)
        self.urlSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        urlSession.finishTasksAndInvalidate()
    }

    /// Creates a task that sends `request` when resumed.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        if delegate.refusesHTTPS, TransportDelegate.isHTTPS(request.url) {
            return RefusedTask(
                error: LinuxURLSessionQuirks.pinningUnsupportedError(url: request.url),
                completionHandler: completionHandler)
        }
        let task = urlSession.dataTask(with: request)
        return TransportTask(
            task: task, timeout: LinuxURLSessionQuirks.apply ? request.timeoutInterval : nil, delegate: delegate,
            completionHandler: completionHandler)
    }
}

/// One task of a ``URLSessionTransport``.
private final class TransportTask: NetworkSessionTask {
    let task: URLSessionDataTask
    let timeout: TimeInterval?
    let delegate: TransportDelegate
    let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    init(
        task: URLSessionDataTask, timeout: TimeInterval?, delegate: TransportDelegate,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        self.task = task
        self.timeout = timeout
        self.delegate = delegate
        self.completionHandler = completionHandler
    }

    func resume() {
        delegate.register(task, timeout: timeout, completionHandler: completionHandler)
        task.resume()
    }

    func cancel() {
        task.cancel()
    }
}

/// A task that is never sent: it fails with `error` when resumed, or reports cancellation if
/// cancelled first; either way once.
private final class RefusedTask: NetworkSessionTask {
    let error: URLError
    /// The completion handler until the outcome is reported, then `nil`.
    let completionHandler: LockedState<(@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?>

    init(error: URLError, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) {
        self.error = error
        self.completionHandler = LockedState(completionHandler)
    }

    func resume() { report(error) }

    func cancel() { report(URLError(.cancelled)) }

    private func report(_ error: URLError) {
        let handler = completionHandler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        handler?(nil, nil, error)
    }
}

/// The delegate of a transport's `URLSession`: collects each task's body and reports its
/// outcome once.
private final class TransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable is safe: the only mutable state, `tasks`, is a LockedState.

    private struct Record {
        let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        var body = Data()
        var deadline: Deadline?
        var declinedChallenge = false
        var exceededLimit = false
        /// The server's certificate did not lead to a pinned one (Apple platforms).
        var rejectedServerTrust = false
    }

    private let maximumResponseSize: Int?
    private let credentialHeaderNames: Set<String>
    private let serverTrust: ServerTrustPolicy
    /// The tasks in flight, by task identifier.
    private let tasks = LockedState([Int: Record]())

    /// Whether HTTPS must be refused: certificates are pinned where pinning cannot be enforced.
    let refusesHTTPS: Bool

    init(maximumResponseSize: Int?, credentialHeaderNames: Set<String>, serverTrust: ServerTrustPolicy) {
        self.maximumResponseSize = maximumResponseSize
        self.credentialHeaderNames = credentialHeaderNames
        self.serverTrust = serverTrust
        self.refusesHTTPS = serverTrust.isPinned && LinuxURLSessionQuirks.pinningUnsupported
    }

    static func isHTTPS(_ url: URL?) -> Bool {
        guard let scheme = url?.scheme?.lowercased() else { return false }
        return scheme == "https" || scheme == "wss"
    }

    func register(
        _ task: URLSessionDataTask, timeout: TimeInterval?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        let identifier = task.taskIdentifier
        let deadline = timeout.map { seconds in
            ResponseDeadlines.shared.schedule(after: seconds) { [weak self] in
                self?.finish(identifier, data: nil, response: nil, error: URLError(.timedOut))
                task.cancel()
            }
        }
        tasks.withLock { $0[identifier] = Record(completionHandler: completionHandler, deadline: deadline) }
    }

    /// Reports the outcome of task `identifier` once; later calls for it do nothing.
    private func finish(_ identifier: Int, data: Data?, response: URLResponse?, error: (any Error)?) {
        guard let record = tasks.withLock({ $0.removeValue(forKey: identifier) }) else { return }
        record.deadline?.cancel()
        record.completionHandler(data, response, error)
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let identifier = dataTask.taskIdentifier
        let overLimit = tasks.withLock { tasks -> Bool in
            // Mutated in place, never copied out: a copy would make every append copy the body.
            guard let received = tasks[identifier]?.body.count, tasks[identifier]?.exceededLimit == false else {
                return false
            }
            if let limit = maximumResponseSize, received + data.count > limit {
                tasks[identifier]?.exceededLimit = true
                tasks[identifier]?.body = Data()
                return true
            }
            tasks[identifier]?.body.append(data)
            return false
        }
        if overLimit, let limit = maximumResponseSize {
            finish(identifier, data: nil, response: nil, error: NetworkError.responseTooLarge(limit: limit))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let record = tasks.withLock { $0[task.taskIdentifier] }
        guard let record else { return }
        if record.rejectedServerTrust {
            // Cancelling the challenge reports URLError.cancelled; say what really happened.
            finish(task.taskIdentifier, data: nil, response: nil, error: URLError(.serverCertificateUntrusted))
        } else if record.declinedChallenge, let response = task.response as? HTTPURLResponse {
            // The challenge was declined so that the 401 already received is delivered as it
            // is, as on Apple platforms, instead of a cancellation.
            finish(task.taskIdentifier, data: record.body, response: response, error: nil)
        } else if let error {
            finish(
                task.taskIdentifier, data: nil, response: task.response, error: LinuxURLSessionQuirks.normalized(error))
        } else {
            finish(task.taskIdentifier, data: record.body, response: task.response, error: nil)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        if refusesHTTPS, Self.isHTTPS(request.url) {
            // Fail closed: a redirect must not reach an HTTPS server unpinned either.
            finish(
                task.taskIdentifier, data: nil, response: nil,
                error: LinuxURLSessionQuirks.pinningUnsupportedError(url: request.url))
            completionHandler(nil)
            task.cancel()
            return
        }
        var redirected = request
        let from = task.originalRequest?.url.flatMap(Origin.init)
        let to = request.url.flatMap(Origin.init)
        if from == nil || from != to {
            for name in redirected.allHTTPHeaderFields?.keys.map({ $0 }) ?? []
            where credentialHeaderNames.contains(name.lowercased()) {
                redirected.setValue(nil, forHTTPHeaderField: name)
            }
        }
        completionHandler(redirected)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Security) && !canImport(FoundationNetworking)
            if serverTrust.isPinned,
                challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust
            {
                // No session-level challenge method: URLSession sends server trust here too.
                if let trust = challenge.protectionSpace.serverTrust,
                    serverTrust.accepts(trust, host: challenge.protectionSpace.host)
                {
                    completionHandler(.useCredential, URLCredential(trust: trust))
                } else {
                    tasks.withLock { $0[task.taskIdentifier]?.rejectedServerTrust = true }
                    completionHandler(.cancelAuthenticationChallenge, nil)
                }
                return
            }
        #endif
        #if canImport(FoundationNetworking)
            // Linux raises challenges only for HTTP authentication (no server trust here), and
            // its default handling with no credential never completes the task. Declining
            // ends it, and didCompleteWithError then delivers the 401 that already arrived.
            if challenge.proposedCredential == nil {
                tasks.withLock { $0[task.taskIdentifier]?.declinedChallenge = true }
                completionHandler(.cancelAuthenticationChallenge, nil)
                return
            }
        #endif
        completionHandler(.performDefaultHandling, nil)
    }
}
