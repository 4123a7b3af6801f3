import Foundation

/// The action of ``NetworkModuleAction/metrics(redaction:_:)``.
struct MetricsAction: NetworkModuleAction {
    private let redaction: Redaction
    private let report: @Sendable (RequestMetrics) -> Void

    /// Creates the action; `redaction` masks ``RequestMetrics/url``, `report` gets each request's metrics.
    init(redaction: Redaction, report: @escaping @Sendable (RequestMetrics) -> Void) {
        self.redaction = redaction
        self.report = report
    }

    /// Reports the request's metrics.
    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        report(
            RequestMetrics(
                method: context.method,
                url: context.sentRequest.map { redaction.loggable($0.url) },
                attempts: context.attempt,
                totalDuration: context.elapsed,
                preparationDuration: context.preparationTime,
                inFlightDuration: context.timeInFlight,
                bytesSent: context.bytesSent,
                bytesReceived: context.bytesReceived,
                outcome: result.map(\.statusCode), phases: context.recorder?.observations.phases))
    }
}

extension NetworkModuleAction where Self == BuiltInAction {
    /// Reports ``RequestMetrics`` for each request, once, when its result is known: attempts,
    /// durations (total, preparation, in flight), bytes, the final status or error, and where the
    /// platform measures them (Apple platforms), the phases of the last attempt on the wire.
    ///
    /// ```swift
    /// actions: [.metrics { metrics in analytics.track("request", metrics.totalDuration, metrics.statusCode) }]
    /// ```
    ///
    /// `report` runs on the thread that finishes the request (never under a lock), just before the
    /// completion is delivered; forward the metrics rather than doing slow work there.
    ///
    /// - Parameters:
    ///   - redaction: which query values are masked in ``RequestMetrics/url``.
    ///   - report: receives the metrics of each request.
    public static func metrics(
        redaction: Redaction = .default, _ report: @escaping @Sendable (RequestMetrics) -> Void
    ) -> BuiltInAction {
        BuiltInAction(MetricsAction(redaction: redaction, report: report))
    }
}
