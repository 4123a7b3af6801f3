import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The origins (host and port) whose server a pinned transport refused, and has not trusted
/// since.
///
/// Refusing a server-trust challenge (``ServerTrustDecision``) fails the challenged task, and
/// `URLSession` then cancels every other task waiting on the same connection (HTTP/2 multiplexes
/// many requests on one), each ending with `URLError.cancelled` and no response: the delegate
/// would report them as ``NetworkError/cancelled``, which apps ignore. The delegate keeps the
/// refused origins here, so that such a neighbour is reported as the trust failure it is. A
/// value, changed under the delegate's lock.
struct TrustRefusals: Equatable {
    private(set) var origins: Set<String> = []

    /// The origin of a challenge's protection space or a request: the host, lowercased, and the
    /// port, the scheme's default when none is given; `nil` without a host or a port.
    static func origin(host: String?, port: Int?, scheme: String?) -> String? {
        guard let host, !host.isEmpty else { return nil }
        let known: Int? =
            switch scheme?.lowercased() {
            case "https", "wss": 443
            case "http", "ws": 80
            default: nil
            }
        guard let port = (port.flatMap { $0 > 0 ? $0 : nil }) ?? known else { return nil }
        return "\(host.lowercased()):\(port)"
    }

    /// The origin `url` is sent to.
    static func origin(of url: URL?) -> String? {
        origin(host: url?.host, port: url?.port, scheme: url?.scheme)
    }

    /// Keeps what a challenge in `space`, answered under `policy` with `refusal` (or none), says
    /// about its origin: a refused server, or one trusted again. Only a pinned server-trust
    /// challenge says anything; both delegates, the transport's and the background session's,
    /// record each challenge through this.
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

    /// Whether a task to `origin` that `URLSession` ended with `error`, with or without a
    /// `response`, ended because its server was refused: a cancel nobody in the framework asked
    /// for (the caller's and the transport's cancels take the task's record first), before any
    /// response, to a refused origin. A task that was answered keeps its answer.
    func explains(error: (any Error)?, response: URLResponse?, origin: String?) -> Bool {
        guard response == nil, let origin, origins.contains(origin), let error = error as NSError? else { return false }
        return isURLCancellation(error)
    }
}
