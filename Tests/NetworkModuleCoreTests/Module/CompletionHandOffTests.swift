import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which requests tell their session that the completion handler is short
/// (`TransferOptions.handlerIsShort`), so that `URLSessionTransport` and a plain `URLSession` call
/// it on their delegate queue instead of handing it to a queue of the framework's own: only a
/// request with nothing slow left once the answer is in. `Integration: no head-of-line blocking`
/// pins the threads on the wire.
@Suite("Completion hand-off")
struct CompletionHandOffTests {
    /// A session that records, for each task, whether its handler was said to be short, and
    /// answers as a `FakeNetworkSession` does.
    final class HandOffRecordingSession: TransferringSession {
        let fake = FakeNetworkSession()
        let shortHandlers = LockedState([Bool]())

        func transferTask(
            with request: URLRequest, transfer: TransferOptions,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            shortHandlers.withLock { $0.append(transfer.handlerIsShort) }
            return fake.transferTask(with: request, transfer: transfer, completionHandler: completionHandler)
        }
    }

    /// An action with every hook left at its default.
    struct DoesNothing: NetworkModuleAction {}

    private static func module(
        _ session: HandOffRecordingSession, actions: [any NetworkModuleAction] = []
    ) -> DefaultNetworkModule {
        session.fake.stub(.path("/v2/users/1"), with: .json(#"{"id":1,"name":"Ada"}"#))
        return DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, actions: actions,
            completionExecutor: .immediate)
    }

    @Test("when a module without actions performs a request, should tell the session its handler is short")
    func plainPerformIsShort() {
        let session = HandOffRecordingSession()
        let results = ResultCollector<NetworkResponse>()

        Self.module(session).perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        #expect(session.shortHandlers.value == [true])
    }

    @Test(
        "when a module without actions performs a request with async/await, should tell the session its handler is short"
    )
    func asyncPerformIsShort() async throws {
        let session = HandOffRecordingSession()

        let response = try await Self.module(session).perform(request: TestRequest())

        #expect(response.statusCode == 200)
        #expect(session.shortHandlers.value == [true])
    }

    @Test("when the module has an action, should not say the handler is short: its hooks run in it")
    func actionsAreNotShort() {
        let session = HandOffRecordingSession()
        let results = ResultCollector<NetworkResponse>()

        Self.module(session, actions: [DoesNothing()]).perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        #expect(session.shortHandlers.value == [false])
    }

    @Test("when the response is decoded, should not say the handler is short: the decoding runs in it")
    func decodingIsNotShort() {
        let session = HandOffRecordingSession()
        let results = ResultCollector<User>()

        Self.module(session).performAndDecode(
            request: TestRequest(), responseType: User.self, completion: results.completion)

        #expect(results.singleValue == User(id: 1, name: "Ada"))
        #expect(session.shortHandlers.value == [false])
    }

    @Test("when the body is downloaded to a file, should not say the handler is short: the file is written in it")
    func downloadIsNotShort() throws {
        let session = HandOffRecordingSession()
        let results = ResultCollector<DownloadResponse>()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }

        Self.module(session).download(
            request: TestRequest(), to: DownloadDestination(directory.appendingPathComponent("user.json")),
            completion: results.completion)

        #expect(results.singleValue != nil)
        #expect(session.shortHandlers.value == [false])
    }

    @Test("when a decorator shares one call among callers, should not say the shared call's handler is short")
    func sharedCallIsNotShort() {
        let session = HandOffRecordingSession()
        session.fake.stub(.path("/v2/users/1"), with: .json(#"{"id":1,"name":"Ada"}"#))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session.deduplicated(),
            completionExecutor: .immediate)
        let results = ResultCollector<NetworkResponse>()

        module.perform(request: TestRequest(), completion: results.completion)

        #expect(results.singleValue?.statusCode == 200)
        #expect(session.shortHandlers.value == [false], "another caller's hooks may run in the shared handler")
    }
}
