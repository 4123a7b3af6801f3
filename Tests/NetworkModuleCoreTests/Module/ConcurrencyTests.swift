import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("when many threads perform and cancel at once, should complete every request exactly once")
    func manyThreads() async {
        let scheduler = ManualDelayScheduler()
        let session = FakeNetworkSession(delayScheduler: scheduler)
        session.stub(.path("/v2/ok"), with: .json(User(id: 1, name: "Ada")))
        session.stub(.path("/v2/fail"), with: .status(500))
        session.stub(.path("/v2/slow"), with: .status(200).delayed(by: 0.001))
        let executor = RecordingExecutor()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
            actions: [ProbeAction(prepare: .setHeader("X-Probe", "1"))], completionExecutor: executor)
        let counts = LockedState([String: Int]())
        let threads = 8
        let perThread = 250
        let group = DispatchGroup()

        for thread in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                for index in 0..<perThread {
                    let path = ["ok", "fail", "slow"][(thread + index) % 3]
                    let handle = module.perform(request: TestRequest(path: path)) { result in
                        let key: String
                        switch result {
                        case .success: key = "success"
                        case .failure(.cancelled): key = "cancelled"
                        case .failure: key = "failure"
                        }
                        counts.withLock { $0[key, default: 0] += 1 }
                    }
                    if index % 5 == 0 { handle.cancel() }
                }
                group.leave()
            }
        }
        #expect(await group.emptied(within: 60), "the sending threads should finish")
        scheduler.runAll()  // the slow answers that were not cancelled arrive now

        var expected = [String: Int]()
        for thread in 0..<threads {
            for index in 0..<perThread {
                switch (thread + index) % 3 {
                case 0: expected["success", default: 0] += 1
                case 1: expected["failure", default: 0] += 1
                default: expected[index % 5 == 0 ? "cancelled" : "success", default: 0] += 1
                }
            }
        }
        #expect(counts.value == expected)
        #expect(executor.deliveryCount == threads * perThread)
        #expect(scheduler.pendingCount == 0)
    }
}
