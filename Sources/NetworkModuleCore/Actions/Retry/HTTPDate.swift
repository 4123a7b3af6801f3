import Foundation

/// Reads an HTTP-date (RFC 9110, section 5.6.7) from ASCII bytes, without `DateFormatter`: the
/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
/// asctime (`Sun Nov  6 08:49:37 1994`, the day also `6` or `06`) forms, names ignoring case.
/// Anything else is `nil` (another layout, `30 Feb`, a time out of range, trailing text,
/// non-ASCII). The server sends it, so it must hold up against any bytes, which Linux's
/// `DateFormatter` does not (it stops the process on some non-ASCII input: `scripts/fuzz.sh`).
enum HTTPDate {
    /// The date `text` names, or `nil` if it is not an HTTP-date; `now` places a two-digit RFC 850
    /// year (a date more than 50 years ahead is taken from the century before, as RFC 9110 asks).
    static func parse(_ text: String, now: Date) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return imfFixdate(bytes) ?? rfc850Date(bytes, now: now) ?? asctimeDate(bytes)
    }

    private static let shortDayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ bytes: [UInt8]) -> Date? {
        guard let parts = gmtDateParts(bytes, dayNames: shortDayNames, separator: " ", yearDigits: 4) else {
            return nil
        }
        return date(year: parts.year, month: parts.month, day: parts.day, time: parts.time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func rfc850Date(_ bytes: [UInt8], now: Date) -> Date? {
        guard let parts = gmtDateParts(bytes, dayNames: longDayNames, separator: "-", yearDigits: 2),
            let currentYear = year(of: now)
        else { return nil }
        let century = currentYear / 100 * 100
        guard let sameCentury = date(year: century + parts.year, month: parts.month, day: parts.day, time: parts.time)
        else { return nil }
        let fiftyYears: TimeInterval = 50 * 365.2425 * 86_400
        guard sameCentury.timeIntervalSince(now) > fiftyYears else { return sameCentury }
        return date(year: century - 100 + parts.year, month: parts.month, day: parts.day, time: parts.time)
    }

    /// The parts of `<day-name>, DD<separator>Mon<separator>YY[YY] HH:MM:SS GMT`, the layout
    /// IMF-fixdate and RFC 850 share; the month counts from 1.
    private static func gmtDateParts(
        _ bytes: [UInt8], dayNames: [String], separator: String, yearDigits: Int
    ) -> (year: Int, month: Int, day: Int, time: (Int, Int, Int))? {
        var reader = ByteReader(bytes)
        guard reader.readName(from: dayNames) != nil, reader.read(", "), let day = reader.readDigits(2),
            reader.read(separator), let month = reader.readName(from: monthNames), reader.read(separator),
            let year = reader.readDigits(yearDigits), reader.read(" "), let time = reader.readTimeOfDay(),
            reader.read(" GMT"), reader.isAtEnd
        else { return nil }
        return (year, month + 1, day, time)
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func asctimeDate(_ bytes: [UInt8]) -> Date? {
        var reader = ByteReader(bytes)
        guard reader.readName(from: shortDayNames) != nil, reader.read(" "),
            let month = reader.readName(from: monthNames), reader.read(" ")
        else { return nil }
        let day: Int?
        if reader.read(" ") {
            day = reader.readDigits(1)
        } else {
            day = reader.readDigits(2) ?? reader.readDigits(1)
        }
        guard let day, reader.read(" "), let time = reader.readTimeOfDay(), reader.read(" "),
            let year = reader.readDigits(4), reader.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// The date at `time` (hours, minutes, seconds) GMT on that day, if the day exists.
    private static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let (hour, minute, second) = time
        // In 64 bits: the seconds of a date after 2038 do not fit a 32-bit `Int` (watchOS).
        let days = Int64(daysSinceEpoch(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64((hour * 60 + minute) * 60 + second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date, in the proleptic Gregorian calendar (H. Hinnant's
    /// days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian year of `date`, in GMT (H. Hinnant's civil_from_days, the year only);
    /// `nil` for a date too far out to count in days.
    private static func year(of date: Date) -> Int? {
        // Bounded before it becomes an `Int` (32 bits on watchOS): a billion days is 2.7 million years.
        let wholeDays = (date.timeIntervalSince1970 / 86_400).rounded(.down)
        guard abs(wholeDays) < 1e9, let daysSinceEpoch = Int(exactly: wholeDays) else { return nil }
        let days = daysSinceEpoch + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        return yearOfEra + era * 400 + (shiftedMonth >= 10 ? 1 : 0)
    }
}

/// Reads ASCII bytes from the front, a piece at a time; each read moves on only if it matched.
private struct ByteReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index == bytes.count }

    /// Reads `literal` exactly, letters ignoring case.
    mutating func read(_ literal: String) -> Bool {
        let expected = Array(literal.utf8)
        guard bytes.count - index >= expected.count,
            zip(bytes[index...], expected).allSatisfy({ Self.lowercased($0) == Self.lowercased($1) })
        else { return false }
        index += expected.count
        return true
    }

    /// Reads the first of `names` that comes next, and returns its position in `names`.
    mutating func readName(from names: [String]) -> Int? {
        names.firstIndex { read($0) }
    }

    /// Reads exactly `count` decimal digits.
    mutating func readDigits(_ count: Int) -> Int? {
        guard bytes.count - index >= count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += count
        return value
    }

    /// Reads `HH:MM:SS` with hours up to 23, minutes up to 59 and seconds up to 60 (a leap second).
    mutating func readTimeOfDay() -> (Int, Int, Int)? {
        let start = index
        guard let hour = readDigits(2), read(":"), let minute = readDigits(2), read(":"),
            let second = readDigits(2), hour < 24, minute < 60, second <= 60
        else {
            index = start
            return nil
        }
        return (hour, minute, second)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
