import Foundation

/// Whether the network is reachable, and the requests waiting for it: what a retry policy waits
/// on, with ``RetryPolicy/waitingForNetwork(on:upTo:)``, instead of spending its attempts on a
/// dead link.
///
/// A request that fails for lack of network (``NetworkError/notConnectedToInternet``,
/// ``NetworkError/networkConnectionLost``, or a transport error saying that data is not
/// allowed, roaming is off or a call is active) while the network is unreachable waits until it
/// is reachable again, then is retried at once; if it stays unreachable past the policy's time
/// limit, or the app calls ``stopWaiting()``, the request fails with the error it had. A request
/// that fails while the network is reachable is retried on the policy's backoff, as any other.
/// Waiting needs a retry left: it never adds an attempt. A request cancelled while it waits
/// completes with ``NetworkError/cancelled`` at once, as always.
///
/// Keep one for the app and share it between modules, so that ``waitingCount`` counts every
/// waiting request:
///
/// ```swift
/// let connectivity = NetworkConnectivity()
/// let module = DefaultNetworkModule(
///     requestBuilder: builder,
///     actions: [.retry(RetryPolicy.default.waitingForNetwork(on: connectivity, upTo: 120))]
/// )
/// ```
///
/// ``init(delayScheduler:)`` follows the system: `NWPathMonitor` on Apple platforms, where the
/// network counts as reachable when its path is satisfied or may be satisfied by a new connection
/// (an on-demand VPN, a cellular link that must be activated: sending is what brings those up). Linux has
/// no such monitor, so there the network counts as reachable (requests are retried on the
/// backoff, as without waiting) unless you report it with ``update(isReachable:)``, from a
/// monitor of your own. Tests use ``init(isReachable:delayScheduler:)``, which follows only
/// ``update(isReachable:)``, with a `ManualDelayScheduler` for the time limits.
public final class NetworkConnectivity: Sendable {
    private let waitlist: LockedState<ConnectivityWaitlist>
    private let delayScheduler: any DelayScheduler
    /// The system's monitor, for an instance that follows it; cancelled when this is released.
    private let monitor: SystemPathMonitor?

    /// Follows the system's view of the network: `NWPathMonitor` on Apple platforms, where the
    /// network counts as reachable until the monitor first reports; on Linux, always reachable
    /// unless ``update(isReachable:)`` says otherwise.
    ///
    /// - Parameter delayScheduler: runs the time limits of waiting requests; a dispatch timer
    ///   when `nil`.
    public convenience init(delayScheduler: (any DelayScheduler)? = nil) {
        self.init(isReachable: true, delayScheduler: delayScheduler, followingSystem: true)
    }

    /// Follows only ``update(isReachable:)``, starting from `isReachable`: for tests, and for apps
    /// that watch the network with a monitor of their own.
    ///
    /// - Parameters:
    ///   - isReachable: whether the network is reachable until the first update.
    ///   - delayScheduler: runs the time limits of waiting requests; a dispatch timer when `nil`
    ///     (a `ManualDelayScheduler` in tests).
    public convenience init(isReachable: Bool, delayScheduler: (any DelayScheduler)? = nil) {
        self.init(isReachable: isReachable, delayScheduler: delayScheduler, followingSystem: false)
    }

    private init(isReachable: Bool, delayScheduler: (any DelayScheduler)?, followingSystem: Bool) {
        let waitlist = LockedState(ConnectivityWaitlist(isReachable: isReachable))
        self.waitlist = waitlist
        self.delayScheduler = delayScheduler ?? DispatchDelayScheduler()
        self.monitor =
            followingSystem
            ? SystemPathMonitor { status in waitlist.withLock { $0.update(isReachable: status.isReachable) }.perform() }
            : nil
    }

    deinit {
        monitor?.cancel()
    }

    /// Whether the network is reachable now, as last reported.
    public var isReachable: Bool {
        waitlist.withLock { $0.isReachable }
    }

    /// How many requests are waiting for the network now.
    public var waitingCount: Int {
        waitlist.withLock { $0.count }
    }

    /// Reports whether the network is reachable. When it becomes reachable, every waiting request
    /// is retried at once.
    public func update(isReachable: Bool) {
        waitlist.withLock { $0.update(isReachable: isReachable) }.perform()
    }

    /// Ends every wait now: each waiting request fails with the error that made it wait (when the
    /// user leaves the screen that asked, say). Requests that fail later wait as before.
    public func stopWaiting() {
        waitlist.withLock { $0.stopAll() }.perform()
    }

    /// Makes request `id` wait for the network for at most `limit` seconds, then calls `resume`
    /// once, with `true` when the network came back and `false` when the wait ended without it.
    /// Returns `false`, and never calls `resume`, when the network is reachable.
    func wait(_ id: UUID, upTo limit: TimeInterval, resume: @escaping @Sendable (_ reachable: Bool) -> Void) -> Bool {
        guard waitlist.withLock({ $0.wait(id, resume: resume) }) else { return false }
        let timer = delayScheduler.scheduleLimit(after: limit) { [waitlist] in
            waitlist.withLock { $0.timeLimitPassed(for: id) }.perform()
        }
        waitlist.withLock { $0.timerScheduled(timer, for: id) }?.cancel()
        return true
    }

    /// Request `id` ended: if it was waiting, it waits no more.
    func requestEnded(_ id: UUID) {
        waitlist.withLock { $0.requestEnded(id) }?.cancel()
    }
}
