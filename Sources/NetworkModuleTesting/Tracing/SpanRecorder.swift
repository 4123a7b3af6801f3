import Foundation
import NetworkModuleCore

/// Keeps the spans a tracing action reports, so that a test asserts them: give ``record(_:)``
/// to `.tracing(origins:parent:redaction:report:)`, run requests on a fake
/// session, then read ``spans``. A fake session's answers produce the same spans as real ones:
/// the span of each request, and under it one for each attempt sent.
///
/// ```swift
/// let spans = SpanRecorder()
/// session.stub(.path("/users/1"), with: .json(User(id: 1, name: "Ada")))
/// let module = DefaultNetworkModule(
///     requestBuilder: builder, session: session, actions: [.tracing(report: spans.record)],
///     completionExecutor: .immediate)
/// module.perform(request: GetUser(id: 1)) { _ in }  // the fake session answers at once
/// let request = try #require(spans.requests.first)
/// let attempt = try #require(spans.attempts(of: request).first)
/// #expect(attempt.statusCode == 200)
/// #expect(session.recordedRequests.last?.value(forHTTPHeaderField: "traceparent") == attempt.context.traceparent)
/// ```
///
/// Thread-safe.
public final class SpanRecorder: Sendable {
    private let recorded = LockedState([HTTPSpan]())

    /// Creates an empty recorder.
    public init() {}

    /// Keeps `span`: what the tracing action's `report` is given.
    @Sendable public func record(_ span: HTTPSpan) {
        recorded.withLock { $0.append(span) }
    }

    /// Every span kept, in the order they ended: a request's attempts before the request.
    public var spans: [HTTPSpan] {
        recorded.withLock { $0 }
    }

    /// The request spans kept, in the order the requests finished.
    public var requests: [HTTPSpan] {
        spans.filter { $0.kind == .request }
    }

    /// The attempt spans under `request` (of its trace, its span their parent), by attempt.
    public func attempts(of request: HTTPSpan) -> [HTTPSpan] {
        spans.filter { span in
            span.kind == .attempt && span.context.traceID == request.context.traceID
                && span.parentSpanID == request.context.spanID
        }.sorted { $0.attempt < $1.attempt }
    }

    /// Forgets every span kept.
    public func removeAll() {
        recorded.withLock { $0.removeAll() }
    }
}
