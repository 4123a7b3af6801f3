import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One task of a ``URLSessionTransport``, from its creation to its one report: the only holder of
/// its state (``TransportTask`` keeps just its key). A value in the delegate's
/// ``TransportTaskTable``, changed under its lock through the methods below, each returning what
/// the delegate must do outside the lock; whoever takes it out of the table reports, once.
struct TransportTaskRecord {
    /// Whether the task runs, and in which `URLSessionDataTask` (on Linux, after a 307 or 308,
    /// the one that sent the request again). Finished is no phase: out of the table.
    enum Phase {
        case created, resumed
        case running(URLSessionDataTask)
    }

    /// Where the body's bytes go.
    enum Destination: Equatable {
        /// Collected in ``collected``, to be reported with the response.
        case memory
        /// Written to the transfer's file, which was opened for this response.
        case file
        /// Handed to the stream's sink chunk by chunk: the 2xx response whose body it is.
        case stream(HTTPURLResponse)
        /// Past the size limit: the task has failed, and later bytes are dropped.
        case discarded
    }

    /// Why the task fails, whatever `URLSession` reports when it ends: the challenge decision's.
    typealias Refusal = ServerTrustDecision.Refusal

    /// What a response head asks of the delegate.
    enum HeadOutcome {
        /// Go on: the transfer, if any, to open its file or count its progress from the head.
        case proceed(TransportTaskOptions?)
        /// A head came again after `streamedBytes` bytes of the body went to the sink or the
        /// file: the task fails (retryable) rather than hand those bytes on twice.
        case restartRefused(streamedBytes: Int)
    }

    /// What a chunk of the body asks of the delegate.
    enum ChunkOutcome {
        /// Collected in memory; nothing to do.
        case collected
        /// Dropped: the task has failed already.
        case dropped
        /// Counted, and for the transfer to write or report: the body's bytes so far with it.
        case transferred(TransportTaskOptions, receivedBytes: Int)
        /// Counted, and for the sink to take: a 2xx body of a stream.
        case streamed(TransferOptions.ChunkSink, HTTPURLResponse, StreamPause?)
        /// The body passed the size limit: the task fails with ``NetworkError/responseTooLarge(limit:)``.
        case overLimit(Int)
    }

    let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    /// Whether `completionHandler` may be called on the delegate queue (``TransferOptions/handlerIsShort``).
    let handlerIsShort: Bool
    private(set) var phase = Phase.created
    let redirectPolicy: RedirectPolicy
    private let timeout: TimeInterval?
    /// The transfer's progress and file; `nil` for a plain data task.
    let transfer: TransportTaskOptions?
    /// Where a 2xx body goes chunk by chunk; `nil` to collect it.
    let sink: TransferOptions.ChunkSink?
    /// Pauses the task while the sink is full; with `sink`, for the task running now.
    private(set) var pause: StreamPause?
    /// Makes a fresh stream of the request's body for `needNewBodyStream`: the source of the
    /// builder's stream, found from the request the framework holds, never from `URLSession`'s
    /// copy. `nil` for a body the builder did not make as a stream.
    private(set) var bodySource: BodyStreamSource?

    private(set) var destination = Destination.memory
    private(set) var refusal: Refusal?
    /// The final head of the response the body belongs to: the task's response when it ends,
    /// read here rather than from `URLSessionTask.response` (on Linux a queue hop and thousands of
    /// instructions). `nil` before any final head, after a 1xx, and again after a redirect.
    private(set) var head: HTTPURLResponse?
    /// The room to reserve for a body collected in memory, read from its head outside the lock
    /// (``URLSessionTransport/initialBodyCapacity(for:limit:)``).
    private var bodyCapacity = 0
    /// The body, while ``destination`` is ``Destination/memory``.
    private(set) var collected = Data()
    /// The body's bytes received so far, wherever they went: the size limit and the framing
    /// check count these.
    private(set) var receivedBytes = 0
    /// The request's redirects (``RedirectChain``): the record's, so they move with it to a
    /// task that sends the request again.
    private(set) var redirects: RedirectChain
    /// When bytes last arrived or were sent, in uptime nanoseconds: the idle timeout counts from
    /// here (``ResponseDeadlines`` asks when the deadline comes due).
    private(set) var lastActivity: UInt64?
    /// The idle deadline, once scheduled.
    var deadline: Deadline?

    init(
        request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void,
        handlerIsShort: Bool = false, redirectPolicy: RedirectPolicy, timeout: TimeInterval?,
        transfer: TransportTaskOptions?
    ) {
        self.redirects = RedirectChain(caller: request)
        self.completionHandler = completionHandler
        self.handlerIsShort = handlerIsShort
        self.redirectPolicy = redirectPolicy
        self.timeout = timeout
        self.transfer = transfer
        self.bodySource = request.httpBodyStream.flatMap(BodyStreams.source(of:))
        if case .chunks(let sink)? = transfer?.destination { self.sink = sink } else { self.sink = nil }
    }

    /// What the idle deadline of the running task needs: the timeout (Linux; `nil` for none),
    /// and the URL its error names.
    typealias Idle = (timeout: TimeInterval?, url: URL?)
    var idle: Idle { (timeout, redirects.caller.url) }

    /// When the task was last active: now, while its stream is paused (its consumer, not the
    /// server, is slow).
    func activity(now: UInt64) -> UInt64? {
        pause?.isPaused == true ? now : lastActivity
    }

    // MARK: Phases

    /// The caller resumed the task: the request to send, the first time only.
    mutating func resume() -> URLRequest? {
        guard case .created = phase else { return nil }
        phase = .resumed
        return redirects.caller
    }

    /// `task` was made to send the request: whether it may run (only once resumed). A stream's
    /// task gets its pause.
    mutating func started(in task: URLSessionDataTask) -> Bool {
        guard case .resumed = phase else { return false }
        phase = .running(task)
        if sink != nil { pause = StreamPause(control: .of(task)) }
        return true
    }

    /// Linux: the request is sent again in `replacement` (a 307 or 308), which takes the record
    /// over. No body has arrived yet, so its stream is not paused; the body's source goes with
    /// the record.
    /// - Returns: the old task's deadline, to cancel (the replacement gets one of its own).
    mutating func moved(to replacement: URLSessionDataTask) -> Deadline? {
        guard case .running = phase else { return nil }
        defer { deadline = nil }
        phase = .running(replacement)
        pause = pause?.replaced(by: .of(replacement))
        return deadline
    }

    // MARK: Events

    /// A response's head arrived: activity, and a 2xx head of a stream starts streaming.
    /// `capacity` is the room to reserve for its body if it is collected in memory.
    ///
    /// A head may come again in the same task (Apple's `URLSession` calls the delegate again, for
    /// a `multipart/x-mixed-replace` body or a response it restarts): the body starts over. What
    /// was collected in memory is dropped and the count starts from zero; bytes already handed to
    /// the sink or written to the file cannot be taken back, so the task fails instead of
    /// repeating them.
    mutating func headArrived(_ response: HTTPURLResponse, capacity: Int, at now: UInt64) -> HeadOutcome {
        lastActivity = now
        // Only a final head can be what the task ends with: Linux's URLSession hands on a 1xx
        // (103 Early Hints), then may end the task with a 3xx whose head it keeps back (one it
        // cannot follow, without a Location).
        head = response.statusCode >= 200 ? response : nil
        bodyCapacity = capacity
        switch destination {
        case .discarded:
            return .proceed(nil)
        case .stream, .file:
            if receivedBytes > 0 { return .restartRefused(streamedBytes: receivedBytes) }
        case .memory:
            break
        }
        receivedBytes = 0
        collected = Data()
        destination =
            sink != nil && AcceptableStatusCodes.successful.contains(response.statusCode) ? .stream(response) : .memory
        return .proceed(transfer)
    }

    /// The transfer opened its file for the response: the body goes there.
    mutating func fileOpened() {
        if destination == .memory { destination = .file }
    }

    /// A chunk of the body arrived.
    mutating func chunkArrived(_ data: Data, limit: Int?, at now: UInt64) -> ChunkOutcome {
        if destination == .discarded { return .dropped }
        let received = receivedBytes + data.count
        if let limit, received > limit {
            destination = .discarded
            collected = Data()
            return .overLimit(limit)
        }
        if destination == .memory {
            if !collected.isEmpty {
                collected.append(data)
            } else if bodyCapacity > data.count {
                collected.reserveCapacity(bodyCapacity)
                collected.append(data)
            } else {
                // The whole body, or all the head declared: kept as it came, not copied (unless it
                // is a slice: a body reported starts at index 0, as an appended one did).
                collected = data.startIndex == 0 ? data : Data(data)
            }
        }
        lastActivity = now
        receivedBytes = received
        if case .stream(let response) = destination, let sink { return .streamed(sink, response, pause) }
        guard let transfer else { return .collected }
        return .transferred(transfer, receivedBytes: received)
    }

    /// Bytes of the request's body were sent: activity too, as for Apple's idle timeout, so a
    /// slow upload is not cut off.
    /// - Returns: the transfer, to report the upload's progress.
    mutating func bodySent(at now: UInt64) -> TransportTaskOptions? {
        lastActivity = now
        return transfer
    }

    /// The server redirected: a redirect's head is activity, as any head, and the hop counts
    /// against the chain's limit.
    /// - Returns: the policy to ask, and the chain with this hop counted (its number, the
    ///   caller's origin, the request it answers, whether it is one too many).
    mutating func redirected(at now: UInt64) -> (policy: RedirectPolicy, redirects: RedirectChain) {
        lastActivity = now
        // The redirect's own response is the task's now, until another head arrives.
        head = nil
        redirects.redirected()
        return (redirectPolicy, redirects)
    }

    /// `request` was sent after the last redirect, for `proposal`: the next redirect answers it.
    mutating func followed(_ request: URLRequest, as proposal: RedirectChain.Proposal) {
        redirects.followed(request, as: proposal)
        // A policy that put another body of the builder's in the request: a later
        // `needNewBodyStream` (an authentication retry) sends that one. A stream the framework
        // does not know (`URLSession`'s own copy) leaves the source as it was.
        if let source = redirects.answered.httpBodyStream.flatMap(BodyStreams.source(of:)) {
            bodySource = source
        }
    }

    /// The task must fail for `refusal` whatever `URLSession` reports.
    mutating func refuse(_ refusal: Refusal) {
        self.refusal = refusal
    }

    // MARK: The end

    /// What to report when `URLSession` ends the task with `error` (or none) and `response`
    /// (the task's), having sent `sent` last (the task's current request). `refusals` are the
    /// origins whose server the transport refused: a task to one of them that `URLSession`
    /// cancels before any response shared the refused connection, and fails for the same reason.
    ///
    /// `response` and `sent` are read only when needed (on Linux each is a queue hop and a
    /// copy): a task that ends without an error reports its ``head``, and reads the request only
    /// when its body's framing may have failed.
    func report(
        error: (any Error)?, response taskResponse: @autoclosure () -> URLResponse?,
        sent: @autoclosure () -> URLRequest?, refusals: TrustRefusals = TrustRefusals()
    ) -> (data: Data?, response: URLResponse?, error: (any Error)?) {
        let response = error == nil ? head ?? taskResponse() : taskResponse()
        let http = response as? HTTPURLResponse
        var refusal = refusal
        if refusal == nil,
            refusals.explains(error: error, response: response, origin: TrustRefusals.origin(of: sent()?.url))
        {
            refusal = .untrustedServer
        }
        switch (refusal, http) {
        case (.untrustedServer?, _):
            return (nil, nil, ServerTrustDecision.reportedError(for: .untrustedServer, url: sent()?.url))
        case (.declinedChallenge?, let http?):
            return (collected, http, nil)
        default:
            break
        }
        if let error {
            return (nil, response, LinuxURLSessionQuirks.normalized(error, sentTo: sent()?.url))
        }
        if let http,
            let code = ResponseFraming.failure(of: http, method: sent()?.httpMethod, receivedBytes: receivedBytes)
        {
            // Invalid or conflicting framing, or a short body: never a success (RFC 9112 §6.3).
            // The response goes with the error: a download cut short resumes from its validator.
            return (nil, http, Self.framingError(code, response: http))
        }
        return (destination == .file ? nil : collected, response, nil)
    }

    /// The task has been reported, or taken over: what it held is let go. Outside the lock.
    func end() {
        deadline?.cancel()
        pause?.end()
        transfer?.close()
    }

    private static func framingError(_ code: URLError.Code, response: HTTPURLResponse) -> URLError {
        let declared = response.value(forHTTPHeaderField: "Content-Length") ?? ""
        let message =
            code == .networkConnectionLost
            ? "The server closed the connection before the whole body arrived (Content-Length: \(declared))."
            : "The server sent an invalid Content-Length (\(declared)); the response cannot be framed."
        return URLError(code, message: message, failingURL: response.url)
    }
}

/// The records of one transport's tasks: by the key each ``TransportTask`` holds, and, once one
/// runs, by the identifier of its `URLSessionTask` (how the delegate's callbacks find it). Taking
/// a record out is the one way a task finishes: whoever takes it reports, once.
struct TransportTaskTable {
    private var records: [Int: TransportTaskRecord] = [:]
    /// The key of the record each running `URLSessionTask` runs, by its identifier.
    private var keys: [Int: Int] = [:]
    private var lastKey = 0

    /// Adds `record`, created: returns its key.
    mutating func add(_ record: TransportTaskRecord) -> Int {
        lastKey &+= 1
        records[lastKey] = record
        return lastKey
    }

    /// The record `key` was resumed: the request to send, the first time only.
    mutating func resume(_ key: Int) -> URLRequest? {
        records.modifyValue(forKey: key) { $0.resume() } ?? nil
    }

    /// The record `key` is sent in `task`: what its idle deadline needs, or `nil` if it may not
    /// run (not resumed, or finished), and `task` must then be stopped.
    mutating func start(_ key: Int, in task: URLSessionDataTask) -> TransportTaskRecord.Idle? {
        let idle = records.modifyValue(forKey: key) { record in record.started(in: task) ? record.idle : nil } ?? nil
        if idle != nil { keys[task.taskIdentifier] = key }
        return idle
    }

    /// Linux: the request of the record `task` runs is sent again as `next` in `replacement`,
    /// which takes the record over (`task` finds none from now on). Returns what the new idle
    /// deadline needs and the old task's deadline, to cancel; `nil` if it finished meanwhile.
    mutating func move(
        from task: Int, to replacement: URLSessionDataTask, sending next: URLRequest,
        as proposal: RedirectChain.Proposal
    ) -> (idle: TransportTaskRecord.Idle, replaced: Deadline?)? {
        guard let key = keys.removeValue(forKey: task) else { return nil }
        keys[replacement.taskIdentifier] = key
        return records.modifyValue(forKey: key) { record in
            let replaced = record.moved(to: replacement)
            record.followed(next, as: proposal)
            return (record.idle, replaced)
        }
    }

    /// Runs `body` in place on the record `task` runs; `nil` if there is none.
    mutating func modify<Result>(task: Int, _ body: (inout TransportTaskRecord) -> Result) -> Result? {
        guard let key = keys[task] else { return nil }
        return records.modifyValue(forKey: key, body)
    }

    /// Takes out the record `key`, in any phase, to report: `nil` once finished.
    mutating func remove(key: Int) -> TransportTaskRecord? {
        guard let record = records.removeValue(forKey: key) else { return nil }
        if case .running(let task) = record.phase { keys[task.taskIdentifier] = nil }
        return record
    }

    /// Takes out the record `task` runs, to report: `nil` if there is none.
    mutating func remove(task: Int) -> TransportTaskRecord? {
        keys.removeValue(forKey: task).flatMap { records.removeValue(forKey: $0) }
    }

    /// Drops the record `key` if it was never resumed (its ``TransportTask`` was released): no
    /// one will resume or cancel it. A record that was resumed stays until it reports.
    mutating func discard(_ key: Int) {
        if case .created? = records[key]?.phase { records[key] = nil }
    }
}

extension Dictionary {
    /// Runs `body` on the value for `key` in place, with one look-up; `nil` if there is none
    /// (through `self[key]?` each access looks up again; a copy stored back copies the body).
    fileprivate mutating func modifyValue<Result>(forKey key: Key, _ body: (inout Value) -> Result) -> Result? {
        guard let index = index(forKey: key) else { return nil }
        return body(&values[index])
    }
}
