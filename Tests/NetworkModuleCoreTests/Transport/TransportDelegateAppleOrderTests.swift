import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport's delegate driven by hand, in the order Apple's `URLSession` documents: the
/// response, then the body, then a redirect, a request for the body anew or a challenge, then the
/// task's end. The tasks are real, never resumed: nothing is sent, and each callback comes when
/// the script says, on every platform. Every completion handler (the disposition's, the
/// redirect's, the body stream's, the challenge's, the task's own) counts its calls and fails on
/// a second.
@Suite("Transport delegate in Apple's order")
struct TransportDelegateAppleOrderTests {
    private static let url = URL(string: "http://127.0.0.1:9/apple-order")!

    /// Records each call of one completion handler; a second call is an issue.
    final class ExactlyOnce<Value>: Sendable {
        private let values = LockedState<[Value]>([])
        private let called = DispatchSemaphore(value: 0)
        private let name: String

        init(_ name: String) { self.name = name }

        func record(_ value: Value) {
            let count = values.withLock { values in
                values.append(value)
                return values.count
            }
            if count > 1 { Issue.record("\(name) was called \(count) times") }
            called.signal()
        }

        var calls: [Value] { values.withLock { $0 } }
        var value: Value? { calls.first }

        /// Waits up to 10 s for the first call: the task's handler runs on `CompletionHandlerQueue`,
        /// and Linux answers challenges from a background queue.
        func waited() async -> Value? {
            guard await called.signalled(within: 10) else {
                Issue.record("\(name) was never called")
                return nil
            }
            return value
        }
    }

    /// What the task's handler reported: sendable pieces of it.
    struct Report: Sendable {
        let data: Data?
        let status: Int?
        let errorCode: URLError.Code?
        let networkError: NetworkError?
        /// Whether the handler ran on the thread that completed the task (``Harness/completeMarked()``).
        let ranWhereCompleted: Bool
    }

    /// A transport, one of its unresumed tasks registered with the framework's `request`, and the
    /// task's handler.
    private struct Harness {
        let transport: URLSessionTransport
        let task: URLSessionDataTask
        /// The key of the task's record, as `TransportTask` holds it.
        let key: Int
        let done: ExactlyOnce<Report>

        var delegate: TransportDelegate { transport.delegate }
        var session: URLSession { transport.urlSession }

        init(
            transport: URLSessionTransport = URLSessionTransport(), request: URLRequest = URLRequest(url: url),
            task: URLSessionDataTask? = nil, redirectPolicy: RedirectPolicy = .follow,
            transfer: TransferOptions = TransferOptions()
        ) {
            self.transport = transport
            let task = task ?? transport.urlSession.dataTask(with: request)
            self.task = task
            let done = ExactlyOnce<Report>("the task's completion handler")
            self.done = done
            self.key = transport.delegate.register(
                task, request: request, redirectPolicy: redirectPolicy,
                transfer: TransportTaskOptions(transfer, request: request), handlerIsShort: transfer.handlerIsShort,
                completionHandler: { data, response, error in
                    done.record(
                        Report(
                            data: data, status: (response as? HTTPURLResponse)?.statusCode,
                            errorCode: (error as? URLError)?.code, networkError: error.map { NetworkError($0) },
                            ranWhereCompleted: Thread.current.threadDictionary[Self.completingKey] != nil))
                })
        }

        /// Marks the thread that runs ``completeMarked()``.
        private static let completingKey = "TransportDelegateAppleOrderTests.completing"

        /// ``complete(_:)``, on a thread marked so that the handler can tell whether it runs there.
        func completeMarked() {
            Thread.current.threadDictionary[Self.completingKey] = true
            complete()
            Thread.current.threadDictionary[Self.completingKey] = nil
        }

        /// The response head; what the disposition's handler got.
        @discardableResult
        func head(_ status: Int, headers: [String: String] = [:]) -> URLSession.ResponseDisposition? {
            let disposition = ExactlyOnce<URLSession.ResponseDisposition>("the response disposition")
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
            if let response {
                delegate.urlSession(session, dataTask: task, didReceive: response) { disposition.record($0) }
            }
            #expect(disposition.calls.count == 1, "the disposition is answered before the delegate returns")
            return disposition.value
        }

        func body(_ text: String) {
            delegate.urlSession(session, dataTask: task, didReceive: Data(text.utf8))
        }

        func complete(_ error: URLError? = nil) {
            delegate.urlSession(session, task: task, didCompleteWithError: error)
        }
    }

    private static func url(_ string: String) -> URL {
        URL(string: string) ?? url
    }

    // MARK: Scripts

    @Test("when a plain 200 comes, should allow it and report its body once")
    func plain() async {
        let harness = Harness()

        #expect(harness.head(200) == .allow)
        harness.body("hel")
        harness.body("lo")
        harness.complete()
        harness.complete()

        let report = await harness.done.waited()
        #expect(report?.data == Data("hello".utf8))
        #expect(report?.errorCode == nil)
    }

    @Test("when the handler is short, should report on the delegate's thread before the task's end returns")
    func shortHandlerRunsWhereTheTaskEnds() {
        let harness = Harness(transfer: TransferOptions(handlerIsShort: true))

        harness.head(200)
        harness.body("hello")
        harness.completeMarked()

        #expect(harness.done.calls.count == 1, "reported before the delegate returned")
        #expect(harness.done.value?.ranWhereCompleted == true)
        #expect(harness.done.value?.data == Data("hello".utf8))
    }

    @Test("when the handler is not short, should report off the delegate's thread")
    func otherHandlerRunsOffTheDelegateQueue() async {
        let harness = Harness()

        harness.head(200)
        harness.body("hello")
        harness.completeMarked()

        let report = await harness.done.waited()
        #expect(report?.ranWhereCompleted == false, "a slow hook there would hold up every other task")
        #expect(report?.data == Data("hello".utf8))
    }

    @Test("when the redirect policy answers nil, should follow nothing and deliver the 3xx once")
    func refusedRedirect() async {
        let harness = Harness(redirectPolicy: .refuse)
        let redirect = ExactlyOnce<URLRequest?>("the redirect's handler")
        let response = HTTPURLResponse(
            url: Self.url, statusCode: 302, httpVersion: "HTTP/1.1", headerFields: ["Location": "/next"])

        if let response {
            harness.delegate.urlSession(
                harness.session, task: harness.task, willPerformHTTPRedirection: response,
                newRequest: URLRequest(url: Self.url("http://127.0.0.1:9/next"))
            ) { redirect.record($0) }
        }
        #expect(harness.head(302) == .allow)
        harness.body("moved")
        harness.complete()

        #expect(redirect.calls.count == 1)
        #expect(redirect.value == .some(nil), "the redirect is not followed")
        let report = await harness.done.waited()
        #expect(report?.data == Data("moved".utf8))
        #expect(report?.errorCode == nil)
    }

    /// A 302 to `/next` whose proposed request carries `X-Marker: value`, answered under
    /// the harness's policy: what the redirect's handler got.
    private static func redirect(
        _ harness: Harness, proposing value: String
    ) -> ExactlyOnce<URLRequest?> {
        let redirect = ExactlyOnce<URLRequest?>("the redirect's handler")
        var next = URLRequest(url: Self.url("http://127.0.0.1:9/next"))
        next.allHTTPHeaderFields = ["X-Marker": value]
        if let response = HTTPURLResponse(
            url: Self.url, statusCode: 302, httpVersion: "HTTP/1.1", headerFields: ["Location": "/next"])
        {
            harness.delegate.urlSession(
                harness.session, task: harness.task, willPerformHTTPRedirection: response, newRequest: next
            ) { redirect.record($0) }
        }
        return redirect
    }

    @Test(
        "when the redirect policy leaves the proposed header fields as they are, should follow without checking them again"
    )
    func unchangedHeadersNotCheckedAgain() {
        // A field the one check would refuse, here only to show that it is not run a second time:
        // the framework's own requests reach the wire checked already.
        let redirect = Self.redirect(Harness(), proposing: "checked\r\nX-Before: 1")

        #expect(redirect.value??.url?.path == "/next", "the redirect is followed")
    }

    @Test("when the redirect policy sets a header field with CR/LF, should not follow, and fail the task once")
    func policyHeaderChecked() async {
        let policy = RedirectPolicy.decide { _, next, _ in
            var request = next
            var fields = request.allHTTPHeaderFields ?? [:]
            fields["X-Marker"] = "safe\r\nX-Injected: 1"
            request.allHTTPHeaderFields = fields
            return request
        }
        let harness = Harness(redirectPolicy: policy)

        let redirect = Self.redirect(harness, proposing: "safe")

        #expect(redirect.value == .some(nil), "the redirect is not followed")
        let report = await harness.done.waited()
        #expect(report?.networkError == .invalidRequest(.invalidHeaderValue(name: "X-Marker")))
    }

    @Test(
        "when the caller cancels between the response and the body, should report the cancel once, and drop later callbacks"
    )
    func cancelBetweenResponseAndBody() async {
        let harness = Harness()

        #expect(harness.head(200) == .allow)
        // TransportTask.cancel: the record is taken first, then the task cancelled.
        harness.delegate.cancel(harness.key)
        harness.body("late")
        let stream = ExactlyOnce<InputStream?>("the body stream's handler")
        harness.delegate.urlSession(harness.session, task: harness.task) { stream.record($0) }
        harness.complete(URLError(.cancelled))

        let report = await harness.done.waited()
        #expect(report?.errorCode == .cancelled)
        #expect(report?.networkError == .cancelled)
        #expect(stream.calls.count == 1)
        #expect(stream.value == .some(nil), "a finished task gets no body")
    }

    @Test("when a head declares a body past the size limit, should cancel once and report once")
    func headPastLimit() async {
        let harness = Harness(transport: URLSessionTransport(maximumResponseSize: 4))

        #expect(harness.head(200, headers: ["Content-Length": "100"]) == .cancel)
        harness.body("dropped")
        harness.complete(URLError(.cancelled))

        let report = await harness.done.waited()
        #expect(report?.networkError == .responseTooLarge(limit: 4))
    }

    @Test(
        "when needNewBodyStream comes for a task whose request is a copy with another stream, should hand a fresh stream of the file, once"
    )
    func needNewBodyStreamWithCopiedRequest() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("apple-order-\(UUID().uuidString)")
        try Data("the file's bytes".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var request = URLRequest(url: Self.url)
        request.httpMethod = "POST"
        request.httpBodyStream = try BodyStreams.makeStream(from: BodyStreamSource.file(file))
        defer { request.httpBodyStream.map(BodyStreams.release) }
        // URLSession's own copy of the request, bridged: another stream object.
        var copy = request
        copy.httpBodyStream = InputStream(data: Data("the copy's bytes".utf8))
        let transport = URLSessionTransport()
        let harness = Harness(
            transport: transport, request: request, task: transport.urlSession.dataTask(with: copy))
        let stream = ExactlyOnce<InputStream?>("the body stream's handler")

        harness.delegate.urlSession(harness.session, task: harness.task) { stream.record($0) }

        #expect(stream.calls.count == 1)
        let fresh = try #require(stream.value ?? nil, "a fresh stream of the builder's body")
        #expect(Self.read(fresh) == Data("the file's bytes".utf8))
        harness.complete(URLError(.cancelled))
        _ = await harness.done.waited()
    }

    @Test("when an HTTP authentication challenge comes, should answer it once as the platform needs")
    func httpAuthenticationChallenge() async {
        let harness = Harness()
        let answer = ExactlyOnce<URLSession.AuthChallengeDisposition>("the challenge's handler")

        harness.delegate.urlSession(
            harness.session, task: harness.task,
            didReceive: Self.challenge(NSURLAuthenticationMethodHTTPBasic, port: 9, protocol: "http")
        ) { disposition, _ in answer.record(disposition) }

        let disposition = await answer.waited()
        switch ServerTrustDecision.Platform.current {
        case .linux: #expect(disposition == .cancelAuthenticationChallenge, "Linux would wait forever otherwise")
        case .apple: #expect(disposition == .performDefaultHandling)
        }
        harness.complete(URLError(.cancelled))
        _ = await harness.done.waited()
    }

    @Test("when a pinned server is refused, should report it untrusted, and so its connection's neighbours")
    func refusedPinAndNeighbours() async {
        let transport = URLSessionTransport(serverTrust: ServerTrustPolicyTests.keyPin)
        let pinned = URLRequest(url: Self.url("https://127.0.0.1:8443/pinned"))
        let challenged = Harness(transport: transport, request: pinned)
        let neighbour = Harness(transport: transport, request: pinned)
        let elsewhere = Harness(transport: transport, request: URLRequest(url: Self.url("https://127.0.0.1:9443/")))
        let answer = ExactlyOnce<URLSession.AuthChallengeDisposition>("the challenge's handler")

        // A challenge with no trust to evaluate (there is no SecTrust on Linux): refused, as any
        // chain that does not lead to a pin.
        transport.delegate.urlSession(
            transport.urlSession, task: challenged.task,
            didReceive: Self.challenge(ServerTrustDecision.serverTrustMethod, port: 8443, protocol: "https")
        ) { disposition, _ in answer.record(disposition) }
        #expect(await answer.waited() == .cancelAuthenticationChallenge)
        // URLSession cancels the challenged task, and the others waiting on its connection.
        challenged.complete(URLError(.cancelled))
        neighbour.complete(URLError(.cancelled))
        elsewhere.complete(URLError(.cancelled))

        let untrusted = NetworkError.secureConnectionFailed(.serverCertificateUntrusted)
        #expect(await challenged.done.waited()?.networkError == untrusted)
        #expect(await neighbour.done.waited()?.networkError == untrusted, "a neighbour is not a silent cancel")
        #expect(await elsewhere.done.waited()?.networkError == .cancelled, "another origin is not concerned")
    }

    @Test(
        "when a second head comes before any byte, should stream the new response; after bytes, should fail once, never repeating them"
    )
    func secondHead() async {
        let chunks = LockedState<[String]>([])
        let sink = TransferOptions.ChunkSink { data, _, _ in
            chunks.withLock { $0.append(String(decoding: data, as: UTF8.self)) }
            return true
        }
        let harness = Harness(transfer: TransferOptions(destination: .chunks(sink)))

        #expect(harness.head(200) == .allow)
        #expect(harness.head(200) == .allow, "nothing was streamed yet: the body starts over")
        harness.body("abc")
        #expect(harness.head(200) == .cancel)
        harness.body("abc")
        harness.complete(URLError(.cancelled))

        let report = await harness.done.waited()
        #expect(report?.errorCode == .networkConnectionLost, "retryable")
        #expect(chunks.withLock { $0 } == ["abc"])
    }

    @Test(
        "when a 2xx head opened the download's file and an error head follows before any byte, should keep the error body out of the file"
    )
    func secondHeadAfterFileOpened() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("download.bin")
        let harness = Harness(transfer: TransferOptions(destination: .file(file, resumingAt: 0)))

        #expect(harness.head(200) == .allow)
        #expect(harness.head(500) == .allow, "nothing was written yet: the body starts over")
        harness.body("error page")
        harness.complete()

        let report = await harness.done.waited()
        #expect(report?.data == Data("error page".utf8), "an error body is collected in memory, to be read")
        let written = (try? Data(contentsOf: file)) ?? Data()
        #expect(written.isEmpty, "the file holds \(String(decoding: written, as: UTF8.self).debugDescription)")
    }

    // MARK: Fakes

    private static func challenge(_ method: String, port: Int, protocol scheme: String) -> URLAuthenticationChallenge {
        let space = URLProtectionSpace(
            host: "127.0.0.1", port: port, protocol: scheme, realm: nil, authenticationMethod: method)
        return URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: nil,
            error: nil, sender: SilentChallengeSender())
    }

    private static func read(_ stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }
}

extension TransportDelegate {
    /// Adds a record for `request`, resumed and running in `task` (never resumed itself), with no
    /// idle timeout: what `TransportTask.resume()` does, without sending anything.
    @discardableResult
    func register(
        _ task: URLSessionDataTask, request: URLRequest, redirectPolicy: RedirectPolicy = .follow,
        transfer: TransportTaskOptions? = nil, handlerIsShort: Bool = false,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> Int {
        let key = add(
            request: request, timeout: nil, redirectPolicy: redirectPolicy, transfer: transfer,
            handlerIsShort: handlerIsShort, completionHandler: completionHandler)
        _ = resume(key)
        #expect(start(key, in: task))
        return key
    }
}
