import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The tasks of the real transports, cancelled before they are resumed: nothing is sent, so
/// these need no server.
@Suite("Transport tasks cancelled before resume")
struct TransportTaskTests {
    /// Counts the calls of one completion handler and keeps the first error code.
    final class Calls: Sendable {
        private let state = LockedState((count: 0, code: URLError.Code?.none))
        let first = DispatchSemaphore(value: 0)

        var handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void {
            { _, _, error in
                let isFirst = self.state.withLock { state -> Bool in
                    state.count += 1
                    if state.count == 1 { state.code = (error as? URLError)?.code }
                    return state.count == 1
                }
                if isFirst { self.first.signal() }
            }
        }

        var count: Int { state.withLock { $0.count } }
        var code: URLError.Code? { state.withLock { $0.code } }
    }

    /// A URL nothing answers on: a request that were sent would fail with another error.
    let unreachable = URLRequest(url: URL(string: "http://127.0.0.1:9/never-sent")!)

    @Test(
        "when a URLSessionTransport task is cancelled before resume, should report .cancelled exactly once and ignore resume"
    )
    func transportTaskCancelledBeforeResume() async throws {
        let transport = URLSessionTransport(configuration: .ephemeral)
        let calls = Calls()
        let task = transport.dataTask(with: unreachable, completionHandler: calls.handler)

        task.cancel()
        task.resume()
        task.cancel()

        #expect(await calls.first.signalled(within: 10))
        #expect(await transport.urlSession.holdsNoTask(), "a task reached the session")
        #expect(calls.count == 1)
        #expect(calls.code == .cancelled)
    }

    @Test(
        "when a plain URLSession task is cancelled before resume, should report .cancelled exactly once and ignore resume"
    )
    func urlSessionTaskCancelledBeforeResume() async throws {
        let urlSession = URLSession(configuration: .ephemeral)
        let session: any NetworkSession = URLSessionAdapter(urlSession)
        let calls = Calls()
        let task = session.dataTask(with: unreachable, completionHandler: calls.handler)

        task.cancel()
        task.resume()

        #expect(await calls.first.signalled(within: 10))
        #expect(await urlSession.holdsNoTask(), "a task of the session is still running")
        #expect(calls.count == 1)
        #expect(calls.code == .cancelled)
    }
}
