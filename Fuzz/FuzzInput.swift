import Foundation

/// Reads typed values from a fuzzer's bytes, front to back, so that libFuzzer's mutations of
/// the bytes become mutations of a request or a response. Every read succeeds: past the end,
/// numbers are 0 and strings are empty, so any input decodes to something.
struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: UnsafeRawBufferPointer) {
        bytes = Array(data)
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> UInt16 {
        UInt16(byte()) << 8 | UInt16(byte())
    }

    /// Eight bytes as an `Int`: any value, `Int.min` and `Int.max` included.
    mutating func int64() -> Int {
        Int(truncatingIfNeeded: bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// A timeout: any `Double` (NaN, infinities, negative, zero, subnormal, huge), from 8 bytes
    /// read as a bit pattern.
    mutating func timeInterval() -> Double {
        Double(bitPattern: UInt64(truncatingIfNeeded: int64()))
    }

    /// Acceptable status codes: a byte says how many (0 to 4) and whether they are single
    /// codes or ranges; each code is any `Int` (8 bytes) or, more often, a status near 100-599.
    mutating func statusCodes() -> FuzzStatusCodes {
        let header = byte()
        var codes: [Int] = []
        for _ in 0..<Int(header % 5) * (header & 0x80 == 0 ? 1 : 2) {
            codes.append(byte() & 1 == 0 ? Int(uint16() % 700) : int64())
        }
        if header & 0x80 == 0 { return FuzzStatusCodes(codes: codes, ranges: []) }
        var ranges: [Range<Int>] = []
        var index = 0
        while index + 1 < codes.count {
            ranges.append(min(codes[index], codes[index + 1])..<max(codes[index], codes[index + 1]))
            index += 2
        }
        return FuzzStatusCodes(codes: [], ranges: ranges)
    }

    /// `count` raw bytes (fewer at the end of the input).
    mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + count)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// A length byte, then that many bytes.
    mutating func chunk() -> [UInt8] {
        bytes(Int(byte()))
    }

    /// A length-prefixed string. The bytes are read as UTF-8 (invalid sequences become U+FFFD),
    /// or, when the first byte after the length has its top bit set, as a list of Unicode
    /// scalars of 3 bytes each, so that control characters, NUL and every plane show up.
    mutating func string() -> String {
        let raw = chunk()
        guard let first = raw.first, first & 0x80 != 0 else {
            return String(decoding: raw, as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        var index = 1
        while index + 2 < raw.count {
            let value = UInt32(raw[index]) << 16 | UInt32(raw[index + 1]) << 8 | UInt32(raw[index + 2])
            scalars.append(Unicode.Scalar(value % 0x11_0000) ?? "\u{FFFD}")
            index += 3
        }
        return String(scalars)
    }

    /// The rest of the input.
    mutating func rest() -> [UInt8] {
        bytes(bytes.count - offset)
    }
}

/// Ends the fuzzer with a report when a property does not hold: libFuzzer saves the input.
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("property violated: \(message())\n".utf8))
        abort()
    }
}

/// Acceptable status codes as the fuzzer wrote them, and the set made of them through the
/// public initializers (variadic: up to four values, by count).
struct FuzzStatusCodes {
    var codes: [Int]
    var ranges: [Range<Int>]

    var built: AcceptableStatusCodes {
        if ranges.isEmpty {
            switch codes.count {
            case 0: return []
            case 1: return [codes[0]]
            case 2: return [codes[0], codes[1]]
            case 3: return [codes[0], codes[1], codes[2]]
            default: return [codes[0], codes[1], codes[2], codes[3]]
            }
        }
        switch ranges.count {
        case 1: return AcceptableStatusCodes(ranges[0])
        case 2: return AcceptableStatusCodes(ranges[0], ranges[1])
        case 3: return AcceptableStatusCodes(ranges[0], ranges[1], ranges[2])
        default: return AcceptableStatusCodes(ranges[0], ranges[1], ranges[2], ranges[3])
        }
    }

    /// Builds the set (which must not trap) and checks that it answers, at the edges of every
    /// code and range and their neighbours, exactly as a plain list of the same codes does.
    func check() -> AcceptableStatusCodes {
        let built = built
        let edges = codes + ranges.flatMap { [$0.lowerBound, $0.upperBound] } + [Int.min, Int.max, 0, 200]
        for edge in edges {
            for probe in [edge == Int.min ? edge : edge - 1, edge, edge == Int.max ? edge : edge + 1] {
                let expected = ranges.isEmpty ? codes.contains(probe) : ranges.contains { $0.contains(probe) }
                fuzzCheck(
                    built.contains(probe) == expected,
                    "\(self) answers \(built.contains(probe)) for \(probe), not \(expected)")
            }
        }
        return built
    }
}
