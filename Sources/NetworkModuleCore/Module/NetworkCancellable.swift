import Foundation

/// A handle to a request in progress, returned at once by every `perform` call.
///
/// Cancelling completes the request with ``NetworkError/cancelled``, exactly once and through
/// the completion executor, at whichever step it is: being prepared by actions, in flight,
/// or waiting to be retried. Cancelling twice, or after the request completed, does nothing.
public protocol NetworkCancellable: Sendable {
    /// Cancels the request.
    func cancel()
}
