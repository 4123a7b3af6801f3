import Foundation

/// A position in a distributed trace, as the W3C Trace Context recommendation carries it in the
/// `traceparent` and `tracestate` header fields: the trace, the span within it, whether the trace
/// is sampled, and the vendors' state.
///
/// ``NetworkModuleAction/tracing(origins:parent:redaction:report:)`` continues the context an app gives it
/// (the parent of the request's span) and sends each attempt's own. Read one your app received,
/// or one your tracing library holds, with ``init(traceparent:tracestate:)``:
///
/// ```swift
/// let parent = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
/// ```
///
/// The identifiers are lowercase hexadecimal, as on the wire, and never all zeros; a context
/// made here always has version `00`.
public struct TraceContext: Sendable, Hashable {
    /// The trace: 32 lowercase hexadecimal digits, shared by every span of the trace.
    public let traceID: String
    /// The span: 16 lowercase hexadecimal digits.
    public let spanID: String
    /// Whether the trace's spans are recorded (the `sampled` flag).
    public let isSampled: Bool
    /// The `tracestate` field that goes with the context, as received, when it was well formed;
    /// `nil` when there was none or it was malformed (the recommendation drops such a field).
    public let traceState: String?

    /// Reads a received `traceparent` field and the `tracestate` that came with it; `nil` when
    /// `traceparent` is malformed: not `version-traceid-parentid-flags`, not lowercase
    /// hexadecimal, an identifier of all zeros, version `ff`, or version `00` with anything after
    /// the flags. A later version is read by its first four fields, as the recommendation says.
    /// A malformed `tracestate` is dropped, the context kept.
    public init?(traceparent: String, tracestate: String? = nil) {
        guard let parsed = TraceContextHeaders.parse(traceparent) else { return nil }
        self.init(
            traceID: parsed.traceID, spanID: parsed.spanID, isSampled: parsed.isSampled,
            traceState: tracestate.flatMap(TraceContextHeaders.validTraceState))
    }

    /// A context with these fields as they are: the callers check them.
    init(traceID: String, spanID: String, isSampled: Bool, traceState: String?) {
        self.traceID = traceID
        self.spanID = spanID
        self.isSampled = isSampled
        self.traceState = traceState
    }

    /// The `traceparent` field of this context: `00-<trace>-<span>-<flags>`.
    public var traceparent: String {
        "00-" + traceID + "-" + spanID + (isSampled ? "-01" : "-00")
    }

    /// A new span of this trace, child of this one: a new span identifier, the same trace,
    /// flag and state.
    func child<Generator: RandomNumberGenerator>(using generator: inout Generator) -> TraceContext {
        TraceContext(
            traceID: traceID, spanID: TraceContextHeaders.newSpanID(using: &generator), isSampled: isSampled,
            traceState: traceState)
    }

    /// The root span of a new, sampled trace.
    static func newTrace<Generator: RandomNumberGenerator>(using generator: inout Generator) -> TraceContext {
        TraceContext(
            traceID: TraceContextHeaders.newTraceID(using: &generator),
            spanID: TraceContextHeaders.newSpanID(using: &generator), isSampled: true, traceState: nil)
    }
}
