import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` on a plain `URLSession`: what
/// `DefaultNetworkModule(requestBuilder:session:…)` makes of `session: URLSession.shared`.
///
/// A wrapper, not a conformance of `URLSession` itself: a conformance would add a second
/// `dataTask(with:completionHandler:)` to `URLSession`, differing only in its return type, and
/// make every `URLSession.shared.dataTask(with: request) { … }` in a user's file that imports
/// the framework ambiguous, and a user's existing code must keep compiling. `package`, so that the package's tests,
/// demo and benchmarks can hand a plain `URLSession` to code that takes any ``NetworkSession``.
///
/// On Apple platforms a task is `URLSession`'s own data task. On Linux, where
/// swift-corelibs-foundation behaves differently, the task is adapted so that callers see the
/// same behaviour where the framework can give it, and one documented behaviour where it
/// cannot:
/// - a request's `timeoutInterval` is enforced, and the request then fails with
///   `URLError.timedOut`. **One difference remains:** on Apple platforms it is an idle timeout
///   (the longest wait for the next bytes); on Linux, where a completion-handler task reports
///   no progress, it is a deadline for the whole response, counted from `resume()`.
///   ``URLSessionTransport`` makes it an idle timeout on Linux too. On Linux a timeout that is
///   zero, negative or NaN means the default 60 seconds, an infinite or huge one none (and no
///   response lasts more than 7 days); no value traps.
/// - the `URLSessionDataTask` is created by `resume()`, so a task cancelled before it is
///   resumed never reaches the session. Cancelling reports `URLError.cancelled` at once. If
///   the session has a `URLCache` (`URLSession.shared` has), the running `URLSessionDataTask`
///   is not cancelled, because swift-corelibs-foundation can trap when a task is cancelled
///   just as it completes there; it runs to its end, or until Linux's own timer stops it one
///   second after the request's timeout, and its answer is dropped. Give the session a
///   configuration whose `urlCache` is `nil` to have running tasks cancelled.
/// - a connection closed before the whole body arrived is reported as
///   `URLError.networkConnectionLost` (Linux reports `URLError.unknown`), and a status line
///   that cannot be read (not HTTP/1.x, a code that is not a number) as
///   `URLError.badServerResponse` (Linux: `.unsupportedURL`).
package struct URLSessionAdapter: TransferringSession {
    /// The session requests are sent on.
    package let urlSession: URLSession

    /// Whether the session's configuration is a background one, whose sessions run no data task
    /// (Apple's raises an exception for a completion-handler task): its requests are refused.
    let isBackground: Bool

    /// Wraps `urlSession`.
    package init(_ urlSession: URLSession) {
        self.urlSession = urlSession
        self.isBackground = BackgroundTransferRefusal.refusesDataTasks(urlSession.configuration)
    }

    /// Creates a data task of ``urlSession`` for `request` (adapted on Linux, see above); on a
    /// session with a background configuration, a task that sends nothing and fails with
    /// `URLError.unsupportedURL` (Apple's background sessions raise an exception for it).
    package func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        if isBackground {
            return BackgroundTransferRefusal.unsentDataTask(for: request, completionHandler: completionHandler)
        }
        // Off the session's serial delegate queue: see CompletionHandlerQueue.
        let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
            CompletionHandlerQueue.shared.call(completionHandler, data: data, response: response, error: error)
        }
        #if canImport(FoundationNetworking)
            return LinuxDataTask(session: urlSession, request: request, completionHandler: handler)
        #else
            return URLSessionDataTaskBox(task: urlSession.dataTask(with: request, completionHandler: handler))
        #endif
    }

    /// A data task with `transfer` applied to its body once it has arrived whole; for a redirect
    /// policy other than ``RedirectPolicy/follow`` a task that sends nothing and fails with
    /// `URLError.unsupportedURL`: a completion-handler task of a `URLSession` whose delegate is
    /// not the framework's shows no redirect the framework could act on.
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        BufferedSession(base: self, name: "A plain URLSession").transferTask(
            with: request, transfer: transfer, completionHandler: completionHandler)
    }
}

#if !canImport(FoundationNetworking)
    /// A `URLSessionDataTask` as a ``NetworkSessionTask``, without a retroactive conformance of
    /// the Foundation class.
    private struct URLSessionDataTaskBox: NetworkSessionTask {
        let task: URLSessionDataTask

        func resume() { task.resume() }
        func cancel() { task.cancel() }
    }
#endif
