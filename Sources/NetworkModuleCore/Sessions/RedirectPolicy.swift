import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What happens when a server answers with a redirect (a `3xx` with a `Location`): follow it,
/// refuse it, or decide at each hop.
///
/// A module has one policy for all its requests (`DefaultNetworkModule(…, redirectPolicy:)`,
/// ``follow`` by default), and a request may name its own (``NetworkRequest/redirectPolicy``).
///
/// ```swift
/// struct StartLogin: NetworkRequest {
///     var path: String { "/oauth/authorize" }
///     var redirectPolicy: RedirectPolicy? { .refuse }   // the caller reads `Location` itself
///     var acceptableStatusCodes: AcceptableStatusCodes { [302] }
/// }
/// ```
///
/// A refused redirect is an ordinary response (status check, actions, completion): with the
/// usual acceptable codes (`2xx`) a ``NetworkError/unacceptableStatusCode(_:)`` whose
/// ``HTTPErrorResponse`` carries the status, headers (`Location` among them) and body; accept
/// the `3xx` codes to get it as a success.
///
/// Whatever the policy, credentials never follow a redirect to another origin:
/// ``URLSessionTransport`` removes them from the next request *after* ``decide(_:)``'s
/// callback has returned it, so the callback cannot put them back.
///
/// ``URLSessionTransport``, the session decorators and `FakeNetworkSession` apply every policy.
/// A session that cannot (a plain `URLSession`, or a ``NetworkSession`` of yours, whose data
/// task follows redirects) fails a request whose policy is not ``follow`` unsent, with
/// ``NetworkError/transportError(_:)-enum.case`` (`URLError.unsupportedURL`, saying why).
public struct RedirectPolicy: Sendable {
    enum Kind: Sendable {
        case follow
        case refuse
        case decide(@Sendable (_ response: HTTPURLResponse, _ next: URLRequest, _ hopNumber: Int) -> URLRequest?)
    }

    let kind: Kind

    /// Follow every redirect, as `URLSession` does: the default.
    public static let follow = RedirectPolicy(kind: .follow)

    /// Follow no redirect: the `3xx` response is the response.
    public static let refuse = RedirectPolicy(kind: .refuse)

    /// Ask `decide` at each hop, before the next request is sent: return `next` to follow the
    /// redirect, a changed copy of it to send that instead (sent as returned), or `nil` to stop
    /// and deliver the `3xx` response.
    ///
    /// - `response`: the redirect, with its `statusCode`, `url` and headers (`Location` among them).
    /// - `next`: the request the session would send next: the `Location` resolved against the
    ///   redirected URL; the method `GET` after a `303`, or a `POST` answered with `301` or `302`;
    ///   after a `307` or `308`, the method and body of the request it answers; the credential
    ///   headers removed if it leads to another origin than the original request's.
    /// - `hopNumber`: `1` for the first redirect of a request, `2` for the next, and so on.
    ///
    /// `decide` runs on the session's thread (for ``URLSessionTransport``, `URLSession`'s delegate
    /// queue): keep it quick. `response` is not `Sendable` on Linux: copy out what you need.
    /// Credential headers are removed from what `decide` returns when it goes to another origin.
    ///
    /// - Parameter decide: called at each hop; returns the request to send, or `nil` to stop.
    public static func decide(
        _ decide: @escaping @Sendable (_ response: HTTPURLResponse, _ next: URLRequest, _ hopNumber: Int) -> URLRequest?
    ) -> RedirectPolicy {
        RedirectPolicy(kind: .decide(decide))
    }

    /// Whether this is ``follow``.
    package var isFollow: Bool {
        if case .follow = kind { true } else { false }
    }

    /// The error of a request whose policy `session` cannot apply: the request is not sent.
    static func unsupportedError(by session: String, url: URL?) -> URLError {
        URLError(
            .unsupportedURL,
            message:
                "\(session) cannot apply a redirect policy other than .follow, so the request was not sent. "
                + "Send it on URLSessionTransport, or on the framework's decorators around it: a plain URLSession "
                + "cannot be watched for redirects, and a session of your own sends through its data task, which "
                + "follows them.",
            failingURL: url)
    }

    /// The request to send after `response`, the `hopNumber`-th redirect (from 1), whose
    /// `Location` the session would follow with `next`, before credentials are stripped; `nil`
    /// to stop.
    package func nextRequest(after response: HTTPURLResponse, next: URLRequest, hopNumber: Int) -> URLRequest? {
        switch kind {
        case .follow: next
        case .refuse: nil
        case .decide(let decide): decide(response, next, hopNumber)
        }
    }
}
