import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The action of ``NetworkModuleAction/logging(redaction:headers:bodies:maxBodyLength:curl:sink:)``.
struct LoggingAction: NetworkModuleAction {
    /// Which header, query and body values are masked.
    let redaction: Redaction
    /// Whether headers are written.
    let headers: Bool
    /// Whether bodies are written.
    let bodies: Bool
    /// How many characters of a body are written; the rest is cut, with a note.
    let maxBodyLength: Int
    /// Whether each request is also written as a `curl` command.
    let curl: Bool
    private let sink: @Sendable (String) -> Void
    /// The last attempt written for each request in progress, so that `didFinish` can tell a
    /// request that ended without an answer to its latest attempt, with the bytes received by
    /// then, so that an attempt's size counts only its own.
    private let writtenAttempts = LockedState<[UUID: (attempt: Int, bytesReceived: Int)]>([:])

    /// How many requests the action keeps an entry for: none once every request has finished.
    var requestEntryCount: Int {
        writtenAttempts.withLock { $0.count }
    }

    /// Writes each entry to standard error, followed by a newline.
    static let standardError: @Sendable (String) -> Void = { entry in
        FileHandle.standardError.write(Data((entry + "\n").utf8))
    }

    /// Creates a logging action; ``NetworkModuleAction/logging(redaction:headers:bodies:maxBodyLength:curl:sink:)`` says what each parameter does.
    init(
        redaction: Redaction, headers: Bool, bodies: Bool, maxBodyLength: Int, curl: Bool,
        sink: @escaping @Sendable (String) -> Void
    ) {
        self.redaction = redaction
        self.headers = headers
        self.bodies = bodies
        self.maxBodyLength = maxBodyLength
        self.curl = curl
        self.sink = sink
    }

    /// Writes the attempt: request, then response or error.
    func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        guard let request = context.sentRequest else { return }
        let receivedBefore = writtenAttempts.withLock { attempts in
            defer { attempts[context.requestID] = (context.attempt, context.bytesReceived) }
            return attempts[context.requestID]?.bytesReceived ?? 0
        }
        var lines = requestLines(request, attempt: context.attempt)
        lines += responseLines(
            result, request: request, elapsed: context.elapsed,
            attemptBytes: max(0, context.bytesReceived - receivedBefore))
        if curl { lines.append(CurlCommand.make(for: request, redaction: redaction, bodyLimit: maxBodyLength)) }
        sink(lines.joined(separator: "\n"))
    }

    /// Writes a request whose latest attempt ended without an answer: cancelled, or failed
    /// before it was sent (by a token refresh that failed, say).
    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        let lastWritten = writtenAttempts.withLock { $0.removeValue(forKey: context.requestID)?.attempt }
        guard case .failure(let error) = result, error == .cancelled || lastWritten != context.attempt else { return }
        let method = context.sentRequest?.httpMethod ?? context.networkRequest?.method.rawValue ?? "GET"
        let target =
            context.sentRequest.map { redaction.loggable($0.url) }
            ?? context.networkRequest.map { redaction.loggable(URL(string: $0.path)) }
            ?? "(request)"
        let outcome = error == .cancelled ? "cancelled" : "not sent: \(redaction.loggable(error))"
        sink("✗ \(method) \(target) \(outcome) (\(Self.milliseconds(context.elapsed)))")
    }

    // MARK: - Formatting

    private func requestLines(_ request: URLRequest, attempt: Int) -> [String] {
        let method = request.httpMethod ?? "GET"
        var lines = ["→ \(method) \(redaction.loggable(request.url))\(attempt > 1 ? " (attempt \(attempt))" : "")"]
        if headers { lines += redaction.loggableHeaders(of: request).map { "  \($0.name): \($0.value)" } }
        if bodies,
            let body = request.httpBody.flatMap({
                BodyFormatter.format(
                    $0, contentType: request.value(forHTTPHeaderField: "Content-Type"), limit: maxBodyLength,
                    redaction: redaction)
            })
        {
            lines += indented(body)
        } else if bodies, let note = BodyFormatter.streamNote(for: request) {
            lines += indented(note)
        }
        return lines
    }

    /// The response's lines. Its size is the body's, or `attemptBytes` when more: the bytes the
    /// attempt wrote to a download's file or handed to a stream, which are not in the body.
    private func responseLines(
        _ result: Result<NetworkResponse, NetworkError>, request: URLRequest, elapsed: TimeInterval,
        attemptBytes: Int
    ) -> [String] {
        let method = request.httpMethod ?? "GET"
        let url = redaction.loggable(request.url)
        let time = Self.milliseconds(elapsed)
        let status: String
        let responseHeaders: HTTPHeaders
        let body: Data
        switch result {
        case .success(let response):
            (status, responseHeaders, body) = ("\(response.statusCode)", response.headers, response.data)
        case .failure(let error):
            guard let response = error.httpErrorResponse else {
                return ["← ✗ \(method) \(url) \(redaction.loggable(error)) (\(time))"]
            }
            (status, responseHeaders, body) = ("\(response.statusCode)", response.headers, response.body)
        }
        var lines = ["← \(status) \(method) \(url) (\(time), \(max(body.count, attemptBytes)) bytes)"]
        if headers { lines += redaction.loggableHeaders(responseHeaders).map { "  \($0.name): \($0.value)" } }
        if bodies,
            let text = BodyFormatter.format(
                body, contentType: responseHeaders["Content-Type"], limit: maxBodyLength, redaction: redaction)
        {
            lines += indented(text)
        }
        return lines
    }

    private func indented(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  \($0)" }
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        "\(Int((seconds * 1000).rounded())) ms"
    }
}

extension NetworkModuleAction where Self == BuiltInAction {
    /// Writes each attempt down, readably: the request, the response's status, time and size,
    /// headers and bodies (JSON pretty-printed, cut at a set length), and optionally the request
    /// as a `curl` command. Secrets are masked.
    ///
    /// ```swift
    /// let toStandardError: any NetworkModuleAction = .logging()
    /// let toLogger: any NetworkModuleAction = .logging(curl: true, sink: { logger.debug("\($0)") })
    /// ```
    ///
    /// One entry per attempt that was sent, written when its outcome is known (so it shows the
    /// request exactly as it was sent, after every action prepared it):
    ///
    /// ```text
    /// → GET https://api.example.com/v2/me?token=REDACTED
    ///   Authorization: REDACTED
    /// ← 200 GET https://api.example.com/v2/me (34 ms, 27 bytes)
    ///   Content-Type: application/json
    ///   {
    ///     "name" : "Ada"
    ///   }
    /// ```
    ///
    /// A request whose latest attempt ends without an answer (cancelled, or failed by an action
    /// before it was sent) gets one `✗` line. The times are seconds since `perform` was called.
    ///
    /// **Redaction.** What `redaction` masks (``Redaction`` lists what ``Redaction/default`` does)
    /// is masked everywhere, the `curl` command included. Bodies that are neither JSON nor forms
    /// are written as they are: turn `bodies` off for APIs that put secrets in them, or add their
    /// field names to the redaction.
    ///
    /// - Parameters:
    ///   - redaction: the header and field names whose values are masked; ``Redaction/default``
    ///     masks credential headers and the documented secret fields.
    ///   - headers: whether headers are written.
    ///   - bodies: whether bodies are written.
    ///   - maxBodyLength: how many characters of a body are written.
    ///   - curl: whether each request is also written as a `curl` command.
    ///   - sink: receives each entry (several lines, without a final newline), on the thread
    ///     the hook runs on; standard error when `nil`.
    public static func logging(
        redaction: Redaction = .default, headers: Bool = true, bodies: Bool = true, maxBodyLength: Int = 2048,
        curl: Bool = false, sink: (@Sendable (String) -> Void)? = nil
    ) -> BuiltInAction {
        BuiltInAction(
            LoggingAction(
                redaction: redaction, headers: headers, bodies: bodies, maxBodyLength: maxBodyLength, curl: curl,
                sink: sink ?? LoggingAction.standardError))
    }
}
