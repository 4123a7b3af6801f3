import Foundation
import Testing

@testable import NetworkModuleCore

/// The W3C Trace Context recommendation's header grammar, from its own examples: what
/// `TraceContextHeaders` reads and what it refuses.
@Suite("TraceContextHeaders")
struct TraceContextHeadersTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let spanID = "00f067aa0ba902b7"
    static let example = "00-\(traceID)-\(spanID)-01"

    // MARK: - traceparent

    @Test("when the recommendation's example is read, should give its trace, parent and sampled flag")
    func readsTheExample() throws {
        let parsed = try #require(TraceContextHeaders.parse(Self.example))

        #expect(parsed == .init(traceID: Self.traceID, spanID: Self.spanID, isSampled: true))
    }

    @Test(
        "when the flags vary, should read the sampled bit alone and ignore the others",
        arguments: [
            ("00", false), ("01", true), ("02", false), ("03", true), ("09", true), ("fe", false), ("ff", true),
        ])
    func flags(flags: String, sampled: Bool) throws {
        let parsed = try #require(TraceContextHeaders.parse("00-\(Self.traceID)-\(Self.spanID)-\(flags)"))

        #expect(parsed.isSampled == sampled)
        #expect(parsed.traceID == Self.traceID)
    }

    @Test(
        "when a later version adds fields after a dash, should read its first four",
        arguments: [
            "01-\(traceID)-\(spanID)-01-extra", "cc-\(traceID)-\(spanID)-01", "fe-\(traceID)-\(spanID)-00-a-b-c",
            "01-\(traceID)-\(spanID)-01-",
        ])
    func futureVersion(value: String) throws {
        let parsed = try #require(TraceContextHeaders.parse(value))

        #expect(parsed.traceID == Self.traceID)
        #expect(parsed.spanID == Self.spanID)
    }

    @Test(
        "when a traceparent is malformed, should refuse it",
        arguments: [
            ("empty", ""),
            ("trace ID one digit short", "00-\(String(traceID.dropLast()))-\(spanID)-01"),
            ("trace ID one digit long", "00-\(traceID)0-\(spanID)-01"),
            ("span ID one digit short", "00-\(traceID)-\(String(spanID.dropLast()))-01"),
            ("one-digit flags", "00-\(traceID)-\(spanID)-1"),
            ("uppercase trace ID", "00-\(traceID.uppercased())-\(spanID)-01"),
            ("uppercase span ID", "00-\(traceID)-00F067AA0BA902B7-01"),
            ("uppercase flags", "00-\(traceID)-\(spanID)-0A"),
            ("uppercase version", "0A-\(traceID)-\(spanID)-01"),
            ("all-zero trace ID", "00-00000000000000000000000000000000-\(spanID)-01"),
            ("all-zero span ID", "00-\(traceID)-0000000000000000-01"),
            ("version ff", "ff-\(traceID)-\(spanID)-01"),
            ("version 00 with trailing fields", "00-\(traceID)-\(spanID)-01-extra"),
            ("version 00 with a trailing dash", "00-\(traceID)-\(spanID)-01-"),
            ("version 00 with a trailing space", "00-\(traceID)-\(spanID)-01 "),
            ("later version, no dash after the flags", "01-\(traceID)-\(spanID)-01extra"),
            ("underscores for dashes", "00_\(traceID)_\(spanID)_01"),
            ("no dashes", "00\(traceID)\(spanID)01---"),
            ("non-hex trace ID", "00-4bf92f3577b34da6a3ce929d0e0e473g-\(spanID)-01"),
            ("non-hex span ID", "00-\(traceID)-00f067aa0ba902bz-01"),
            ("non-hex flags", "00-\(traceID)-\(spanID)-0x"),
            ("non-hex version", "zz-\(traceID)-\(spanID)-01"),
            ("unicode digit", "00-4bf92f3577b34da6a3ce929d0e0e473é-\(spanID)-01"),
            ("unicode in place of a dash", "00\u{2010}\(traceID)\u{2010}\(spanID)\u{2010}01"),
            ("emoji", "00-\(traceID)-\(spanID)-🙂"),
            ("leading space", " 00-\(traceID)-\(spanID)-01"),
            ("very long", "00-\(traceID)-\(spanID)-01" + String(repeating: "-0", count: 50_000)),
            ("very long, later version, garbage", "01-" + String(repeating: "g", count: 100_000)),
        ])
    func malformed(reason: String, value: String) {
        #expect(TraceContextHeaders.parse(value) == nil, "\(reason)")
    }

    // MARK: - tracestate

    @Test(
        "when a tracestate is well formed, should keep it as it is",
        arguments: [
            "congo=t61rcWkgMzE",
            "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
            "rojo=00f067aa0ba902b7 ,\tcongo=t61rcWkgMzE",
            " rojo=1 , congo=2 ",
            "rojo=1,,congo=2",
            ",rojo=1,",
            "rojo=1, ,\t,congo=2",
            "fw529a3039@dt=FW4;0;0;0;0;0;0;ab",
            "1tenant@vendor=x",
            "a*b/c_d-e=value with spaces inside",
            "key=!\"#$%&'()*+-./:;<>?@[\\]^_`{|}~",
        ])
    func validTraceState(value: String) {
        #expect(TraceContextHeaders.validTraceState(value) == value)
    }

    @Test("when a tracestate has 32 members, should keep it; 33, should drop it")
    func memberLimit() {
        let members = (0..<33).map { "k\($0)=v" }

        #expect(TraceContextHeaders.validTraceState(members.prefix(32).joined(separator: ",")) != nil)
        #expect(TraceContextHeaders.validTraceState(members.joined(separator: ",")) == nil)
    }

    @Test("when a tracestate is 512 bytes, should keep it; 513, should drop it")
    func byteLimit() {
        let first = "a=" + String(repeating: "x", count: 255)  // 257 bytes
        let at512 = first + ",b=" + String(repeating: "y", count: 252)
        let at513 = first + ",b=" + String(repeating: "y", count: 253)
        #expect(at512.utf8.count == 512)

        #expect(TraceContextHeaders.validTraceState(at512) == at512)
        #expect(TraceContextHeaders.validTraceState(at513) == nil)
    }

    @Test(
        "when a tracestate is malformed, should drop it",
        arguments: [
            ("empty", ""),
            ("only empty members", " , ,\t"),
            ("duplicate key", "rojo=1,congo=2,rojo=3"),
            ("uppercase key", "Rojo=1"),
            ("key starting with a digit", "1rojo=1"),
            ("key with a space", "ro jo=1"),
            ("empty key", "=1"),
            ("no equals sign", "rojo"),
            ("empty value", "rojo="),
            ("equals sign in the value", "rojo=a=b"),
            ("control character in the value", "rojo=a\u{7F}b"),
            ("non-ASCII value", "rojo=café"),
            ("empty tenant", "@vendor=1"),
            ("empty system", "tenant@=1"),
            ("system starting with a digit", "tenant@1vendor=1"),
            ("system too long", "tenant@abcdefghijklmno=1"),
            ("tenant too long", String(repeating: "t", count: 242) + "@v=1"),
            ("key too long", "k" + String(repeating: "x", count: 256) + "=1"),
            ("value too long", "k=" + String(repeating: "x", count: 257)),
            ("one bad member among good ones", "rojo=1,Congo=2"),
        ])
    func malformedTraceState(reason: String, value: String) {
        #expect(TraceContextHeaders.validTraceState(value) == nil, "\(reason)")
    }

    @Test("when a key or value is at its length limit, should keep it")
    func lengthLimits() {
        let longKey = "k" + String(repeating: "x", count: 255) + "=1"
        let longValue = "k=" + String(repeating: "x", count: 256)
        let longTenant = String(repeating: "t", count: 241) + "@abcdefghijklmn=1"

        #expect(TraceContextHeaders.validTraceState(longKey) != nil)
        #expect(TraceContextHeaders.validTraceState(longValue) != nil)
        #expect(TraceContextHeaders.validTraceState(longTenant) != nil)
    }

    // MARK: - New identifiers

    struct ZeroGenerator: RandomNumberGenerator {
        mutating func next() -> UInt64 { 0 }
    }

    @Test("when the random source gives only zeros, should still make identifiers that are not all zeros")
    func zeroSource() {
        var zeros = ZeroGenerator()

        let trace = TraceContextHeaders.newTraceID(using: &zeros)
        let span = TraceContextHeaders.newSpanID(using: &zeros)

        #expect(isLowercaseHex(trace, count: 32))
        #expect(isLowercaseHex(span, count: 16))
        #expect(trace.contains { $0 != "0" })
        #expect(span.contains { $0 != "0" })
    }

    @Test("when a value is written in hexadecimal, should give 16 lowercase digits, leading zeros kept")
    func hexDigits() {
        #expect(TraceContextHeaders.hex(0) == "0000000000000000")
        #expect(TraceContextHeaders.hex(0xAB) == "00000000000000ab")
        #expect(TraceContextHeaders.hex(.max) == "ffffffffffffffff")
        #expect(TraceContextHeaders.hex(0x0123_4567_89AB_CDEF) == "0123456789abcdef")
    }
}

/// Whether `text` is `count` lowercase hexadecimal digits.
func isLowercaseHex(_ text: String, count: Int) -> Bool {
    text.utf8.count == count && text.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
}
