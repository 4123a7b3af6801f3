import Foundation

#if canImport(Network)
    import Network
#endif

/// The system's view of the network for ``NetworkConnectivity``: an `NWPathMonitor` on Apple
/// platforms, which reports its path's ``PathStatus`` at start and on every change. Linux has no
/// path monitor: there this reports nothing, and the network counts as reachable.
final class SystemPathMonitor: @unchecked Sendable {
    // @unchecked Sendable is safe: the only mutable state, `monitor`, is read and written only
    // while holding `lock`; NWPathMonitor itself calls back on the queue it is given.
    private let lock = NSLock()
    #if canImport(Network)
        private var monitor: NWPathMonitor?
    #endif

    /// Starts monitoring, calling `changed` with the path's status, on a queue of its own, until
    /// ``cancel()``.
    init(_ changed: @escaping @Sendable (_ status: PathStatus) -> Void) {
        #if canImport(Network)
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { path in changed(PathStatus(path.status)) }
            lock.withLock { self.monitor = monitor }
            monitor.start(queue: DispatchQueue(label: "NetworkModule.NetworkConnectivity"))
        #endif
    }

    /// Stops monitoring.
    func cancel() {
        #if canImport(Network)
            lock.withLock {
                monitor?.cancel()
                monitor = nil
            }
        #endif
    }
}
