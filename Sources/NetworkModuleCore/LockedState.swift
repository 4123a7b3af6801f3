import Foundation

/// A value guarded by a lock: the one way this package shares mutable state between threads.
/// Every read and write goes through ``withLock(_:)``, so a read-modify-write is atomic. Never
/// call out to user code (completions, actions, sessions) inside `withLock`: take what you need
/// out, leave the closure, then call out. `package` for `NetworkModuleTesting`, not public API.
package final class LockedState<State>: @unchecked Sendable {
    // @unchecked Sendable is safe: the state is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    /// The state, in storage of its own and reached through a pointer: the lock already makes
    /// every access exclusive, so a stored `var` would only add Swift's run-time exclusivity
    /// check to every access (two calls into the runtime per lock, on every request's path).
    private let state: UnsafeMutablePointer<State>

    package init(_ initialState: State) {
        state = .allocate(capacity: 1)
        state.initialize(to: initialState)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with exclusive access to the state and returns what it returns.
    @discardableResult
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state.pointee)
    }
}
