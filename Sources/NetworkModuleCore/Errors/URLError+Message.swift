import Foundation

extension URLError {
    /// A `code` error whose description is `message`, for `failingURL`: how the framework says
    /// why it failed or refused a request in `URLSession`'s own terms.
    init(_ code: Code, message: String, failingURL: URL?) {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let failingURL { userInfo[NSURLErrorFailingURLErrorKey] = failingURL }
        self.init(code, userInfo: userInfo)
    }
}
