import Foundation
import Testing

@testable import NetworkModuleCore

/// The HTTP-date parser behind `Retry-After`: the three forms RFC 9110 allows, strictly, and
/// `nil`, never a crash, for anything else a server may send.
@Suite("HTTP dates")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the date of RFC 9110's examples.
    static let example = Date(timeIntervalSince1970: 784_111_777)
    /// 2026-11-21 00:00:00 GMT.
    static let now = Date(timeIntervalSince1970: 1_795_219_200)

    @Test(
        "when given any of the three HTTP forms, should read the same instant",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Sun Nov 6 08:49:37 1994", "Sun Nov 06 08:49:37 1994", "sun, 06 nov 1994 08:49:37 gmt",
        ])
    func threeForms(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == Self.example)
    }

    @Test("when the date is a leap day, should accept it only in a leap year")
    func leapDays() {
        #expect(
            HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT", now: Self.now) == Date(timeIntervalSince1970: 1_709_164_800)
        )
        #expect(
            HTTPDate.parse("Tue, 29 Feb 2000 12:00:00 GMT", now: Self.now) == Date(timeIntervalSince1970: 951_825_600))
        #expect(HTTPDate.parse("Wed, 29 Feb 2023 00:00:00 GMT", now: Self.now) == nil)
        #expect(HTTPDate.parse("Thu, 29 Feb 1900 00:00:00 GMT", now: Self.now) == nil)
    }

    @Test(
        "when an RFC 850 year has two digits, should take the latest year not more than 50 years ahead",
        arguments: [("94", 1994), ("26", 2026), ("76", 2076), ("77", 1977), ("00", 2000)])
    func twoDigitYears(twoDigits: String, year: Int) throws {
        let parsed = try #require(HTTPDate.parse("Monday, 01-Jan-\(twoDigits) 00:00:00 GMT", now: Self.now))
        let expected = try #require(HTTPDate.parse("Mon, 01 Jan \(year) 00:00:00 GMT", now: Self.now))
        #expect(parsed == expected)
    }

    @Test(
        "when the text is not an HTTP-date, should give nil",
        arguments: [
            "", "soon", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT", "Fun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov   6 08:49:37 1994",
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 0٦ Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT\0",
        ])
    func notADate(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil)
    }

    @Test("when a date holds bytes that stop Linux's DateFormatter, should give nil (found by the fuzzer)")
    func fuzzerFinding() {
        // A Retry-After value scripts/fuzz.sh produced: DateFormatter on Linux stopped the
        // process on it ("Incorrect range CFRange(location: 0, length: 7)").
        let text = String(
            decoding: Array("Wed, 2-".utf8) + [0xD9, 0xB0] + Array("ct 2015 07:\"8:00 GMT".utf8), as: UTF8.self)

        #expect(HTTPDate.parse(text, now: Self.now) == nil)
        #expect(RetryAfter.delay(from: text, now: Self.now) == nil)
    }

    @Test("when Retry-After is a number of seconds past 2^31, should read 2^31, never infinity (RFC 9111 §1.2.2)")
    func retryAfterHugeSeconds() {
        // 400 digits: read as a Double they were +infinity.
        #expect(RetryAfter.delay(from: String(repeating: "9", count: 400), now: Self.now) == 2_147_483_648)
        #expect(RetryAfter.delay(from: " 120 ", now: Self.now) == 120)
        #expect(RetryAfter.delay(from: "-1", now: Self.now) == nil)
    }

    @Test("when the current time is out of any calendar's range, should still answer without a crash")
    func extremeNow() {
        for now in [Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: -.infinity), .distantFuture] {
            _ = HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now)
            #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == Self.example)
        }
    }

    @Test("when a date is after 2038 or a time is far out, should count its seconds in 64 bits (a 32-bit Int traps)")
    func farDates() {
        // 9999-12-31T23:59:59Z: 253,402,300,799 seconds, past a 32-bit `Int` (watchOS).
        #expect(
            HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: Self.now)
                == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(
            HTTPDate.parse("Tue, 19 Jan 2038 03:14:08 GMT", now: Self.now) == Date(timeIntervalSince1970: 2_147_483_648)
        )
        // The current year of a `now` in the year 5,000,000 is past the reader's range: no century for "94".
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: Date(timeIntervalSince1970: 1.6e14)) == nil)
    }
}
