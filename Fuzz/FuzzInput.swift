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
