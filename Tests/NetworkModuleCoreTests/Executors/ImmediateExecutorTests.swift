import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where `.immediate` runs a completion when the answer races the session's `resume()`
/// (docs/executors-and-threading.md, the `.immediate` bullet).
@Suite("Immediate executor")
struct ImmediateExecutorTests {
    /// A session whose task answers from a thread of its own while `resume()` is still running:
    /// `resume()` returns only after that thread has handed the answer over.
    private struct AnswersBeforeResumeReturns: NetworkSession {
        func dataTask(
            with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any NetworkSessionTask {
            Task(request: request, completionHandler: completionHandler)
        }

        struct Task: NetworkSessionTask {
            let request: URLRequest
            let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void

            func resume() {
                let handedOver = DispatchSemaphore(value: 0)
                let url = request.url
                let handler = completionHandler
                Thread.detachNewThread {
                    let response = url.flatMap {
                        HTTPURLResponse(url: $0, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)
                    }
                    handler(Data(), response, nil)
                    handedOver.signal()
                }
                _ = handedOver.wait(timeout: .now() + 10)
            }

            func cancel() {}
        }
    }

    @Test(
        "when the answer arrives before the session's resume() returns, should run the completion on the perform caller's thread, before perform returns"
    )
    func answerDuringResumeCompletesInsidePerform() {
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: AnswersBeforeResumeReturns(),
            completionExecutor: .immediate)
        let caller = ObjectIdentifier(Thread.current)
        let seen = LockedState<(onCaller: Bool, status: Int?)?>(nil)

        module.perform(request: TestRequest()) { result in
            seen.withLock { $0 = (ObjectIdentifier(Thread.current) == caller, try? result.get().statusCode) }
        }

        // Already delivered when perform returned, on this thread: the answering thread only
        // handed the answer over; the thread that called perform finished the request.
        #expect(seen.withLock { $0 }?.onCaller == true)
        #expect(seen.withLock { $0 }?.status == 200)
    }
}
