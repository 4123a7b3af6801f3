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
    /// the same behaviour everywhere:
    /// - a request's `timeoutInterval` is honoured (Linux uses only the configuration's
    ///   `timeoutIntervalForRequest`): a shorter request timeout is enforced as a deadline for
    ///   the whole response, which then fails with `URLError.timedOut`;
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
