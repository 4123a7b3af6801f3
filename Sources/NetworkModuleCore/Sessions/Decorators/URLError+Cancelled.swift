import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLError {
    /// What a decorator reports to a caller whose task it cancelled, as `URLSession` does.
    static func cancelled(_ request: URLRequest) -> URLError {
        URLError(.cancelled, userInfo: request.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:])
    }
}
