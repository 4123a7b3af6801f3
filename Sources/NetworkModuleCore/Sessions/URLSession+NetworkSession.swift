import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionDataTask: NetworkSessionTask {}

extension URLSession: NetworkSession {
    /// Creates a data task for `request`.
    ///
    /// On Apple platforms this is `URLSession`'s own data task. On Linux, where
    /// swift-corelibs-foundation behaves differently, the task is adapted so that callers see
    /// the same behaviour where the framework can give it, and one documented behaviour where
    /// it cannot:
    /// - a request's `timeoutInterval` is enforced, and the request then fails with
    ///   `URLError.timedOut`. **One difference remains:** on Apple platforms it is an idle
    ///   timeout (the longest wait for the next bytes); on Linux, where a completion-handler
    ///   task reports no progress, it is a deadline for the whole response, counted from
    ///   `resume()`. ``URLSessionTransport`` makes it an idle timeout on Linux too. On Linux a
    ///   timeout that is zero, negative or NaN means the default 60 seconds, an infinite or
    ///   huge one none (and no response lasts more than 7 days); no value traps.
    /// - the `URLSessionDataTask` is created by `resume()`, so a task cancelled before it is
    ///   resumed never reaches the session. Cancelling reports `URLError.cancelled` at once.
    ///   If the session has a `URLCache` (`URLSession.shared` has), the running
    ///   `URLSessionDataTask` is not cancelled, because swift-corelibs-foundation can trap
    ///   when a task is cancelled just as it completes there; it runs to its end, or until
    ///   Linux's own timer stops it one second after the request's timeout, and its answer is
    ///   dropped. Give the session a configuration whose `urlCache` is `nil` to have running
    ///   tasks cancelled.
    /// - a connection closed before the whole body arrived is reported as
    ///   `URLError.networkConnectionLost` (Linux reports `URLError.unknown`), and a response
    ///   that is not HTTP/1.x as `URLError.badServerResponse` (Linux: `.unsupportedURL`).
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        #if canImport(FoundationNetworking)
            return LinuxDataTask(session: self, request: request, completionHandler: completionHandler)
        #else
            let task: URLSessionDataTask = dataTask(with: request, completionHandler: completionHandler)
            return task
        #endif
    }
}
