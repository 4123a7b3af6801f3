import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Holds every attempt back for a fixed time before it is sent: simulated latency for demos,
/// previews and tests of loading states.
///
/// ```swift
/// actions: [.delay(1.5)]   // each attempt waits 1.5 s before it is sent
/// ```
///
/// The wait goes through a ``DelayScheduler`` (a dispatch timer by default; `ManualDelayScheduler`
/// in tests, so no test sleeps). It counts as preparation: cancelling the request during the
/// wait delivers ``NetworkError/cancelled`` at once and nothing is sent, and a wait longer than
/// the request's timeout fails it with ``NetworkError/timedOut``. Negative and NaN delays count
/// as 0, and no delay is longer than 10⁹ seconds.
public struct DelayAction: NetworkModuleAction {
    /// Seconds each attempt waits.
    public let delay: TimeInterval
    private let scheduler: any DelayScheduler

    /// Creates an action that holds each attempt back for `delay` seconds, waiting with `scheduler`.
    public init(_ delay: TimeInterval, scheduler: (any DelayScheduler)? = nil) {
        self.delay = delay.isNaN ? 0 : min(max(0, delay), 1e9)
        self.scheduler = scheduler ?? DispatchDelayScheduler()
    }

    /// Lets the request go on after the delay, unchanged.
    public func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        _ = scheduler.schedule(after: delay) { completion(.success(urlRequest)) }
    }
}

extension NetworkModuleAction where Self == DelayAction {
    /// Holds each attempt back for `delay` seconds before it is sent: `.delay(1.5)`.
    public static func delay(_ delay: TimeInterval, scheduler: (any DelayScheduler)? = nil) -> DelayAction {
        DelayAction(delay, scheduler: scheduler)
    }
}
