import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What swift-corelibs-foundation's `URLSession` does differently from Apple's, and how the
/// framework evens it out. Both `URLSession`'s own conformance and ``URLSessionTransport``
/// use these, so the answers are the same whichever session a module runs on.
enum LinuxURLSessionQuirks {
    /// Whether the platform's `URLSession` needs the adjustments below.
    #if canImport(FoundationNetworking)
        static let apply = true
    #else
        static let apply = false
    #endif

    /// Maps libcurl-specific errors to the codes Apple's `URLSession` reports: a connection
    /// closed before the whole body arrived is `.networkConnectionLost` (Linux: `.unknown`,
    /// "transfer closed with N bytes remaining"), and a response that is not HTTP/1.x is
    /// `.badServerResponse` (Linux: `.unsupportedURL`, "Received HTTP/0.9").
    static func normalized(_ error: any Error) -> any Error {
        guard apply, let urlError = error as? URLError else { return error }
        let message = (urlError as NSError).localizedDescription
        if urlError.code == .unknown && message.contains("transfer closed with") {
            return URLError(.networkConnectionLost, userInfo: urlError.userInfo)
        }
        if urlError.code == .unsupportedURL && message.contains("HTTP/0.9") {
            return URLError(.badServerResponse, userInfo: urlError.userInfo)
        }
        return error
    }
}
