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

/// A deadline for one response: Linux's `URLSession` ignores `URLRequest.timeoutInterval`
/// (only the configuration's `timeoutIntervalForRequest` applies), so the framework enforces
/// the request's timeout itself, as a deadline for the whole response.
///
/// It also bounds a task that Linux's `URLSession` would leave waiting forever (a 401 with
/// `WWW-Authenticate` on a session without a delegate): such a task ends as timed out.
final class ResponseDeadline: Sendable {
    private let timer: LockedState<(any DispatchSourceTimer)?>

    /// Starts a deadline of `seconds` that calls `onExpiry` unless cancelled first.
    init(seconds: TimeInterval, onExpiry: @escaping @Sendable () -> Void) {
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.setEventHandler(handler: onExpiry)
        source.schedule(deadline: .now() + seconds)
        timer = LockedState(source)
        source.resume()
    }

    /// Stops the deadline; harmless after it expired or was cancelled.
    func cancel() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}
