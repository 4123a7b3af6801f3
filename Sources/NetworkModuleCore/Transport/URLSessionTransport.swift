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
///   the header of every ``AuthenticationAction`` (whatever its name) and the
///   ``credentialHeaderNames`` are removed from the redirected request, after any
///   ``RedirectPolicy`` has chosen it, so that no policy can put them back. (Linux's
///   `URLSession` forwards them.)
/// - **Every ``RedirectPolicy``**: follow, refuse (the `3xx` is delivered), or decide per hop.
/// - **A bound on response size.** A body larger than ``maximumResponseSize`` (decoded bytes
///   counted) is not read to the end: the request fails with
///   ``NetworkError/responseTooLarge(limit:)`` and its task is cancelled, before any of the body
///   is read when its `Content-Length` (with no content coding) already says so. Memory stays within
///   about twice the limit: on Linux, where `URLSession` queues every chunk for the delegate
///   without waiting, the transport's delegate queue makes libcurl wait while the delegate lags.
/// - **Downloads stream to disk, with progress** (``transferTask(with:transfer:completionHandler:)``):
///   a download's body goes to its file chunk by chunk, never whole in memory, and progress is
///   reported as the bytes move, both ways.
/// - **The request's timeout means the same everywhere**: an idle timeout, as Apple's
///   `URLSession` defines `timeoutInterval`. The request fails with `URLError.timedOut` when
///   no bytes arrive for that long; a slow download that keeps receiving bytes is not cut
///   off. (Linux's `URLSession` would enforce it as a deadline for the whole response.) On
///   Linux a timeout that is zero, negative or NaN means the default 60 seconds, an infinite
///   one none, and no response may take longer than 7 days; see ``dataTask(with:completionHandler:)``.
/// - **Cancelling is safe at any moment on Linux.** swift-corelibs-foundation can trap when a
///   task is cancelled just as it completes, on a session with a `URLCache`, so on Linux the
///   transport's session has none (`urlSession.configuration.urlCache` is `nil`; use
///   ``CachedSession`` for caching). A task cancelled before it is resumed never reaches
///   `URLSession` at all.
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
    /// `Authorization`, `Proxy-Authorization`, `Cookie`, the other credential headers
    /// ``Redaction/default`` masks, and the authentication actions' headers.
    public let credentialHeaderNames: Set<String>

    /// The largest body read, in bytes; `nil` for no limit.
    public let maximumResponseSize: Int?

    /// Which HTTPS servers are trusted: the platform's validation (``ServerTrustPolicy/system``)
    /// or pinned certificates.
    public let serverTrust: ServerTrustPolicy

    /// The `URLSession` requests are sent on. Its delegate belongs to the transport.
    public let urlSession: URLSession

    fileprivate let delegate: TransportDelegate

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - configuration: the configuration of the underlying `URLSession`.
    ///   - maximumResponseSize: the largest body read, in bytes (100 MiB by default); `nil`
    ///     for no limit. Bodies are held in memory, so keep this bounded; a download's body is
    ///     streamed to its file instead, and still bounded by this (raise it for large files).
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

    /// Creates a task that sends `request` when resumed.
    ///
    /// The `URLSessionDataTask` is created by `resume()`, so a task cancelled first never
    /// reaches `URLSession`. Every resumed or cancelled task calls `completionHandler` exactly
    /// once: with the response, with `URLError.timedOut` at the request's timeout, or with
    /// `URLError.cancelled` at once when cancelled.
    ///
    /// `request.timeoutInterval` is an idle timeout on every platform (the longest wait for
    /// the next bytes). On Linux, where the transport enforces it, every value has a
    /// meaning: positive and finite, that many seconds; zero, negative or NaN, the default
    /// 60 seconds (`URLRequest`'s default); infinite, or longer than about 146 years, no idle
    /// timeout. There, no response may take longer than 7 days in all (Apple's default
    /// `timeoutIntervalForResource`). On Apple platforms the request goes to `URLSession` as
    /// it is.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        dataTask(with: request, redirectPolicy: .follow, completionHandler: completionHandler)
    }

    /// Creates a task that sends `request` when resumed and treats redirects as
    /// `redirectPolicy` says; otherwise as ``dataTask(with:completionHandler:)``.
    ///
    /// At each redirect the delegate hands the policy the request `URLSession` would send next,
    /// without credentials if it leads to another origin, then removes the credentials again
    /// from the request the policy returns, if that one goes to another origin: a policy can
    /// change the next request, or stop (the `3xx` response is then delivered with its body),
    /// but never send credentials across origins. On Linux a request the policy returns is
    /// still refused when it would reach HTTPS under pinned certificates, and a `307` or `308`
    /// of a request with a body still fails (see ``URLSessionTransport``).
    public func dataTask(
        with request: URLRequest, redirectPolicy: RedirectPolicy,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        transferTask(
            with: request, transfer: SessionTransfer(redirectPolicy: redirectPolicy),
            completionHandler: completionHandler)
    }

    /// Creates a task that sends `request` when resumed, with the transfer's redirect policy, its
    /// body streamed where the transfer says and its progress reported as the bytes move;
    /// otherwise as ``dataTask(with:redirectPolicy:completionHandler:)``.
    ///
    /// - **To a file**: a `2xx` body is written to the file as each chunk arrives, never held in
    ///   memory, and the completion handler gets no data. The file is opened when the response
    ///   head arrives (an empty body still creates it), keeping the bytes a `206` continues as
    ///   ``SessionTransfer/Destination/file(_:resumingAt:)`` says; other statuses are collected
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
    /// - **To a sink** (``SessionTransfer/Destination/chunks(_:)``): each chunk of a `2xx` body
    ///   goes to the sink as it arrives, never collected, counted against ``maximumResponseSize``
    ///   as any body. On Apple platforms reading pauses while the sink is full (the task is
    ///   suspended; a paused body is not idle for the request's timeout). On Linux it cannot:
    ///   swift-corelibs-foundation has no way to pause a transfer (a suspended task goes on reading), so the
    ///   sink takes what arrives, up to ``maximumResponseSize``, and a stream that must outlast it
    ///   needs a larger limit or none.
    public func transferTask(
        with request: URLRequest, transfer: SessionTransfer,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        if delegate.refusesHTTPS, TransportDelegate.isHTTPS(request.url) {
            return UnsentTask(
                error: LinuxURLSessionQuirks.pinningUnsupportedError(url: request.url),
                completionHandler: completionHandler)
        }
        return TransportTask(
            request: request, transfer: transfer, transport: self, completionHandler: completionHandler)
    }

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

/// One task of a ``URLSessionTransport``: creates its `URLSessionDataTask` when resumed, and
/// reports through the delegate's record, once.
private final class TransportTask: NetworkSessionTask {
    private typealias CompletionHandler = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    private enum Phase {
        /// Not resumed; holds the completion handler.
        case created(CompletionHandler)
        /// `resume()` is creating and registering the `URLSessionDataTask`.
        case starting
        /// Registered with the delegate, which holds the completion handler now.
        case running(URLSessionDataTask)
        /// Cancelled, or resumed and then cancelled.
        case finished
    }

    private let request: URLRequest
    private let transfer: SessionTransfer
    /// Held until the task is released: the task creates its `URLSessionDataTask` in
    /// `resume()`, and a released transport invalidates its `URLSession`, in which no task
    /// may be created any more.
    private let transport: URLSessionTransport
    private var delegate: TransportDelegate { transport.delegate }
    private let phase: LockedState<Phase>

    init(
        request: URLRequest, transfer: SessionTransfer, transport: URLSessionTransport,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        self.request = request
        self.transfer = transfer
        self.transport = transport
        self.phase = LockedState(.created(completionHandler))
    }

    func resume() {
        let handler = phase.withLock { phase -> CompletionHandler? in
            guard case .created(let handler) = phase else { return nil }
            phase = .starting
            return handler
        }
        guard let handler else { return }
        var outgoing = request
        if let url = request.url, let scheme = url.scheme, scheme != scheme.lowercased(),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        {
            // Schemes are case-insensitive (RFC 3986 §3.1); Linux's URLSession refuses `HTTP://`.
            components.scheme = scheme.lowercased()
            outgoing.url = components.url ?? url
        }
        if LinuxURLSessionQuirks.apply {
            // The delegate enforces the timeout as an idle timeout; Linux's own timer would
            // end the whole response at it (and trap on NaN or huge values).
            outgoing.timeoutInterval = LinuxURLSessionQuirks.outgoingTimeout(
                for: request.timeoutInterval, idleTimeoutEnforced: true)
        }
        let task = LinuxURLSessionQuirks.task(in: transport.urlSession, for: outgoing)
        // Registered before the deadline is set and before the task runs, so that neither a
        // deadline that expires at once nor an early answer finds no record.
        delegate.register(
            task, url: request.url, timeout: LinuxURLSessionQuirks.apply ? request.timeoutInterval : nil,
            redirectPolicy: transfer.redirectPolicy, transfer: TransportTransfer(transfer, request: request),
            completionHandler: handler)
        let isRunning = phase.withLock { phase -> Bool in
            guard case .starting = phase else { return false }
            phase = .running(task)
            return true
        }
        if isRunning {
            task.resume()
        } else {
            // Cancelled while starting: report it, and cancel the task before it ever runs,
            // which is safe and takes it out of the session.
            delegate.finish(task.taskIdentifier, data: nil, response: nil, error: URLError.cancelled(request))
            URLSessionTransport.cancelWithoutWaiting(task)
        }
    }

    func cancel() {
        enum Step {
            case none
            case report(CompletionHandler)
            case cancel(URLSessionDataTask)
        }
        let step = phase.withLock { phase -> Step in
            defer { phase = .finished }
            switch phase {
            case .created(let handler): return .report(handler)
            case .running(let task): return .cancel(task)
            case .starting, .finished: return .none  // resume() reports a cancel while starting
            }
        }
        switch step {
        case .none:
            return
        case .report(let handler):
            handler(nil, nil, URLError.cancelled(request))
        case .cancel(let task):
            // Reported at once, whatever URLSession does next; its own report is then dropped.
            delegate.finish(task.taskIdentifier, data: nil, response: nil, error: URLError.cancelled(request))
            URLSessionTransport.cancelWithoutWaiting(task)
        }
    }
}

/// The delegate of a transport's `URLSession`: collects each task's body (or hands it to the
/// task's ``TransportTransfer``, which writes it to a file) and reports its outcome once.
private final class TransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable is safe: the only mutable state, `tasks`, is a LockedState.

    private struct Record {
        let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        let redirectPolicy: RedirectPolicy
        /// The transfer's progress and file; `nil` for a plain data task.
        let transfer: TransportTransfer?
        /// Redirects met so far.
        var hops = 0
        /// The body, unless it goes to the transfer's file.
        var body = Data()
        /// The body's bytes received so far, in memory or in the file: the size limit and the
        /// framing check count these.
        var receivedBytes = 0
        /// The body goes to the transfer's file, not to `body`.
        var streamsToFile = false
        var deadline: Deadline?
        /// When bytes last arrived or were sent, in uptime nanoseconds: the idle timeout counts
        /// from here (``ResponseDeadlines`` asks when the deadline comes due).
        var lastActivity: UInt64?
        var declinedChallenge = false
        var exceededLimit = false
        /// The server's certificate did not lead to a pinned one (Apple platforms).
        var rejectedServerTrust = false
        /// Where a 2xx body goes, chunk by chunk; `nil` to collect it.
        var sink: SessionTransfer.ChunkSink?
        /// Pauses the body while the sink is full; with `sink`.
        var pause: StreamPause?
        /// The response whose body goes to `sink`: set when a 2xx head arrives.
        var streamedResponse: HTTPURLResponse?

        /// When the task was last active: now, while its stream is paused (its consumer, not
        /// the server, is slow).
        var activity: UInt64? {
            pause?.isPaused == true ? DispatchTime.now().uptimeNanoseconds : lastActivity
        }
    }

    /// What a chunk of a body did to its task's record.
    private enum ChunkOutcome {
        case appended
        /// Counted, and for the transfer to write or report: the body's bytes so far with it.
        case transferred(TransportTransfer, receivedBytes: Int)
        /// Counted, and for the sink to take: a 2xx body of a stream.
        case streamed(SessionTransfer.ChunkSink, HTTPURLResponse, StreamPause?)
        /// The body would pass the size limit: the task fails.
        case overLimit
        /// The first chunk: the body's room must be read from the response first.
        case needsCapacity

        var needsCapacity: Bool {
            if case .needsCapacity = self { return true }
            return false
        }
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

    /// Stores the record of `task`, then gives it an idle deadline at `timeout` (Linux; `nil`
    /// for none). In that order: a deadline that expires at once must find the record.
    func register(
        _ task: URLSessionDataTask, url: URL?, timeout: TimeInterval?, redirectPolicy: RedirectPolicy,
        transfer: TransportTransfer?, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        let identifier = task.taskIdentifier
        var record = Record(completionHandler: completionHandler, redirectPolicy: redirectPolicy, transfer: transfer)
        if case .chunks(let sink)? = transfer?.destination {
            record.sink = sink
            record.pause = StreamPause(task: task)
        }
        tasks.withLock { $0[identifier] = record }
        guard let timeout else { return }
        let deadline = ResponseDeadlines.shared.schedule(
            after: timeout,
            lastActivity: { [weak self] in self?.tasks.withLock { $0[identifier]?.activity } },
            onExpiry: { [weak self] in
                self?.finish(identifier, data: nil, response: nil, error: URLError.timedOut(url))
                URLSessionTransport.cancelWithoutWaiting(task)
            })
        let isPending = tasks.withLock { tasks -> Bool in
            guard tasks[identifier] != nil else { return false }
            tasks[identifier]?.deadline = deadline
            return true
        }
        if !isPending { deadline.cancel() }
    }

    /// Reports the outcome of task `identifier` once; later calls for it do nothing. The
    /// handler runs on ``CompletionHandlerQueue``, not on the session's serial delegate queue,
    /// after the transfer's file is closed: the module may remove it or resume it from there.
    func finish(_ identifier: Int, data: Data?, response: URLResponse?, error: (any Error)?) {
        guard let record = tasks.withLock({ $0.removeValue(forKey: identifier) }) else { return }
        record.deadline?.cancel()
        record.pause?.end()
        record.transfer?.close()
        CompletionHandlerQueue.call(record.completionHandler, data: data, response: response, error: error)
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // A body declared larger than the limit fails before any of it is read. (Linux ignores
        // the disposition: the task is cancelled as well.)
        let identifier = dataTask.taskIdentifier
        if let limit = maximumResponseSize, let response = response as? HTTPURLResponse,
            let declared = ResponseFraming.declaredBodyLength(
                of: response, method: dataTask.currentRequest?.httpMethod),
            declared > limit
        {
            finish(identifier, data: nil, response: nil, error: NetworkError.responseTooLarge(limit: limit))
            completionHandler(.cancel)
            URLSessionTransport.cancelWithoutWaiting(dataTask)
            return
        }
        if let response = response as? HTTPURLResponse,
            let transfer = tasks.withLock({ tasks in
                tasks.modifyValue(forKey: identifier) { record -> TransportTransfer? in
                    // A 2xx body of a stream goes to its sink; any other is collected, to be read.
                    if record.sink != nil, (200..<300).contains(response.statusCode) {
                        record.streamedResponse = response
                    }
                    return record.transfer
                } ?? nil
            })
        {
            // The file is opened (or the open refused, once the task has finished) outside the
            // tasks' lock; chunks come after this method returns.
            do throws(URLError) {
                if try transfer.responseArrived(response, method: dataTask.currentRequest?.httpMethod) {
                    tasks.withLock { _ = $0.modifyValue(forKey: identifier) { $0.streamsToFile = true } }
                }
            } catch {
                finish(identifier, data: nil, response: nil, error: error)
                completionHandler(.cancel)
                URLSessionTransport.cancelWithoutWaiting(dataTask)
                return
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Called for every chunk of every body (about 16 KB each on Linux): one look-up, one
        // lock, the body appended in place, and the time stored for the idle timeout.
        let identifier = dataTask.taskIdentifier
        let now = DispatchTime.now().uptimeNanoseconds
        // The room for the body is read from the response on its first chunk, outside the lock
        // (a Foundation getter); chunks of one task arrive one at a time, so the second pass
        // still finds the body empty.
        var capacity: Int?
        var outcome = ChunkOutcome.appended
        repeat {
            outcome = tasks.withLock { tasks -> ChunkOutcome in
                tasks.modifyValue(forKey: identifier) { record -> ChunkOutcome in
                    guard !record.exceededLimit else { return .appended }
                    let received = record.receivedBytes + data.count
                    if let limit = maximumResponseSize, received > limit {
                        record.exceededLimit = true
                        record.body = Data()
                        return .overLimit
                    }
                    if let sink = record.sink, let response = record.streamedResponse {
                        record.lastActivity = now
                        record.receivedBytes = received
                        return .streamed(sink, response, record.pause)
                    }
                    if !record.streamsToFile {
                        if record.body.isEmpty, !data.isEmpty {
                            guard let capacity else { return .needsCapacity }
                            record.body.reserveCapacity(capacity)
                        }
                        record.body.append(data)
                    }
                    record.lastActivity = now
                    record.receivedBytes = received
                    guard let transfer = record.transfer else { return .appended }
                    return .transferred(transfer, receivedBytes: received)
                } ?? .appended
            }
            if case .needsCapacity = outcome {
                capacity = URLSessionTransport.initialBodyCapacity(for: dataTask.response, limit: maximumResponseSize)
            }
        } while outcome.needsCapacity
        switch outcome {
        case .appended, .needsCapacity:
            return
        case .transferred(let transfer, let received):
            // Written outside the tasks' lock: a slow disk holds up this task only.
            do throws(URLError) {
                try transfer.bodyReceived(data, totalReceived: received)
            } catch {
                finish(identifier, data: nil, response: nil, error: error)
                URLSessionTransport.cancelWithoutWaiting(dataTask)
            }
        case .streamed(let sink, let response, let pause):
            // The sink is the module's: called outside the lock.
            if !sink.receive(data, of: response, onRoom: { pause?.resume() }) { pause?.pause() }
        case .overLimit:
            if let limit = maximumResponseSize {
                finish(identifier, data: nil, response: nil, error: NetworkError.responseTooLarge(limit: limit))
                URLSessionTransport.cancelWithoutWaiting(dataTask)
            }
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        // Bytes sent count as activity too, as for Apple's idle timeout: a slow upload is not cut off.
        let now = DispatchTime.now().uptimeNanoseconds
        let transfer = tasks.withLock { tasks in
            tasks.modifyValue(forKey: task.taskIdentifier) { record -> TransportTransfer? in
                record.lastActivity = now
                return record.transfer
            }
        }
        transfer??.bodySent(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    /// `URLSession` needs the body again (a 307 or 308 redirect, an authentication challenge)
    /// and the stream it had is consumed: a fresh stream of the same body when the request
    /// builder made it (``RequestBody/file(_:contentType:)``, ``RequestBody/stream(length:contentType:_:)``,
    /// a large multipart form); `nil` otherwise, which fails the task with
    /// `URLError.requestBodyStreamExhausted` rather than send an empty or partial body.
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(task.originalRequest?.httpBodyStream.flatMap(BodyStreams.freshStream(replacing:)))
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
        } else if let response = task.response as? HTTPURLResponse,
            let code = ResponseFraming.failure(
                of: response, method: task.currentRequest?.httpMethod, receivedBytes: record.receivedBytes)
        {
            // Invalid or conflicting framing, or a short body: never a success (RFC 9112 §6.3).
            // The response goes with the error: a download cut short resumes from its validator.
            finish(
                task.taskIdentifier, data: nil, response: response, error: Self.framingError(code, response: response))
        } else {
            finish(
                task.taskIdentifier, data: record.streamsToFile ? nil : record.body, response: task.response, error: nil
            )
        }
    }

    private static func framingError(_ code: URLError.Code, response: HTTPURLResponse) -> URLError {
        let declared = response.value(forHTTPHeaderField: "Content-Length") ?? ""
        let message =
            code == .networkConnectionLost
            ? "The server closed the connection before the whole body arrived (Content-Length: \(declared))."
            : "The server sent an invalid Content-Length (\(declared)); the response cannot be framed."
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url = response.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(code, userInfo: userInfo)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The policy sees the next request without credentials if it leaves the origin, and
        // whatever it returns loses them again: no policy can send them to another origin.
        let original = task.originalRequest?.url
        let proposed = CredentialHeaders.strippedForRedirect(request, from: original, extraNames: credentialHeaderNames)
        let hop = tasks.withLock { tasks -> (policy: RedirectPolicy, number: Int)? in
            tasks.modifyValue(forKey: task.taskIdentifier) { record in
                record.hops += 1
                return (record.redirectPolicy, record.hops)
            }
        }
        // A task with no record was finished already (cancelled, timed out): follow nothing.
        guard let hop else {
            completionHandler(nil)
            return
        }
        // The policy is the caller's code: it runs outside the lock.
        guard
            let chosen = hop.policy.nextRequest(
                for: RedirectHop(response: response, request: proposed, number: hop.number))
        else {
            // Refused: URLSession completes the task with the redirect response and its body.
            completionHandler(nil)
            return
        }
        let redirected = CredentialHeaders.strippedForRedirect(
            chosen, from: original, extraNames: credentialHeaderNames)
        if refusesHTTPS, Self.isHTTPS(redirected.url) {
            // Fail closed: a redirect must not reach an HTTPS server unpinned either.
            finish(
                task.taskIdentifier, data: nil, response: nil,
                error: LinuxURLSessionQuirks.pinningUnsupportedError(url: redirected.url))
            completionHandler(nil)
            URLSessionTransport.cancelWithoutWaiting(task)
            return
        }
        if LinuxURLSessionQuirks.apply, response.statusCode == 307 || response.statusCode == 308,
            LinuxURLSessionQuirks.sendsBody(task)
        {
            // 307 and 308 must send the method and the body again (RFC 9110 §15.4.8, §15.4.9).
            // Linux's URLSession keeps the method but sends no body, whatever the redirected
            // request holds: fail, clearly, rather than let the server see an empty body and
            // the caller a success. (Apple's URLSession sends the body again.)
            finish(
                task.taskIdentifier, data: nil, response: nil,
                error: Self.bodyNotResentError(url: redirected.url, status: response.statusCode))
            completionHandler(nil)
            URLSessionTransport.cancelWithoutWaiting(task)
            return
        }
        completionHandler(redirected)
    }

    /// The error of a request with a body redirected with 307 or 308 on Linux, where
    /// `URLSession` would follow it without the body.
    private static func bodyNotResentError(url: URL?, status: Int) -> URLError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey:
                "The server redirected the request with \(status), whose target "
                + "must receive the body again, and URLSession on this platform (swift-corelibs-foundation) would "
                + "send it there without its body; the redirect was not followed. Send the request to the new URL, "
                + "or have the server answer without a redirect."
        ]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.requestBodyStreamExhausted, userInfo: userInfo)
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
            // The handler is called from a background queue: on Linux it cancels, suspends or
            // resumes the task, each waiting for the session's work queue (workQueue.sync),
            // which may be waiting for room on this delegate queue (BoundedDelegateQueue).
            let disposition: URLSession.AuthChallengeDisposition
            if challenge.proposedCredential == nil {
                tasks.withLock { $0[task.taskIdentifier]?.declinedChallenge = true }
                disposition = .cancelAuthenticationChallenge
            } else {
                disposition = .performDefaultHandling
            }
            DispatchQueue.global().async { completionHandler(disposition, nil) }
        #else
            completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

extension Dictionary {
    /// Runs `body` on the value for `key` in place, with one look-up; `nil` if there is none.
    /// A value changed through `self[key]?` costs a look-up per access, and one copied out and
    /// stored back copies whatever it holds on the next write.
    fileprivate mutating func modifyValue<Result>(forKey key: Key, _ body: (inout Value) -> Result) -> Result? {
        guard let index = index(forKey: key) else { return nil }
        return body(&values[index])
    }
}
