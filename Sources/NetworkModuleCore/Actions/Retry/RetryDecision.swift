import Foundation

/// An action's answer to "should this failed attempt be sent again?".
public enum RetryDecision: Equatable, Sendable {
    /// Deliver the failure (unless a later action retries).
    case doNotRetry
    /// Send the request again now.
    case retry
    /// Send the request again after this many seconds.
    case retryAfter(TimeInterval)
}
