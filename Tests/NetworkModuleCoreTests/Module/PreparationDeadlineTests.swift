import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The machine's preparation deadline for every `Double` a raw `URLRequest` (or an action) can
/// carry as its timeout.
@Suite("Preparation deadline of every timeout value")
struct PreparationDeadlineTests {
    final class NeverAction: NetworkModuleAction {
        let finishes = LockedState(0)
        let rewrite: TimeInterval?
        init(rewrite: TimeInterval? = nil) { self.rewrite = rewrite }
        func performBeforeExecutingNetworkRequest(request: (any NetworkRequest)?, urlRequest: inout URLRequest) {
            if let rewrite { urlRequest.timeoutInterval = rewrite }
        }
        func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
            finishes.withLock { $0 += 1 }
        }
    }

    final class Hold: NetworkModuleAction {
        func prepare(
            _ urlRequest: URLRequest, context: ActionContext,
            completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
        ) {}
    }

    @Test(
        "when an action never prepares, should time out once at the URLRequest's timeout (60 s for a non-timeout), none past 10⁹ s",
        arguments: [0, -1, .nan, .infinity, -.infinity, 1e-300, 5, 1e9, 1e10, .greatestFiniteMagnitude]
            as [TimeInterval]
    )
    func neverPrepares(timeout: TimeInterval) {
        let clock = ManualDelayScheduler()
        let observer = NeverAction()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
            session: FakeNetworkSession(), actions: [observer, Hold()], completionExecutor: .immediate,
            delayScheduler: clock)
        var request = URLRequest(url: URL(string: "https://api.example.com/a")!)
        request.timeoutInterval = timeout
        let results = LockedState<[Result<NetworkResponse, NetworkError>]>([])
        module.perform(urlRequest: request) { result in results.withLock { $0.append(result) } }

        let expected: TimeInterval? = timeout.isFinite && timeout > 0 ? (timeout <= 1e9 ? timeout : nil) : 60
        if let expected {
            clock.advance(by: expected * 0.99)
            #expect(results.value.isEmpty)
            clock.advance(by: expected * 0.02 + 1e-9)
        } else {
            clock.advance(by: 2e9)
        }
        clock.runAll()

        #expect(results.value.count == (expected == nil ? 0 : 1))
        if expected != nil { #expect(results.value.first?.error == .timedOut) }
        #expect(observer.finishes.value == (expected == nil ? 0 : 1))
    }

    @Test("when an action rewrites the timeout to NaN before one that never prepares, should time out once after 60 s")
    func rewrittenToNaN() {
        let clock = ManualDelayScheduler()
        let observer = NeverAction(rewrite: .nan)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!),
            session: FakeNetworkSession(), actions: [observer, Hold()], completionExecutor: .immediate,
            delayScheduler: clock)
        let results = LockedState<[Result<NetworkResponse, NetworkError>]>([])
        module.perform(urlRequest: URLRequest(url: URL(string: "https://api.example.com/a")!, timeoutInterval: 5)) {
            result in results.withLock { $0.append(result) }
        }
        clock.advance(by: 61)
        clock.runAll()
        print("NaN rewrite: results=\(results.value.map(\.error))")
        #expect(results.value.count == 1)
        #expect(results.value.first?.error == .timedOut)
        #expect(observer.finishes.value == 1)
    }
}
