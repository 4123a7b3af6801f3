import Foundation
import NetworkModuleCore

/// A completion executor that runs work immediately, like `.immediate`, and counts every
/// delivery, so a test can assert that each request completed exactly once.
///
/// ```swift
/// let executor = RecordingExecutor()
/// let module = DefaultNetworkModule(requestBuilder: builder, session: session, completionExecutor: executor)
/// module.perform(request: request) { _ in }.cancel()
/// #expect(executor.deliveryCount == 1)   // XCTAssertEqual(executor.deliveryCount, 1)
/// ```
///
/// For tests that need no count, use the core's `.immediate` (`ImmediateExecutor`): with a
/// ``FakeNetworkSession`` a request then completes inside `perform`, on the test's thread.
public final class RecordingExecutor: CompletionExecutor {
    private let count = LockedState(0)

    /// Creates a recording executor.
    public init() {}

    /// How many pieces of work were executed.
    public var deliveryCount: Int {
        count.withLock { $0 }
    }

    /// Counts and runs `work` now, on the calling thread.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        count.withLock { $0 += 1 }
        work()
    }
}
