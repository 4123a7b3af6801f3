import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the framework's sessions report, in `URLSession`'s own terms, when they end a task
/// themselves.
extension URLError {
    /// What a session task reports to a caller whose task it cancelled, as `URLSession` does.
    static func cancelled(_ request: URLRequest) -> URLError {
        URLError(.cancelled, userInfo: request.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:])
    }

    /// What the framework reports when it ends a request at its timeout, as `URLSession` does.
    static func timedOut(_ url: URL?) -> URLError {
        URLError(.timedOut, userInfo: url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:])
    }
}
