import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The action of ``NetworkModuleAction/delay(_:scheduler:)``.
struct DelayAction: NetworkModuleAction {
    /// Seconds each attempt waits.
    let delay: TimeInterval
    private let scheduler: any DelayScheduler

    /// Creates an action that holds each attempt back for `delay` seconds, waiting with `scheduler`.
    init(_ delay: TimeInterval, scheduler: (any DelayScheduler)?) {
        self.delay = delay
        self.scheduler = scheduler ?? DispatchDelayScheduler()
    }

    /// Lets the request go on after the delay, unchanged.
    func prepare(
        _ urlRequest: URLRequest, context: ActionContext,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        _ = scheduler.scheduleWait(after: delay) { completion(.success(urlRequest)) }
    }
}

extension NetworkModuleAction where Self == BuiltInAction {
    /// Holds every attempt back for `delay` seconds before it is sent: simulated latency for
    /// demos, previews and tests of loading states.
    ///
    /// ```swift
    /// actions: [.delay(1.5)]   // each attempt waits 1.5 s before it is sent
    /// ```
    ///
    /// The wait goes through `scheduler` (a dispatch timer by default; `ManualDelayScheduler`
    /// in tests, so no test sleeps). It counts as preparation: cancelling the request during the
    /// wait delivers ``NetworkError/cancelled`` at once and nothing is sent, and a wait longer than
    /// the request's timeout fails it with ``NetworkError/timedOut``. Negative and NaN delays count
    /// as 0, and no delay is longer than 10⁹ seconds.
    public static func delay(_ delay: TimeInterval, scheduler: (any DelayScheduler)? = nil) -> BuiltInAction {
        BuiltInAction(DelayAction(delay, scheduler: scheduler))
    }
}
