import Foundation

/// One span of a traced request, handed to the app when it ends by
/// ``NetworkModuleAction/tracing(origins:parent:redaction:report:)``: a span for the whole
/// request (``Kind-swift.enum/request``) and, under it, one for each attempt sent
/// (``Kind-swift.enum/attempt``), in the shape of OpenTelemetry's HTTP client spans.
///
/// ``attributes`` names each value as OpenTelemetry's semantic conventions for HTTP clients do,
/// so a bridge to a tracing library sets them in a loop; the Tracing guide
/// (`docs/tracing.md`) shows one.
public struct HTTPSpan: Sendable, Equatable {
    /// What a span covers.
    public enum Kind: Sendable {
        /// The whole request, from `perform` to its result: every attempt and every wait
        /// between them. Its parent is the app's span, if it gave one.
        case request
        /// One attempt: from its preparation to its answer. Its parent is the request's span;
        /// its span identifier is the one its `traceparent` carried.
        case attempt
    }

    /// How an answer was served. A set of values that may grow, not an enumeration: compare
    /// with `==`, and give a `switch` a `default`.
    public struct Answer: RawRepresentable, Hashable, Sendable {
        /// The name, as ``attributes`` reports it under `networkmodule.answer`.
        public let rawValue: String

        /// An answer of this name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// By the server, over the network.
        public static let network = Answer(rawValue: "network")
        /// By a ``CachedSession``, from memory, fresh.
        public static let cache = Answer(rawValue: "cache")
        /// By a ``CachedSession``, from memory, stale (``NetworkResponse/isStale``).
        public static let staleCache = Answer(rawValue: "staleCache")
        /// By a call that another identical request started, shared by a ``DeduplicatedSession``.
        public static let sharedCall = Answer(rawValue: "sharedCall")
    }

    /// A value of ``attributes``, of one of OpenTelemetry's scalar attribute types.
    public enum AttributeValue: Sendable, Equatable {
        /// A string, such as `url.full`.
        case string(String)
        /// An integer, such as `http.response.status_code`.
        case int(Int)
        /// A floating-point number.
        case double(Double)
        /// A Boolean.
        case bool(Bool)
    }

    /// What the span covers.
    public let kind: Kind
    /// The span's trace and its own identifier, its sampled flag and the trace's state.
    public let context: TraceContext
    /// The parent's span identifier: the app's span for a request span (`nil` for a new
    /// trace), the request's span for an attempt span.
    public let parentSpanID: String?
    /// When the span started: `perform` for a request, its preparation for an attempt.
    public let startTime: Date
    /// When the span ended: the result (just before it is delivered), or the attempt's answer.
    public let endTime: Date
    /// The method, for example `"GET"`: also the span's name, as OpenTelemetry names HTTP spans.
    public let method: String
    /// The URL sent (the last attempt's, for a request span), secret query values masked as in
    /// logs; `nil` when nothing was sent.
    public let url: String?
    /// The host the URL names (OpenTelemetry's `server.address`); `nil` when nothing was sent.
    public let serverAddress: String?
    /// The port, the scheme's default when the URL names none (`server.port`); `nil` when
    /// nothing was sent or the scheme has no default.
    public let serverPort: Int?
    /// The attempt, counting from 1, for an attempt span; the attempts started, for a request span.
    public let attempt: Int
    /// The response's status, of a success or of an HTTP error; `nil` without a response.
    public let statusCode: Int?
    /// Why the span failed, as OpenTelemetry's `error.type` says it: the status code for an
    /// HTTP error (`"500"`), otherwise the error's kind (`"timedOut"`, `"cancelled"`,
    /// `"decodingFailed"`…); `nil` for a success.
    public let errorType: String?
    /// How the answer was served; `nil` when there was none (a failure before any answer, a
    /// cancel).
    public let answer: Answer?
    /// Where the attempt's time went on the wire, where the platform measures it (Apple
    /// platforms; ``RequestPhases``); for a request span, its last attempt's.
    public let phases: RequestPhases?

    /// The span's name, as OpenTelemetry names an HTTP client span: the method.
    public var name: String { method }

    /// Whether the request or attempt ended because it was cancelled.
    public var isCancelled: Bool { errorType == "cancelled" }

    /// The span's attributes under the names of OpenTelemetry's semantic conventions for HTTP
    /// clients: `http.request.method`, `server.address`, `server.port`, `url.full` (masked),
    /// `http.response.status_code`, `error.type`, `http.request.resend_count` (attempts after the
    /// first), `network.protocol.version` (where ``phases`` know it), and
    /// `networkmodule.answer` (``Answer``'s raw value). Absent values are left out.
    public var attributes: [String: AttributeValue] {
        var attributes: [String: AttributeValue] = ["http.request.method": .string(method)]
        if let url { attributes["url.full"] = .string(url) }
        if let serverAddress { attributes["server.address"] = .string(serverAddress) }
        if let serverPort { attributes["server.port"] = .int(serverPort) }
        if let statusCode { attributes["http.response.status_code"] = .int(statusCode) }
        if let errorType { attributes["error.type"] = .string(errorType) }
        if kind == .attempt, attempt > 1 { attributes["http.request.resend_count"] = .int(attempt - 1) }
        if let version = phases?.httpVersion { attributes["network.protocol.version"] = .string(version) }
        if let answer { attributes["networkmodule.answer"] = .string(answer.rawValue) }
        return attributes
    }

    /// A span; the tracing action makes them.
    init(
        kind: Kind, context: TraceContext, parentSpanID: String?, start: Date, end: Date, method: String,
        attempt: Int, target: SpanTarget?, statusCode: Int?, errorType: String?, answer: Answer?,
        phases: RequestPhases?
    ) {
        self.kind = kind
        self.context = context
        self.parentSpanID = parentSpanID
        self.startTime = start
        self.endTime = max(start, end)
        self.method = method
        self.url = target?.url
        self.serverAddress = target?.serverAddress
        self.serverPort = target?.serverPort
        self.attempt = attempt
        self.statusCode = statusCode
        self.errorType = errorType
        self.answer = answer
        self.phases = phases
    }
}
