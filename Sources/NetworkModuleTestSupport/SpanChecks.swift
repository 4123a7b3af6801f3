import NetworkModuleCore

/// What the tracing tests check of every span they collect, shared by the unit and the
/// integration tests.
package enum SpanChecks {
    /// What is wrong with `spans`, the spans of finished requests in the order they were
    /// reported: each request span once, each attempt span at most once, before its request's
    /// span and never its own parent, every identifier well formed, no span ending before it
    /// starts. Empty when all is well.
    package static func problems(in spans: [HTTPSpan]) -> [String] {
        var problems: [String] = []
        var requestIndex: [String: Int] = [:]
        for (index, span) in spans.enumerated() where span.kind == .request {
            let key = span.context.traceID + "/" + span.context.spanID
            if requestIndex[key] != nil { problems.append("request span \(key) reported twice") }
            requestIndex[key] = index
        }
        var attemptsSeen = Set<String>()
        for (index, span) in spans.enumerated() {
            if TraceContext(traceparent: span.context.traceparent) == nil {
                problems.append("malformed identifiers: \(span.context.traceparent)")
            }
            if span.endTime < span.startTime { problems.append("span ends before it starts: \(span)") }
            guard span.kind == .attempt else { continue }
            let parent = span.context.traceID + "/" + (span.parentSpanID ?? "none")
            guard let requestAt = requestIndex[parent] else {
                problems.append("attempt span \(span.context.spanID) without its request span")
                continue
            }
            if index > requestAt { problems.append("attempt span \(span.attempt) reported after its request span") }
            if !attemptsSeen.insert(parent + "#\(span.attempt)").inserted {
                problems.append("attempt \(span.attempt) of \(parent) reported twice")
            }
            if span.context.spanID == span.parentSpanID { problems.append("attempt span is its own parent") }
        }
        return problems
    }
}
