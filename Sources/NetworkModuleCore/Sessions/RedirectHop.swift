import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One redirect, as ``RedirectPolicy/decide(_:)`` sees it.
///
/// A hop is made and read on the session's thread; it is not `Sendable`, because
/// `HTTPURLResponse` is not on every system: copy what you need out of it (the status, the
/// `Location`) rather than keep the hop.
public struct RedirectHop {
    /// The redirect response: its `statusCode`, `url`, and headers, `Location` among them.
    public let response: HTTPURLResponse

    /// The request the session would send next: the `Location` resolved against the
    /// redirected URL, the method changed to `GET` where the status says so (`303`, and a
    /// `POST` answered with `301` or `302`), and the credential headers already removed if it
    /// leads to another origin.
    public let request: URLRequest

    /// Which hop this is: `1` for the first redirect of a request, `2` for the next, and so on.
    public let number: Int

    /// A hop, for sessions and tests that make one.
    public init(response: HTTPURLResponse, request: URLRequest, number: Int) {
        self.response = response
        self.request = request
        self.number = number
    }
}
