import Foundation

/// Keeps `inFlight` requests going until `total` have completed, and waits for the last.
///
/// `send` starts one request and must call the completion it is given exactly once.
final class LoadDriver: @unchecked Sendable {
    // @unchecked Sendable is safe: `started`, `completed`, `failures` and `onCompleted` are
    // only touched under `lock`.
    private let lock = NSLock()
    private let total: Int
    private var started = 0
    private var completed = 0
    private var failures = 0
    private let done = DispatchSemaphore(value: 0)
    private let send: (@escaping @Sendable (Bool) -> Void) -> Void
    private let onCompleted: (@Sendable (Int) -> Void)?

    init(
        total: Int, onCompleted: (@Sendable (Int) -> Void)? = nil,
        send: @escaping (@escaping @Sendable (Bool) -> Void) -> Void
    ) {
        self.total = total
        self.send = send
        self.onCompleted = onCompleted
    }

    /// Runs the load and returns the wall time in seconds and the number of failed requests.
    func run(inFlight: Int) -> (seconds: Double, failures: Int) {
        let start = nowNanoseconds()
        for _ in 0..<min(inFlight, total) { launchNext() }
        done.wait()
        let seconds = Double(nowNanoseconds() - start) / 1e9
        return (seconds, lock.withLock { failures })
    }

    private func launchNext() {
        let shouldStart = lock.withLock { () -> Bool in
            guard started < total else { return false }
            started += 1
            return true
        }
        guard shouldStart else { return }
        send { [self] succeeded in
            let (count, finished) = lock.withLock { () -> (Int, Bool) in
                completed += 1
                if !succeeded { failures += 1 }
                return (completed, completed == total)
            }
            onCompleted?(count)
            if finished { done.signal() } else { launchNext() }
        }
    }
}
