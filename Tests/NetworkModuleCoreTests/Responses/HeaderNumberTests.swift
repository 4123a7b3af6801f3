import Foundation
import Testing

@testable import NetworkModuleCore

/// The one reader of numbers in header fields (issue 38, item 5): what a server sends is exact or
/// refused, delta-seconds stop at 2^31, and seconds written back fit any platform's `Int`.
@Suite("Header numbers")
struct HeaderNumberTests {
    @Test(
        "when the text is digits within the type, should read it exactly",
        arguments: [("0", Int64(0)), ("007", 7), ("9223372036854775807", .max)])
    func decimal(text: String, value: Int64) {
        #expect(HeaderNumber.decimal(text) == value)
    }

    @Test(
        "when the text is not only digits, or is past the type's largest value, should read nothing",
        arguments: [
            "", " 1", "1 ", "+1", "-1", "1.0", "1e3", "0x10", "١", "9223372036854775808",
            "99999999999999999999999999999999",
        ])
    func notADecimal(text: String) {
        #expect(HeaderNumber.decimal(text) == nil)
    }

    @Test("when read as a 32-bit number, should refuse what a 32-bit Int cannot hold (watchOS)")
    func decimalOfASmallerType() {
        #expect(HeaderNumber.decimal("2147483647", as: Int32.self) == .max)
        #expect(HeaderNumber.decimal("2147483648", as: Int32.self) == nil)
    }

    @Test(
        "when a delta-seconds is larger than 2^31, should read it as 2^31 (RFC 9111 §1.2.2)",
        arguments: [
            ("0", Int64(0)), ("60", 60), ("2147483647", 2_147_483_647), ("2147483648", 2_147_483_648),
            ("2147483649", 2_147_483_648), ("9223372036854775808", 2_147_483_648),
            (String(repeating: "9", count: 400), 2_147_483_648),
        ] as [(String, Int64)])
    func deltaSeconds(text: String, value: Int64) {
        #expect(HeaderNumber.deltaSeconds(text) == value)
    }

    @Test("when a delta-seconds is not only digits, should read nothing", arguments: ["", "-1", "1.5", " 1", "1s"])
    func notDeltaSeconds(text: String) {
        #expect(HeaderNumber.deltaSeconds(text) == nil)
    }

    @Test(
        "when seconds are written back, should round down within ±2^31 and the platform's Int, 0 for NaN",
        arguments: [
            (TimeInterval(1.9), 1), (-1.5, -2), (.nan, 0), (.infinity, Int(clamping: Int64(2_147_483_648))),
            (-.infinity, -2_147_483_648), (1e300, Int(clamping: Int64(2_147_483_648))),
        ])
    func wholeSeconds(seconds: TimeInterval, value: Int) {
        #expect(HeaderNumber.wholeSeconds(seconds) == value)
    }
}
