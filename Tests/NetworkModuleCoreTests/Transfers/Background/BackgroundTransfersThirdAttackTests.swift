import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A third running attack on issue 39's fixes (3e0b800..85c7aa7). Each test asserts the
/// promise; a break is pinned with `withKnownIssue("BREAK: …")`.
@Suite("BackgroundTransfersThirdAttack", .serialized)
struct BackgroundTransfersThirdAttackTests {
    typealias Base = BackgroundTransfersTests
    typealias Attack = BackgroundTransfersAttackTests
    typealias Second = BackgroundTransfersSecondAttackTests

    let folder: URL
    let reports = Base.Reports()

    init() throws { folder = try makeTemporaryFolder() }

    func module(clock: ManualDelayScheduler = ManualDelayScheduler()) -> DefaultNetworkModule {
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
            session: FakeNetworkSession(), completionExecutor: BuiltInExecutor.immediate, delayScheduler: clock)
    }

    func instance(
        directory: URL, system: any BackgroundTaskSystem, claims: Bool, clock: ManualDelayScheduler? = nil
    ) -> BackgroundTransfers {
        BackgroundTransfers(
            identifier: "com.example.transfers", module: module(clock: clock ?? ManualDelayScheduler()),
            directory: directory, system: system, credentialsMayFollowRedirects: true, claimsDirectory: claims,
            handler: reports.handler)
    }

    func file(_ name: String) throws -> URL {
        let file = folder.appendingPathComponent(name)
        try Data(repeating: 7, count: 1_000).write(to: file)
        return file
    }

    func response(_ status: Int) -> BackgroundTransferOutcome.SystemCompletion {
        BackgroundTransferOutcome.SystemCompletion(
            response: HTTPURLResponse(
                url: URL(string: "https://api.example.com/v2/videos")!, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: [:]),
            bytesSent: 1_000, bytesReceived: 8)
    }

    // MARK: - 85c7aa7: StateDirectoryClaim

    @Test("the state folder reached through a symbolic link: the second instance refuses, no transfer is lost")
    @MainActor
    func stateFolderThroughASymbolicLink() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let real = folder.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let link = folder.appendingPathComponent("state-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)

        let first = Attack.LogSystem()
        let t1 = instance(directory: real, system: first, claims: true)
        try t1.upload(request: Attack.Upload(file: file("a.mp4")), id: "a")
        let tokenA = try #require(first.tokens.first)
        // The app makes the object again, its state folder spelled through a link (as
        // /var and /private/var are on Apple's systems).
        let second = Attack.LogSystem()
        let t2 = instance(directory: link, system: second, claims: true)
        let refused = (try? t2.upload(request: Attack.Upload(file: file("b.mp4")), id: "b")) == nil
        let tokenB = second.tokens.first
        t1.systemCompleted(token: tokenA, completion: response(201), resumeData: nil)

        // Relaunch: the system still runs "b", if it was sent.
        let third = Attack.LogSystem()
        let clock = ManualDelayScheduler()
        let t3 = instance(directory: real, system: third, claims: false, clock: clock)
        if let tokenB {
            third.list([tokenB])
            t3.systemCompleted(token: tokenB, completion: response(201), resumeData: nil)
        }
        clock.advance(by: 120)

        let lostB = !refused && !reports.ids.contains("b")
        // Before the fix: "the second instance sent b", and the relaunch cancelled b's task,
        // never reported ("cancel <token of b>", reports ["a"]).
        #expect(refused, "the second instance sent b: \(second.log.value)")
        #expect(!lostB, "b was sent and never reported; relaunch log: \(third.log.value), reports: \(reports.ids)")
        // A folder not made yet, under a link: the same folder too.
        let held = StateDirectoryClaim.claim(real.appendingPathComponent("not-yet/made"))
        #expect(held != nil && StateDirectoryClaim.claim(link.appendingPathComponent("not-yet/made")) == nil)
        _ = (t1, t2, t3)
    }

    // MARK: - b698bb7: resume data of a download that carried credentials

    /// Puts a token in the query, as a signed or token-in-URL download does; `Redaction` masks
    /// `access_token` as a secret.
    struct TokenInQuery: NetworkModuleAction {
        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
            guard let url = urlRequest.url, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
            else { return }
            parts.queryItems = [URLQueryItem(name: "access_token", value: "s3cr3t-token")]
            urlRequest.url = parts.url
        }
    }

    @Test("resume data of a download whose URL carries a token (access_token=) does not outlive the report")
    func resumeDataWithATokenInTheQuery() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state")
        let system = Base.FakeSystem()
        let t = BackgroundTransfers(
            identifier: "com.example.transfers",
            module: DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
                session: FakeNetworkSession(), actions: [TokenInQuery()], completionExecutor: BuiltInExecutor.immediate,
                delayScheduler: ManualDelayScheduler()),
            directory: state, system: system, handler: reports.handler)
        let destination = DownloadDestination(folder.appendingPathComponent("intro.mp4"))
        try t.download(request: Attack.Get(), to: destination, id: "d")
        let sent = try #require(system.sent.first)
        let url = sent.request.url?.absoluteString ?? ""
        #expect(url.contains("access_token=s3cr3t-token"))
        #expect(
            sent.request.url.map { Redaction.default.redacted($0).absoluteString.contains("s3cr3t-token") } == false)
        // Apple's resume data is a plist holding the request, its URL and all.
        let resumeData = Data("<plist>\(url)</plist>".utf8)
        var interrupted = response(200)
        interrupted.error = URLError(.networkConnectionLost)
        t.systemCompleted(token: sent.token, completion: interrupted, resumeData: resumeData)

        #expect(reports.ids == ["d"])
        let files = (try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []
        let holdsSecret = files.filter { $0.hasPrefix("resume-") }.contains { name in
            let data = (try? Data(contentsOf: state.appendingPathComponent(name))) ?? Data()
            return String(decoding: data, as: UTF8.self).contains("s3cr3t-token")
        }
        #expect(!holdsSecret, "a resume-*.data file still holds access_token after the report: \(files)")
    }

    // MARK: - a76aa39: a damaged ledger's tasks

    @Test("a damaged ledger's launch saves before the system lists its tasks: the next launch cancels none of them")
    func damagedLaunchSavesBeforeTheListing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state")
        let first = Attack.LogSystem()
        let t1 = instance(directory: state, system: first, claims: false)
        try t1.upload(request: Attack.Upload(file: file("a.mp4")), id: "a")
        let tokenA = try #require(first.tokens.first)
        try Data("{not json".utf8).write(to: state.appendingPathComponent("transfers.json"))

        // Launch 2 reads a damaged ledger; the app begins a transfer (a ledger is saved) before
        // the system's getAllTasks answers, and the process ends (suspended, killed) first.
        let second = Attack.LogSystem()
        let t2 = instance(directory: state, system: second, claims: false)
        try t2.upload(request: Attack.Upload(file: file("b.mp4")), id: "b")
        let tokenB = try #require(second.tokens.first)

        // Launch 3 reads that clean ledger; the system still runs a and b.
        let third = Attack.LogSystem()
        let t3 = instance(directory: state, system: third, claims: false)
        third.list([tokenA, tokenB])

        let cancelledA = third.log.value.contains("cancel \(tokenA)")
        #expect(!cancelledA, "launch 3 cancelled a, never reported: \(third.log.value), reports: \(reports.ids)")
        _ = (t1, t2, t3)
    }

    // MARK: - eb8beae: the policy of a session the framework can see

    @Test("a module on URLSession.shared (no delegate, so the system's trust): its policy is known, not refused")
    func plainSharedSessionIsKnown() {
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
            session: URLSession.shared)
        let policy = BackgroundTransfers.serverTrust(given: nil, session: module.session)
        // README: "a plain URLSession works too (session: URLSession.shared)". A URLSession
        // without a delegate answers no challenge: its policy is the system's, which the
        // framework can read (URLSession.delegate == nil), yet every transfer is refused.
        #expect(policy == .system, "serverTrust unknown for URLSession.shared")
    }
}
