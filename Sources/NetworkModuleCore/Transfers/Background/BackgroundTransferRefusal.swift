import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a background `URLSession` cannot do, each refused with its own message before anything is
/// sent: `URLError.unsupportedURL`, which the module delivers as
/// ``NetworkError/transportError(_:)-enum.case``, as for any request a session cannot send as
/// asked (a redirect policy on a plain `URLSession`).
enum BackgroundTransferRefusal {
    /// Linux: swift-corelibs-foundation has no background `URLSession`.
    case platform
    /// An upload whose body is not a file of the caller's (``RequestBody/file(_:contentType:)``).
    case bodyNotAFile
    /// A download whose request has a body.
    case downloadWithBody
    /// A redirect policy other than ``RedirectPolicy/follow``.
    case redirectPolicy
    /// A data task (``NetworkSession/dataTask(with:completionHandler:)``) on a `URLSession` whose
    /// configuration is a background one.
    case dataTask
    /// A prepared request with credential header fields (`names`), which the system would carry
    /// across redirects it follows unasked, when the app has not allowed that.
    case credentials(names: [String])
    /// A second live instance for the session `identifier` (and its state folder) in one process.
    case secondInstance(identifier: String)
    /// A module whose session hides the server-trust policy (the pins) that its transfers must
    /// keep: a session of the app's own, and no `serverTrust:` given.
    case serverTrustUnknown

    /// The error, with `url` as its failing URL.
    func error(url: URL?) -> URLError {
        URLError(.unsupportedURL, message: message, failingURL: url)
    }

    /// Whether a session with `configuration` runs no data task: a background one, which Apple's
    /// `URLSession` answers with an exception for a completion-handler task.
    static func refusesDataTasks(_ configuration: URLSessionConfiguration) -> Bool {
        configuration.identifier != nil
    }

    /// The task for `request` on such a session: it sends nothing, and fails as ``dataTask``.
    static func unsentDataTask(
        for request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        UnsentTask(answer: .failure(dataTask.error(url: request.url)), completionHandler: completionHandler)
    }

    /// ``error(url:)`` as the ``NetworkError`` a caller gets.
    func networkError(url: URL?) -> NetworkError {
        NetworkError(error(url: url))
    }

    var message: String {
        switch self {
        case .platform:
            "Background transfers need an Apple platform's background URLSession; swift-corelibs-foundation (Linux) "
                + "has none, so nothing was sent. Use download(request:to:) or perform(request:) instead."
        case .bodyNotAFile:
            "A background upload sends a file: give the request a RequestBody.file(_:contentType:) body. Background "
                + "sessions cannot upload Data or streams (nor a multipart form encoded to a temporary file), so "
                + "nothing was sent."
        case .downloadWithBody:
            "A background download sends no body: background sessions upload only files, so the request was not "
                + "sent. Upload the file with upload(request:id:) instead."
        case .redirectPolicy:
            "Background sessions follow every redirect without asking, so a redirect policy other than .follow "
                + "cannot be applied, and the request was not sent."
        case .dataTask:
            "This URLSession has a background configuration, whose sessions run only upload and download tasks "
                + "(a data task would raise an exception), so the request was not sent. Use BackgroundTransfers for "
                + "background uploads and downloads, and a default or ephemeral configuration for other requests."
        case .credentials(let names):
            "The request carries credentials (\(names.joined(separator: ", "))), and background sessions follow "
                + "redirects without asking the app, so they could reach another origin: it was not sent. If your "
                + "server redirects only to origins you trust, create BackgroundTransfers with "
                + "credentialsMayFollowRedirects: true."
        case .secondInstance(let identifier):
            "Another BackgroundTransfers for \(identifier) is alive in this process, and the system delivers the "
                + "session's events to the first one made: this one sends nothing and reports nothing. Make one per "
                + "identifier when the app launches and keep it."
        case .serverTrustUnknown:
            "The module's session is neither URLSessionTransport nor one of the framework's decorators in front of "
                + "it, so the server-trust policy (the pins) its requests are held to is unknown, and a background "
                + "session would trust any server the system trusts: nothing was sent. Create BackgroundTransfers "
                + "with serverTrust: the transport's policy (.system if it pins nothing)."
        }
    }
}
