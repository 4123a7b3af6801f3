import Foundation
import Testing

@testable import NetworkModuleCore

@Suite("TraceContext")
struct TraceContextTests {
    static let traceID = TraceContextHeadersTests.traceID
    static let spanID = TraceContextHeadersTests.spanID

    @Test("when the recommendation's example and a tracestate are read, should keep every field")
    func readsFields() throws {
        let context = try #require(
            TraceContext(
                traceparent: TraceContextHeadersTests.example, tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"))

        #expect(context.traceID == Self.traceID)
        #expect(context.spanID == Self.spanID)
        #expect(context.isSampled)
        #expect(context.traceState == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
    }

    @Test(
        "when a version 00 traceparent is read, should write it back the same",
        arguments: [
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
            "00-0000000000000000000000000000000a-000000000000000b-01",
        ])
    func roundTrip(traceparent: String) throws {
        let context = try #require(TraceContext(traceparent: traceparent))

        #expect(context.traceparent == traceparent)
        #expect(TraceContext(traceparent: context.traceparent) == context)
    }

    @Test("when a later version or other flag bits are read, should write version 00 with the sampled flag only")
    func writesVersion00() throws {
        let future = try #require(TraceContext(traceparent: "01-\(Self.traceID)-\(Self.spanID)-03-extra"))
        let unsampled = try #require(TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-02"))

        #expect(future.traceparent == "00-\(Self.traceID)-\(Self.spanID)-01")
        #expect(unsampled.traceparent == "00-\(Self.traceID)-\(Self.spanID)-00")
    }

    @Test("when the traceparent is malformed, should make no context, whatever the tracestate")
    func malformedTraceparent() {
        #expect(TraceContext(traceparent: "00-\(Self.traceID.uppercased())-\(Self.spanID)-01") == nil)
        #expect(TraceContext(traceparent: "garbage", tracestate: "rojo=1") == nil)
        #expect(TraceContext(traceparent: "") == nil)
    }

    @Test("when the tracestate is malformed, should keep the context and drop the tracestate")
    func malformedTraceStateDropped() throws {
        let context = try #require(
            TraceContext(traceparent: TraceContextHeadersTests.example, tracestate: "rojo=1,rojo=2"))

        #expect(context.traceID == Self.traceID)
        #expect(context.traceState == nil)
    }

    @Test("when a child is made, should keep the trace, flag and state under a new span identifier")
    func child() throws {
        let parent = try #require(
            TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-00", tracestate: "congo=t61rcWkgMzE"))
        var generator = SystemRandomNumberGenerator()

        let child = parent.child(using: &generator)

        #expect(child.traceID == parent.traceID)
        #expect(child.spanID != parent.spanID)
        #expect(isLowercaseHex(child.spanID, count: 16))
        #expect(child.isSampled == false)
        #expect(child.traceState == "congo=t61rcWkgMzE")
    }

    @Test("when a new trace is made from a source of zeros, should be sampled, valid and not all zeros")
    func newTraceFromZeros() throws {
        var zeros = TraceContextHeadersTests.ZeroGenerator()

        let context = TraceContext.newTrace(using: &zeros)

        #expect(isLowercaseHex(context.traceID, count: 32))
        #expect(isLowercaseHex(context.spanID, count: 16))
        #expect(context.isSampled)
        #expect(context.traceState == nil)
        #expect(TraceContext(traceparent: context.traceparent) == context, "what it writes, it reads back")
    }
}
