import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// XCTest runs its tests on the main thread, so it can turn the main run loop and check the
/// default executor for real.
final class MainQueueExecutorTests: XCTestCase {
    func test_whenExecutorIsMain_shouldDeliverOnMainThreadAfterPerformReturns() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, completionExecutor: .main)
        let delivered = expectation(description: "completion")
        let onMain = LockedState<Bool?>(nil)

        module.perform(request: TestRequest()) { _ in
            onMain.withLock { $0 = Thread.isMainThread }
            delivered.fulfill()
        }
        XCTAssertNil(onMain.value, "the main executor delivers asynchronously, never inside perform")

        wait(for: [delivered], timeout: 5)
        XCTAssertEqual(onMain.value, true)
    }
}
