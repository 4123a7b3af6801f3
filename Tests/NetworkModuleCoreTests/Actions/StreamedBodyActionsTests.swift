import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built-in actions with a body stream: they describe it, never read it.
@Suite("Actions with streamed bodies")
struct StreamedBodyActionsTests {
    /// An upload of 2048 bytes from a stream.
    struct Upload: NetworkRequest {
        var length: Int64? = 2048
        var path: String { "/uploads" }
        var method: HTTPMethod { .put }
        var body: RequestBody? {
            .stream(length: length) { InputStream(data: Data(repeating: 1, count: 2048)) }
        }
    }

    func send(_ request: Upload, actions: [any NetworkModuleAction]) -> FakeNetworkSession {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        makeModule(session: session, actions: actions).perform(request: request) { _ in }
        return session
    }

    @Test("when logging bodies and curl, should write the stream's length without reading it")
    func loggingDescribesStream() throws {
        let log = LogEntries()

        let session = send(Upload(), actions: [.logging(curl: true, sink: log.sink)])

        #expect(log.text.contains("  <stream of 2048 bytes>"))
        #expect(log.text.contains("# body not shown: <stream of 2048 bytes>"))
        let sent = try #require(session.recordedRequests.first?.httpBodyStream)
        #expect(sent.streamStatus == .notOpen, "the log must not consume what the session sends")
    }

    @Test("when a stream's length is unknown, should log it as a stream of unknown length")
    func unknownLength() {
        let log = LogEntries()

        _ = send(Upload(length: nil), actions: [.logging(sink: log.sink)])

        #expect(log.text.contains("<stream of unknown length>"))
    }

    @Test("when signing a request with a body stream, should say so and give no body")
    func signingSeesStream() {
        let seen = LockedState<(body: Data?, stream: Bool)?>(nil)
        let signing = SigningAction(secrets: []) { request in
            seen.withLock { $0 = (request.httpBody, request.httpBodyStream != nil) }
            return .headers(["X-Signature": "unsigned-payload"])
        }

        let session = send(Upload(), actions: [signing])

        #expect(seen.withLock { $0?.body } == nil)
        #expect(seen.withLock { $0?.stream } == true)
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "X-Signature") == "unsigned-payload")
    }
}
