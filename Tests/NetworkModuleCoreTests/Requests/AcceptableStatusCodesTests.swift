import NetworkModuleCore
import Testing

@Suite("AcceptableStatusCodes")
struct AcceptableStatusCodesTests {
    @Test(
        "when the codes are .successful, should accept exactly 200 to 299",
        arguments: [
            (199, false), (200, true), (204, true), (299, true), (300, false), (304, false), (404, false), (0, false),
        ])
    func successful(status: Int, accepted: Bool) {
        #expect(AcceptableStatusCodes.successful.contains(status) == accepted)
    }

    @Test(
        "when the codes are several ranges, should accept any code in any of them and nothing between",
        arguments: [(199, false), (200, true), (299, true), (300, false), (303, false), (304, true), (305, false)])
    func ranges(status: Int, accepted: Bool) {
        #expect(AcceptableStatusCodes(200..<300, 304..<305).contains(status) == accepted)
    }

    @Test(
        "when the codes are an array literal, should accept exactly those codes",
        arguments: [(200, true), (201, false), (303, false), (304, true), (305, false)])
    func arrayLiteral(status: Int, accepted: Bool) {
        let codes: AcceptableStatusCodes = [200, 304]
        #expect(codes.contains(status) == accepted)
    }

    @Test("when the codes are empty, should accept nothing")
    func empty() {
        let literal: AcceptableStatusCodes = []
        #expect(!literal.contains(200))
    }

    @Test("when the codes are the same ranges, should be equal; other ranges should not")
    func equality() {
        let single: AcceptableStatusCodes = [200]
        #expect(AcceptableStatusCodes.successful == AcceptableStatusCodes(200..<300))
        #expect(single == AcceptableStatusCodes(200..<201))
        #expect(AcceptableStatusCodes.successful != AcceptableStatusCodes(200..<400))
    }
}
