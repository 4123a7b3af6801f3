import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one reading of a timeout value, and what each of its users makes of it: the builder
/// (``DefaultRequestBuilderTests``, "invalidTimeout"), the preparation deadline
/// (``LifecycleGuaranteesTests``) and the transport (here).
@Suite("Request timeout")
struct RequestTimeoutTests {
    @Test("when a timeout is any Double, should give it a defined meaning: seconds, the 60 s default, or none")
    func everyTimeoutHasAMeaning() {
        let sixty: UInt64? = 60_000_000_000
        let cases: [(TimeInterval, UInt64?)] = [
            (30, 30_000_000_000),
            (0.5, 500_000_000),
            (1e-6, 1_000),
            (1e-300, 1),
            (0, sixty),
            (-0.0, sixty),
            (-1, sixty),
            (-.infinity, sixty),
            (.nan, sixty),
            (.infinity, sixty),
            (1e9, 1_000_000_000_000_000_000),
            (1e9 + 1, nil),
            (.greatestFiniteMagnitude, nil),
            (1e300, nil),
        ]

        for (seconds, expected) in cases {
            #expect(RequestTimeout(seconds: seconds).nanoseconds == expected, "timeout \(seconds)")
        }
    }

    @Test(
        "when URLSession enforces the timeout itself (Apple), should get a timeout with the same meaning",
        arguments: [
            (30, 30), (0.5, 0.5), (0, 60), (-1, 60), (.nan, 60), (.infinity, 60), (-.infinity, 60),
            (1e12, 1e12),
        ] as [(TimeInterval, TimeInterval)])
    func sessionValue(seconds: TimeInterval, sent: TimeInterval) {
        #expect(RequestTimeout.sessionValue(for: seconds) == sent)
    }

    @Test(
        "when the builder checks a timeout that is not positive and finite, should refuse it with invalidTimeout",
        arguments: [0, -1, .nan, .infinity] as [TimeInterval])
    func checkRefuses(seconds: TimeInterval) {
        #expect(throws: NetworkError.self) { try RequestTimeout.check(seconds) }
        #expect(RequestTimeout(seconds: seconds).seconds == 60, "where no error can be given: the 60 s default")
    }

    @Test("when the builder checks a positive, finite timeout, should accept it as it is")
    func checkAccepts() throws {
        try RequestTimeout.check(30)
        #expect(RequestTimeout(seconds: 30).seconds == 30)
    }

    // MARK: The transport

    @Test(
        "when a plain URLSession on Linux gets a timeout that is not positive and finite, should give it 60 s plus one",
        arguments: [0, -1, .nan, .infinity] as [TimeInterval])
    func plainSessionTimeoutOfANonTimeout(seconds: TimeInterval) {
        #expect(LinuxURLSessionQuirks.outgoingTimeout(for: seconds, idleTimeoutEnforced: false) == 61)
        #expect(
            LinuxURLSessionQuirks.outgoingTimeout(for: seconds, idleTimeoutEnforced: true)
                == LinuxURLSessionQuirks.longestResponseTime)
    }

    @Test("when a plain URLSession on Linux gets a timeout, should give it that plus one second")
    func plainSessionTimeout() {
        #expect(LinuxURLSessionQuirks.outgoingTimeout(for: 30, idleTimeoutEnforced: false) == 31)
        #expect(
            LinuxURLSessionQuirks.outgoingTimeout(for: 1e300, idleTimeoutEnforced: false)
                == LinuxURLSessionQuirks.longestResponseTime)
    }
}
