import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a background transfer ended, as the ledger writes it down: enough to give the app its
/// result after a relaunch, when nothing of the process that started the transfer is left.
///
/// Made from what `URLSession`'s delegate reports (``init(_:collected:bodyTooLarge:limit:)``), and turned
/// into the result the app gets (``result(request:acceptableStatusCodes:duration:)``) as the
/// pipeline interprets any response: the same errors, with the same messages.
struct BackgroundTransferOutcome: Codable, Equatable, Sendable {
    enum Ending: Codable, Equatable, Sendable {
        /// The server answered, whatever the status. `body` is an upload's reply, or the body
        /// of a download's status that the request does not accept; empty for a download's file.
        case response(statusCode: Int, headers: [String: String], url: URL?, body: Data)
        /// The app cancelled the transfer: ``NetworkError/cancelled``.
        case cancelled
        /// The body passed the limit, in bytes.
        case tooLarge(limit: Int)
        /// The session's error, or the framework's (a file that cannot be placed, a transfer
        /// the system no longer knows): its domain, code, message and failing URL.
        case failed(domain: String, code: Int, message: String?, failingURL: URL?)
        /// The system answered with no HTTP response.
        case invalidResponse
    }

    var ending: Ending
    /// The body bytes the system sent and received, for the actions' context.
    var bytesSent: Int64 = 0
    var bytesReceived: Int64 = 0

    /// What the delegate says when a task ends. A value made and used on the delegate's thread:
    /// `HTTPURLResponse` is not `Sendable` everywhere.
    struct SystemCompletion {
        /// The task's response, if any.
        var response: URLResponse?
        /// The task's error, if any.
        var error: (any Error)?
        /// The body of a download whose status the request does not accept, read from its file.
        var body: Data?
        /// Why the system cancelled the task (`NSURLErrorBackgroundTaskCancelledReasonKey`):
        /// 0 the user force-quit the app, 1 background updates are off, 2 the system lacked
        /// resources.
        var cancelReason: Int?
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
    }

    init(_ ending: Ending, bytesSent: Int64 = 0, bytesReceived: Int64 = 0) {
        self.ending = ending
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }

    /// The outcome of a task that ended with `completion`, with `collected` as its body (an
    /// upload's reply) unless the completion brings one; `bodyTooLarge` when the body passed
    /// `limit` (the task was cancelled for it, so its error is not the story).
    init(_ completion: SystemCompletion, collected: Data = Data(), bodyTooLarge: Bool, limit: Int) {
        let ending: Ending
        if bodyTooLarge {
            ending = .tooLarge(limit: limit)
        } else if let error = completion.error {
            ending = Self.ending(of: error, cancelReason: completion.cancelReason)
        } else if let response = completion.response as? HTTPURLResponse {
            ending = .response(
                statusCode: response.statusCode, headers: HTTPHeaders(response.allHeaderFields).dictionary,
                url: response.url,
                body: completion.body ?? collected)
        } else {
            ending = .invalidResponse
        }
        self.init(ending, bytesSent: completion.bytesSent, bytesReceived: completion.bytesReceived)
    }

    /// A transfer the system no longer had at launch: it dropped it, or the app stopped before
    /// handing it over.
    static let lost = BackgroundTransferOutcome(
        .failed(
            domain: NSURLErrorDomain, code: URLError.Code.backgroundSessionWasDisconnected.rawValue,
            message: "The system no longer had this background transfer when the app was launched again (it "
                + "dropped it, or the app stopped before handing it over), so its result is unknown. Start it again.",
            failingURL: nil))

    /// The app's result: the response interpreted as the pipeline interprets any response
    /// (`request` is the request as sent, `acceptableStatusCodes` the request's), or the error.
    func result(
        request: URLRequest, acceptableStatusCodes: AcceptableStatusCodes, duration: TimeInterval
    ) -> Result<NetworkResponse, NetworkError> {
        switch ending {
        case .response(let statusCode, let headers, let url, let body):
            guard
                let response = HTTPURLResponse(
                    url: url ?? request.url ?? URL(fileURLWithPath: "/"), statusCode: statusCode,
                    httpVersion: "HTTP/1.1", headerFields: headers)
            else { return .failure(.invalidResponse) }
            return ResponseInterpreter.interpret(
                data: body, response: response, error: nil, request: request,
                acceptableStatusCodes: acceptableStatusCodes, duration: duration)
        case .cancelled:
            return .failure(.cancelled)
        case .tooLarge(let limit):
            return .failure(.responseTooLarge(limit: limit))
        case .invalidResponse:
            return .failure(.invalidResponse)
        case .failed(let domain, let code, let message, let failingURL):
            var userInfo: [String: Any] = [:]
            if let message { userInfo[NSLocalizedDescriptionKey] = message }
            if let failingURL { userInfo[NSURLErrorFailingURLErrorKey] = failingURL }
            if domain == NSURLErrorDomain, code == URLError.Code.cancelled.rawValue {
                // The system cancelled it, not the app: not `.cancelled`, which a caller may
                // rightly ignore as its own doing.
                return .failure(
                    .transportError(TransportFailure(code: .cancelled, failingURL: failingURL, message: message)))
            }
            return .failure(NetworkError(NSError(domain: domain, code: code, userInfo: userInfo)))
        }
    }

    private static func ending(of error: any Error, cancelReason: Int?) -> Ending {
        if let networkError = error as? NetworkError, case .responseTooLarge(let limit) = networkError {
            return .tooLarge(limit: limit)
        }
        let nsError = error as NSError
        var message = nsError.userInfo[NSLocalizedDescriptionKey] as? String
        if isURLCancellation(nsError) {
            message = cancelledMessage(reason: cancelReason)
        }
        return .failed(
            domain: nsError.domain, code: nsError.code, message: message,
            failingURL: nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL)
    }

    /// Why the system cancelled a transfer, in words.
    static func cancelledMessage(reason: Int?) -> String {
        let why =
            switch reason {
            case 0: "the user force-quit the app"
            case 1: "background updating is off for the app"
            case 2: "the system lacked the resources"
            default: "for a reason it did not give"
            }
        return "The system cancelled the background transfer: \(why). A download's resume data, if the system "
            + "gave any, is kept for its next attempt under the same ID."
    }
}
