import Foundation
import Testing

@testable import NetworkModuleCore

@Suite("RequestPhases")
struct RequestPhasesTests {
    @Test(
        "when the protocol is named as ALPN names it, should give OpenTelemetry's HTTP version, or nil",
        arguments: [
            ("http/1.0", "1.0"), ("http/1.1", "1.1"), ("HTTP/1.1", "1.1"), ("h2", "2"), ("H2", "2"), ("h2c", "2"),
            ("h3", "3"), ("spdy/3.1", nil), ("", nil), (nil, nil),
        ] as [(String?, String?)])
    func httpVersion(name: String?, version: String?) {
        #expect(RequestPhases(networkProtocolName: name).httpVersion == version)
    }

    @Test("when phases are made with defaults, should have no phase, no protocol and a new connection")
    func defaults() {
        let phases = RequestPhases()

        #expect(phases.domainLookup == nil && phases.connect == nil && phases.secureConnection == nil)
        #expect(phases.requestSent == nil && phases.waitingForFirstByte == nil && phases.responseReceived == nil)
        #expect(!phases.isReusedConnection)
        #expect(phases.networkProtocolName == nil)
    }

    @Test("when an interval's ends are known and in order, should make it; missing or reversed, should not")
    func interval() {
        let start = Date(timeIntervalSince1970: 10)
        let end = Date(timeIntervalSince1970: 12)

        #expect(RequestPhases.interval(start, end) == DateInterval(start: start, end: end))
        #expect(RequestPhases.interval(start, start)?.duration == 0)
        #expect(RequestPhases.interval(end, start) == nil)
        #expect(RequestPhases.interval(nil, end) == nil)
        #expect(RequestPhases.interval(start, nil) == nil)
    }
}
