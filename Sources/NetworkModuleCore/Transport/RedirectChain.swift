import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The redirects of one request sent through a ``URLSessionTransport``: the request the caller
/// made (whose origin alone may receive its credentials), how many redirects it has met, and the
/// request the next redirect answers.
///
/// Held in the task's ``TransportTaskRecord`` and carried with it when the transport sends the
/// request again in a new task (Linux): nothing is read back from the `URLSessionTask`, whose
/// original request and hop count start again after a re-send. Without ``sendsBodiesItself``
/// (Apple platforms) the chain only counts hops and names the caller's origin: `URLSession`
/// builds, sends and limits every redirect itself.
struct RedirectChain {
    /// The most redirects one request follows; the next fails it with
    /// `URLError.httpTooManyRedirects`. swift-corelibs-foundation's limit for one task (which
    /// mirrors Apple's), counted here over every task the request is sent in.
    static let maximumHops = 20

    /// The request the caller made.
    let caller: URLRequest
    /// The URL whose origin (scheme, host, port) credentials may be sent to: the caller's, its
    /// scheme in lowercase as it is sent.
    let callerURL: URL?
    /// Whether the transport sends a redirected body itself, in a new task, and bounds the chain
    /// at ``maximumHops`` (Linux).
    let sendsBodiesItself: Bool
    /// The request the next redirect answers: the caller's, then each request followed. A body
    /// stream it holds is the one to read again: the request builder's, not a copy already sent.
    private(set) var answered: URLRequest
    /// Redirects met so far.
    private(set) var hops = 0

    init(caller: URLRequest, sendsBodiesItself: Bool = LinuxURLSessionQuirks.apply) {
        self.caller = caller
        self.callerURL = caller.url.map { $0.withLowercaseScheme ?? $0 }
        self.sendsBodiesItself = sendsBodiesItself
        self.answered = caller
    }

    /// Whether the last redirect counted is one too many: the request fails with
    /// ``tooManyRedirects(url:)`` without asking the policy, as Foundation does at its own limit.
    var isPastLimit: Bool {
        sendsBodiesItself && hops > Self.maximumHops
    }

    /// What the session proposes to send next, as the redirect policy sees it, and what it knows
    /// of the body the redirect must repeat.
    struct Proposal {
        /// The next request: the policy's `next`, before credentials are stripped.
        var request: URLRequest
        /// A 307 or 308 must repeat a body that cannot be read again (a caller's own
        /// `InputStream`): `request` holds none.
        var bodyLost = false
        /// The copy of the answered request's body stream `request` holds, and the stream it
        /// was read from: a request that sends the copy answers the next redirect with a body
        /// read from the original again.
        fileprivate var streamCopy: (copy: InputStream, original: InputStream)?
    }

    /// What becomes of the request to send after a redirect.
    enum Sending {
        /// `URLSession` sends it, in the task that met the redirect: it carries no body.
        case followed(URLRequest)
        /// The transport sends it in a new task, body and all: Linux's `URLSession` would send
        /// it without its body.
        case sentAgain(URLRequest)
        /// It cannot be sent: the request fails with this error.
        case failed(URLError)
    }

    // MARK: Events

    /// A redirect arrived: counts it. Check ``isPastLimit`` next.
    mutating func redirected() {
        if hops < Int.max { hops += 1 }
    }

    /// The request to propose after a `status` redirect, from `proposed`, the one `URLSession`
    /// proposes. Without ``sendsBodiesItself``, `proposed` as it is. Otherwise with the method
    /// and the body RFC 9110 (§15.4) gives it, as Apple's `URLSession` sends it: a 307 or 308
    /// repeats the method and the body of the request it answers (``answered``, which is not
    /// always the caller's: a `303` made it a `GET`); any other redirect sends no body (Linux's
    /// proposal keeps the answered request's body, which it never sends).
    func proposal(after status: Int, proposed: URLRequest) -> Proposal {
        guard sendsBodiesItself else { return Proposal(request: proposed) }
        var next = proposed
        next.httpBodyStream = nil
        next.httpBody = nil
        guard status == 307 || status == 308 else { return Proposal(request: next) }
        next.httpMethod = answered.httpMethod
        guard let stream = answered.httpBodyStream else {
            if let body = answered.httpBody, !body.isEmpty { next.httpBody = body }
            return Proposal(request: next)
        }
        if BodyStreams.file(of: stream) != nil {
            // A file's stream is sent as an upload of the file, unread (LinuxURLSessionQuirks.task).
            next.httpBodyStream = stream
            return Proposal(request: next)
        }
        guard let copy = BodyStreams.freshStream(replacing: stream) else {
            return Proposal(request: next, bodyLost: true)
        }
        next.httpBodyStream = copy
        return Proposal(request: next, streamCopy: (copy, stream))
    }

    /// How `chosen`, the request the policy returned for `proposal` with the credential rules
    /// applied, is sent. Without ``sendsBodiesItself``, by `URLSession`. Otherwise by the
    /// transport whenever it carries a body, the policy's own method and body included, since
    /// Linux's `URLSession` would drop it; a request that repeats the method of a 307 or 308
    /// whose body cannot be read again fails rather than go without it.
    func sending(_ chosen: URLRequest, as proposal: Proposal) -> Sending {
        guard sendsBodiesItself else { return .followed(chosen) }
        if chosen.httpBodyStream != nil || chosen.httpBody?.isEmpty == false { return .sentAgain(chosen) }
        if proposal.bodyLost, chosen.httpMethod == proposal.request.httpMethod {
            return .failed(Self.oneShotBodyError(url: chosen.url))
        }
        return .followed(chosen)
    }

    /// `request` was sent for `proposal`, by `URLSession` or by the transport: it is what the
    /// next redirect answers.
    mutating func followed(_ request: URLRequest, as proposal: Proposal) {
        var next = request
        if let stream = proposal.streamCopy, request.httpBodyStream === stream.copy {
            next.httpBodyStream = stream.original
        }
        answered = next
    }

    // MARK: Errors

    /// The error of a request redirected more than ``maximumHops`` times; `url` answered with the
    /// last redirect. The code of Foundation's own, for any chain however it was followed.
    static func tooManyRedirects(url: URL?) -> URLError {
        URLError(
            .httpTooManyRedirects,
            message: "too many HTTP redirects: the request was redirected more than \(maximumHops) times",
            failingURL: url)
    }

    /// The error of a request whose body is a stream read once (not one the request builder
    /// made), redirected with 307 or 308 on Linux: it cannot be sent to the new location.
    static func oneShotBodyError(url: URL?) -> URLError {
        URLError(
            .requestBodyStreamExhausted,
            message:
                "The server redirected the request with 307 or 308, whose target must receive the body again, "
                + "and the body is a stream that can be read only once (not one the request builder made), so "
                + "the redirect was not followed. Give the body as Data, a file or RequestBody.stream, or send "
                + "the request to the new URL.",
            failingURL: url)
    }
}
