import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `BackgroundSessionDelegate`, the glue between a background `URLSession` and
/// `BackgroundTransfers`, driven by hand on every platform: its callbacks are called directly with
/// tasks of a plain session that are never resumed, each named by its transfer's token
/// (`taskDescription`), and the owner runs on `BackgroundTransfersTests.FakeSystem` with the
/// `.immediate` executor, so each result is reported inside the call under test.
@Suite("BackgroundSessionDelegate")
struct BackgroundSessionDelegateTests {
    typealias FakeSystem = BackgroundTransfersTests.FakeSystem
    typealias Reports = BackgroundTransfersTests.Reports
    typealias Upload = BackgroundTransfersTests.Upload
    typealias Get = BackgroundTransfersTests.Get

    let folder: URL
    let system = FakeSystem()
    let reports = Reports()
    /// Makes the tasks; none is resumed, so nothing is sent.
    let session = URLSession(configuration: .ephemeral)

    init() throws {
        folder = try makeTemporaryFolder()
    }

    /// Removes the test's files and lets go of the session.
    func end() {
        session.invalidateAndCancel()
        try? FileManager.default.removeItem(at: folder)
    }

    func transfers() -> BackgroundTransfers {
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: FakeNetworkSession(), actions: [], completionExecutor: .immediate)
        return BackgroundTransfers(
            identifier: "com.example.transfers", module: module, directory: folder.appendingPathComponent("state"),
            system: system, credentialsMayFollowRedirects: true, handler: reports.handler)
    }

    /// A delegate of `owner` whose tasks answered with `status` (`nil`: no response), as a
    /// resumed task's `response` would say.
    func delegate(
        of owner: BackgroundTransfers, status: Int? = nil, credentialHeaderNames: Set<String> = []
    ) -> BackgroundSessionDelegate {
        BackgroundSessionDelegate(
            owner: owner, credentialHeaderNames: credentialHeaderNames,
            responseOf: { task in
                guard let status, let url = task.originalRequest?.url else { return nil }
                return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])
            })
    }

    func videoFile() throws -> URL {
        let file = folder.appendingPathComponent("video.mp4")
        try Data(repeating: 7, count: 1_000).write(to: file)
        return file
    }

    /// The system's task for the transfer sent last, as the background session makes it.
    func task(for sent: FakeSystem.Sent?, token: String? = nil) throws -> URLSessionTask {
        let sent = try #require(sent)
        let task: URLSessionTask =
            switch sent.task {
            case .upload(let file): session.uploadTask(with: sent.request, fromFile: file)
            case .download, .resumedDownload: session.downloadTask(with: sent.request)
            }
        task.taskDescription = token ?? sent.token
        return task
    }

    /// An error of the session's domain, with `userInfo`.
    func urlError(_ code: URLError.Code, _ userInfo: [String: Any] = [:]) -> NSError {
        NSError(domain: NSURLErrorDomain, code: code.rawValue, userInfo: userInfo)
    }

    // MARK: - Routing by token

    @Test("when a task ends, should report the transfer its token names")
    func routesByToken() throws {
        defer { end() }
        let transfers = transfers()
        try transfers.upload(request: Upload(file: videoFile()), id: "a")
        try transfers.upload(request: Upload(file: videoFile()), id: "b")
        let delegate = delegate(of: transfers, status: 201)

        delegate.urlSession(session, task: try task(for: system.sent.last), didCompleteWithError: nil)

        #expect(reports.ids == ["b"])
        #expect(try reports.results.first?.get().statusCode == 201)
    }

    @Test("when a task's token is unknown or empty, should drop its events")
    func dropsUnknownTokens() throws {
        defer { end() }
        let transfers = transfers()
        try transfers.upload(request: Upload(file: videoFile()), id: "a")
        let delegate = delegate(of: transfers, status: 201)
        let unnamed = try task(for: system.sent.first)
        unnamed.taskDescription = nil

        for task in [
            try task(for: system.sent.first, token: "unknown"), try task(for: system.sent.first, token: ""), unnamed,
        ] {
            delegate.urlSession(
                session, dataTask: try #require(task as? URLSessionDataTask), didReceive: Data("x".utf8))
            delegate.urlSession(session, task: task, didCompleteWithError: nil)
        }

        #expect(reports.ids.isEmpty)
        delegate.urlSession(session, task: try task(for: system.sent.first), didCompleteWithError: nil)
        #expect(reports.ids == ["a"])
        #expect(try reports.results.first?.get().data == Data())
    }

    // MARK: - A task's end

    @Test("when an interrupted download's error carries resume data, should keep it for the transfer's next attempt")
    func writesResumeData() throws {
        defer { end() }
        let transfers = transfers()
        let destination = DownloadDestination(folder.appendingPathComponent("intro.mp4"))
        try transfers.download(request: Get(), to: destination, id: "intro")
        let resumeData = Data("resume here".utf8)

        // Apple's key, by its value: corelibs exports it under another name.
        delegate(of: transfers).urlSession(
            session, task: try task(for: system.sent.first),
            didCompleteWithError: urlError(.networkConnectionLost, ["NSURLSessionDownloadTaskResumeData": resumeData]))

        let store = BackgroundTransferStore(directory: folder.appendingPathComponent("state"))
        #expect(store.resumeData(for: "intro") == resumeData)
        #expect(reports.results.first?.error == .networkConnectionLost)
        try transfers.download(request: Get(), to: destination, id: "intro")
        #expect(system.sent.last?.task == .resumedDownload(resumeData))
    }

    @Test(
        "when the system cancels a transfer, should name its reason",
        arguments: [
            (0, "the user force-quit the app"), (1, "background updating is off"),
            (2, "the system lacked the resources"), (nil, "a reason it did not give"),
        ] as [(Int?, String)])
    func namesCancelReason(reason: Int?, words: String) throws {
        defer { end() }
        let transfers = transfers()
        try transfers.upload(request: Upload(file: videoFile()), id: "a")
        let userInfo: [String: Any] = reason.map { [NSURLErrorBackgroundTaskCancelledReasonKey: $0] } ?? [:]

        delegate(of: transfers).urlSession(
            session, task: try task(for: system.sent.first), didCompleteWithError: urlError(.cancelled, userInfo))

        guard case .transportError(let failure)? = reports.results.first?.error else {
            Issue.record("expected a transport error, got \(String(describing: reports.results.first))")
            return
        }
        #expect(failure.code == .cancelled)
        #expect(failure.message?.contains(words) == true, "\(failure.message ?? "no message")")
    }

    @Test("when an upload's reply passes its limit, should cancel the task and report .responseTooLarge")
    func replyPastLimit() throws {
        defer { end() }
        let transfers = transfers()
        try transfers.upload(request: Upload(file: videoFile()), id: "a")
        let task = try #require(try task(for: system.sent.first) as? URLSessionDataTask)
        let delegate = delegate(of: transfers, status: 200)

        delegate.urlSession(session, dataTask: task, didReceive: Data(count: BackgroundTransfers.bodyLimit))
        let stateAtLimit = task.state
        delegate.urlSession(session, dataTask: task, didReceive: Data(count: 1))
        let stateAfter = task.state
        delegate.urlSession(session, task: task, didCompleteWithError: urlError(.cancelled))

        #expect(stateAtLimit == .suspended)
        #expect(stateAfter != .suspended)
        #expect(reports.results.map(\.error) == [.responseTooLarge(limit: BackgroundTransfers.bodyLimit)])
    }

    @Test("when a download's file arrives with an accepted status, should move it to the destination")
    func placesDownload() throws {
        defer { end() }
        let transfers = transfers()
        let destination = folder.appendingPathComponent("intro.mp4")
        try transfers.download(request: Get(), to: DownloadDestination(destination), id: "intro")
        let task = try #require(try task(for: system.sent.first) as? URLSessionDownloadTask)
        let location = folder.appendingPathComponent("CFNetworkDownload_1.tmp")
        try Data("video".utf8).write(to: location)
        let delegate = delegate(of: transfers, status: 200)

        delegate.urlSession(session, downloadTask: task, didFinishDownloadingTo: location)
        delegate.urlSession(session, task: task, didCompleteWithError: nil)

        #expect(try Data(contentsOf: destination) == Data("video".utf8))
        #expect(!FileManager.default.fileExists(atPath: location.path))
        #expect(reports.ids == ["intro"])
        #expect(try reports.results.first?.get().statusCode == 200)
    }

    // MARK: - Redirects

    @Test("when the system asks about a redirect to another origin, should strip the credential headers")
    func redirectStripsCredentials() throws {
        defer { end() }
        let transfers = transfers()
        try transfers.download(request: Get(), to: DownloadDestination(folder.appendingPathComponent("f")), id: "f")
        let task = try task(for: system.sent.first)
        let delegate = delegate(of: transfers, credentialHeaderNames: ["x-api-key"])
        let redirect = try #require(
            HTTPURLResponse(
                url: URL(string: "https://api.example.com/v2/videos/7/file")!, statusCode: 302, httpVersion: nil,
                headerFields: [:]))
        func followed(to url: String) throws -> URLRequest? {
            var request = URLRequest(url: try #require(URL(string: url)))
            request.setValue("Bearer token-1", forHTTPHeaderField: "Authorization")
            request.setValue("key-1", forHTTPHeaderField: "X-Api-Key")
            request.setValue("video/mp4", forHTTPHeaderField: "Accept")
            let answer = LockedState<URLRequest??>(nil)
            delegate.urlSession(
                session, task: task, willPerformHTTPRedirection: redirect, newRequest: request,
                completionHandler: { request in answer.withLock { $0 = .some(request) } })
            return try #require(answer.value)
        }

        let elsewhere = try followed(to: "https://cdn.example.net/7")
        let sameOrigin = try followed(to: "https://api.example.com/v2/files/7")

        #expect(elsewhere?.url?.host == "cdn.example.net")
        #expect(elsewhere?.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(elsewhere?.value(forHTTPHeaderField: "X-Api-Key") == nil)
        #expect(elsewhere?.value(forHTTPHeaderField: "Accept") == "video/mp4")
        #expect(sameOrigin?.value(forHTTPHeaderField: "Authorization") == "Bearer token-1")
        #expect(sameOrigin?.value(forHTTPHeaderField: "X-Api-Key") == "key-1")
    }

    // MARK: - Server trust

    /// The server-trust challenge of `api.example.com`, as the system raises it before a task's
    /// request goes out (on Linux it carries no `SecTrust`, so a pin cannot be checked).
    func serverTrustChallenge() -> URLAuthenticationChallenge {
        URLAuthenticationChallenge(
            protectionSpace: URLProtectionSpace(
                host: "api.example.com", port: 443, protocol: NSURLProtectionSpaceHTTPS, realm: nil,
                authenticationMethod: ServerTrustDecision.serverTrustMethod),
            proposedCredential: nil, previousFailureCount: 0, failureResponse: nil, error: nil,
            sender: SilentChallengeSender())
    }

    /// Raises the server-trust challenge on `task`, then ends it with the cancel `URLSession`
    /// reports for a cancelled challenge; returns the disposition.
    func challengeThenCancel(
        _ delegate: BackgroundSessionDelegate, task: URLSessionTask
    ) -> URLSession.AuthChallengeDisposition? {
        let answer = LockedState<URLSession.AuthChallengeDisposition?>(nil)
        delegate.urlSession(
            session, task: task, didReceive: serverTrustChallenge(),
            completionHandler: { disposition, _ in answer.withLock { $0 = disposition } })
        delegate.urlSession(session, task: task, didCompleteWithError: urlError(.cancelled))
        return answer.value
    }

    @Test("when the decision refuses a task's server, should report it untrusted, not as a system cancel")
    func refusedServer() throws {
        defer { end() }
        let transfers = transfers()
        try transfers.upload(request: Upload(file: videoFile()), id: "a")
        let pinned = BackgroundSessionDelegate(
            owner: transfers, credentialHeaderNames: [],
            serverTrust: .pinnedPublicKeys(sha256: [Data(repeating: 1, count: 32).base64EncodedString()]))

        let disposition = challengeThenCancel(pinned, task: try task(for: system.sent.first))

        #expect(disposition == .cancelAuthenticationChallenge)
        #expect(reports.results.map(\.error) == [.secureConnectionFailed(.serverCertificateUntrusted)])
        guard case .secureConnectionFailed(let failure)? = reports.results.first?.error else { return }
        #expect(failure.failingURL?.host == "api.example.com")
        #expect(failure.message?.contains("pinned") == true, "\(failure.message ?? "no message")")
    }

    @Test("when a refused server's connection takes other tasks with it, should report them untrusted too")
    func refusedServerNeighbours() throws {
        defer { end() }
        let transfers = transfers()
        for id in ["a", "b", "c"] { try transfers.upload(request: Upload(file: videoFile()), id: id) }
        try transfers.download(
            request: Get(), to: DownloadDestination(folder.appendingPathComponent("v")), id: "other-origin")
        let pinned = BackgroundSessionDelegate(
            owner: transfers, credentialHeaderNames: [],
            serverTrust: .pinnedPublicKeys(sha256: [Data(repeating: 1, count: 32).base64EncodedString()]))
        let sent = system.sent
        // The fourth went to another origin (the same transfer, sent elsewhere).
        let otherOrigin = session.downloadTask(
            with: URLRequest(url: try #require(URL(string: "https://cdn.example.com/v"))))
        otherOrigin.taskDescription = sent[3].token

        _ = challengeThenCancel(pinned, task: try task(for: sent[0]))
        // On the same connection: cancelled by URLSession, no response; b with the system's reason.
        pinned.urlSession(session, task: try task(for: sent[1]), didCompleteWithError: urlError(.cancelled))
        pinned.urlSession(
            session, task: try task(for: sent[2]),
            didCompleteWithError: urlError(.cancelled, [NSURLErrorBackgroundTaskCancelledReasonKey: 0]))
        pinned.urlSession(session, task: otherOrigin, didCompleteWithError: urlError(.cancelled))

        let untrusted = NetworkError.secureConnectionFailed(.serverCertificateUntrusted)
        #expect(reports.ids == ["a", "b", "c", "other-origin"])
        #expect(reports.results[0].error == untrusted && reports.results[1].error == untrusted)
        #expect(reports.results[2].error?.transportFailure?.code == .cancelled)
        #expect(reports.results[3].error?.transportFailure?.code == .cancelled)
    }

    @Test("should take the tasks' challenges only under pins, so that the system's trust wakes no app")
    func answersChallengesOnlyWhenPinned() {
        let pin = Data(repeating: 1, count: 32).base64EncodedString()
        #expect(!BackgroundSessionDelegate.answersChallenges(under: .system))
        #expect(BackgroundSessionDelegate.answersChallenges(under: .pinnedPublicKeys(sha256: [pin])))
        #expect(BackgroundSessionDelegate.answersChallenges(under: .pinnedCertificates([])))
    }

    @Test("when the policy is the system's, should leave server trust to the platform and report its cancel as is")
    func systemTrust() throws {
        defer { end() }
        let transfers = transfers()
        try transfers.upload(request: Upload(file: videoFile()), id: "a")

        let disposition = challengeThenCancel(delegate(of: transfers), task: try task(for: system.sent.first))

        #expect(disposition == .performDefaultHandling)
        guard case .transportError(let failure)? = reports.results.first?.error else {
            Issue.record("expected the system's cancel, got \(String(describing: reports.results.first))")
            return
        }
        #expect(failure.code == .cancelled)
    }

    // MARK: - The owner

    @Test("when the owner is gone, should drop the events")
    func ownerGone() throws {
        defer { end() }
        var transfers: BackgroundTransfers? = transfers()
        try transfers?.upload(request: Upload(file: videoFile()), id: "a")
        let delegate = delegate(of: try #require(transfers), status: 201)
        let task = try task(for: system.sent.first)
        transfers = nil

        delegate.urlSession(session, task: task, didCompleteWithError: nil)

        #expect(reports.ids.isEmpty)
    }
}
