import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The origins (host and port) whose server a pinned transport refused, and has not trusted
/// since. Refusing a trust challenge fails the task, and `URLSession` then cancels every other
/// task on the same connection (HTTP/2) with `URLError.cancelled` and no response, which would
/// read as ``NetworkError/cancelled`` (apps ignore it): the delegate keeps the refused origins
/// here to report such a neighbour as the trust failure it is. Changed under the delegate's lock.
struct TrustRefusals: Equatable {
    private(set) var origins: Set<String> = []

    /// The origin of a challenge's protection space or a request: the host, lowercased, and the
    /// port, the scheme's default when none is given; `nil` without a host or a port.
    static func origin(host: String?, port: Int?, scheme: String?) -> String? {
        guard let host, !host.isEmpty else { return nil }
        guard let port = (port.flatMap { $0 > 0 ? $0 : nil }) ?? URL.defaultPort(forScheme: scheme) else { return nil }
        return "\(host.lowercased()):\(port)"
    }

    /// The origin `url` is sent to.
    static func origin(of url: URL?) -> String? {
        origin(host: url?.host, port: url?.port, scheme: url?.scheme)
    }

    /// Keeps what a challenge in `space`, answered under `policy` with `refusal` (or none), says
    /// of its origin (refused, or trusted again): only a pinned server-trust challenge says anything.
    mutating func challengeAnswered(
        in space: URLProtectionSpace, policy: ServerTrustPolicy, refusal: ServerTrustDecision.Refusal?
    ) {
        guard policy.isPinned, space.authenticationMethod == ServerTrustDecision.serverTrustMethod else { return }
        let origin = Self.origin(host: space.host, port: space.port, scheme: space.protocol)
        if refusal == .untrustedServer { refused(origin) } else { accepted(origin) }
    }

    /// The server at `origin` was refused: its connection's other tasks fail for it.
    mutating func refused(_ origin: String?) {
        guard let origin else { return }
        origins.insert(origin)
    }

    /// The server at `origin` was trusted: a connection to it is a trusted one again.
    mutating func accepted(_ origin: String?) {
        guard let origin else { return }
        origins.remove(origin)
    }

    /// Whether a task to `origin` that `URLSession` ended with `error` ended because its server
    /// was refused: a cancel nobody in the framework asked for (the caller's and the transport's
    /// take the task's record first), before any response, to a refused origin. `origin` is
    /// read only for an error without a response, when some origin was refused.
    func explains(error: (any Error)?, response: URLResponse?, origin: @autoclosure () -> String?) -> Bool {
        guard response == nil, let error = error as NSError?, !origins.isEmpty, let origin = origin(),
            origins.contains(origin)
        else { return false }
        return isURLCancellation(error)
    }
}
