import Foundation

/// Waits for `blockingWait` on a thread of its own and hands back what it returned.
///
/// Swift Testing runs every test on Swift concurrency's cooperative pool, which has one thread
/// per core: two on a CI machine. A test that blocks one of them on a semaphore or a group
/// stalls every other test in the process for as long as it waits, and the integration tests'
/// timeouts then look late. Tests that must wait for other threads wait through this instead.
package func waitOffThePool<Value: Sendable>(_ blockingWait: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: blockingWait()) }
    }
}

extension DispatchSemaphore {
    /// Waits up to `seconds` for a signal without holding a cooperative thread: `true` if one came.
    package func signalled(within seconds: TimeInterval) async -> Bool {
        await waitOffThePool { self.wait(timeout: .now() + seconds) == .success }
    }
}

extension DispatchGroup {
    /// Waits up to `seconds` for the group to empty without holding a cooperative thread: `true`
    /// if it did.
    package func emptied(within seconds: TimeInterval) async -> Bool {
        await waitOffThePool { self.wait(timeout: .now() + seconds) == .success }
    }
}
