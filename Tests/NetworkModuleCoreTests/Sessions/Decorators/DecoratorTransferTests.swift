import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Transfers through the session decorators: each hands the wrapped session the transfer itself
/// (so a transport still streams it to disk), never a buffered data task.
@Suite("Session decorators with transfers")
struct DecoratorTransferTests {
    /// A session that records which method created each task, and answers 200 at once.
    final class SpySession: TransferringSession {
        private let calls = LockedState([String]())
        var recorded: [String] { calls.withLock { $0 } }

        func dataTask(
            with request: URLRequest,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            calls.withLock { $0.append("dataTask") }
            return Answer(request: request, completionHandler: completionHandler)
        }

        func transferTask(
            with request: URLRequest, transfer: TransferOptions,
            completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            let destination = if case .file = transfer.destination { "file" } else { "memory" }
            calls.withLock { $0.append("transferTask to \(destination)") }
            return Answer(request: request, completionHandler: completionHandler)
        }

        struct Answer: NetworkSessionTask {
            let request: URLRequest
            let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void
            func resume() {
                let response = request.url.flatMap {
                    HTTPURLResponse(url: $0, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])
                }
                completionHandler(nil, response, nil)
            }
            func cancel() {}
        }
    }

    @Test(
        "when a transfer goes through a decorator, should reach the wrapped session as a transfer, twice for two",
        arguments: ["throttled", "deduplicated", "cached"])
    func forwardsTransfers(_ decorator: String) throws {
        let spy = SpySession()
        let session: any NetworkSession =
            switch decorator {
            case "throttled": spy.throttled(maxConcurrent: 1)
            case "deduplicated": spy.deduplicated()
            default: spy.cached()
            }
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/file")))
        let transfer = TransferOptions(
            destination: .file(FileManager.default.temporaryDirectory.appendingPathComponent("x"), resumingAt: 0))
        let completions = LockedState(0)

        for _ in 0..<2 {
            session.transferring.transferTask(with: request, transfer: transfer) { _, _, _ in
                completions.withLock { $0 += 1 }
            }
            .resume()
        }

        #expect(spy.recorded == ["transferTask to file", "transferTask to file"], "\(decorator)")
        #expect(completions.withLock { $0 } == 2)
    }
}
