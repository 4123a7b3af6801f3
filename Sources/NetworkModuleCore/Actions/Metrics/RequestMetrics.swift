import Foundation

/// What one request cost, from `perform` to its result: reported by ``NetworkModuleAction/metrics(redaction:_:)``.
public struct RequestMetrics: Sendable, Equatable {
    /// The method, for example `"GET"`.
    public let method: String
    /// The URL of the last attempt, secret query values masked; `nil` if nothing was sent.
    public let url: String?
    /// The attempts started: `1` without retries. A request cancelled or failed while an attempt
    /// was being prepared counts that attempt.
    public let attempts: Int
    /// Seconds from `perform` to the result.
    public let totalDuration: TimeInterval
    /// Seconds spent in preparation over all attempts: mostly waiting for actions such as
    /// authentication to get a token.
    public let preparationDuration: TimeInterval
    /// Seconds between handing each attempt to the session and its answer, summed.
    public let inFlightDuration: TimeInterval
    /// Body bytes sent, over all attempts.
    public let bytesSent: Int
    /// Body bytes received, over all attempts, error responses included.
    public let bytesReceived: Int
    /// The final status code, or the error the request failed with.
    public let outcome: Result<Int, NetworkError>
    /// Where the last answered attempt's time went on the wire (lookup, connect, TLS, first
    /// byte…), as the platform measured it; `nil` where it measures nothing (Linux), for a
    /// request that was never answered, and from a session that reports no timings.
    public let phases: RequestPhases?

    /// Creates metrics without phases.
    public init(
        method: String, url: String?, attempts: Int, totalDuration: TimeInterval, preparationDuration: TimeInterval,
        inFlightDuration: TimeInterval, bytesSent: Int, bytesReceived: Int, outcome: Result<Int, NetworkError>
    ) {
        self.init(
            method: method, url: url, attempts: attempts, totalDuration: totalDuration,
            preparationDuration: preparationDuration, inFlightDuration: inFlightDuration, bytesSent: bytesSent,
            bytesReceived: bytesReceived, outcome: outcome, phases: nil)
    }

    /// Creates metrics; the metrics action does, tests may too.
    public init(
        method: String, url: String?, attempts: Int, totalDuration: TimeInterval, preparationDuration: TimeInterval,
        inFlightDuration: TimeInterval, bytesSent: Int, bytesReceived: Int, outcome: Result<Int, NetworkError>,
        phases: RequestPhases?
    ) {
        self.phases = phases
        self.method = method
        self.url = url
        self.attempts = attempts
        self.totalDuration = totalDuration
        self.preparationDuration = preparationDuration
        self.inFlightDuration = inFlightDuration
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.outcome = outcome
    }

    /// The final HTTP status, of a success or of an HTTP error; `nil` for other failures.
    public var statusCode: Int? {
        switch outcome {
        case .success(let statusCode): statusCode
        case .failure(let error): error.statusCode
        }
    }
}
