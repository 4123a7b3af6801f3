import Foundation

/// A handle to a request in progress, returned at once by every `perform` call.
///
/// Cancelling completes the request with ``NetworkError/cancelled``, exactly once and through
/// the completion executor, at whichever step it is: being prepared by actions, in flight,
/// waiting to be retried, or finished with its completion waiting for the executor. Once
/// `cancel()` has returned, a completion that has not started gets ``NetworkError/cancelled``.
/// Cancelling twice, or once the completion has started, does nothing.
public protocol NetworkCancellable: Sendable {
    /// Cancels the request.
    func cancel()
}
