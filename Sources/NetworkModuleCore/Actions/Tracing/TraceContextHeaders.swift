import Foundation

/// The W3C Trace Context header fields, `traceparent` and `tracestate`: reading them as the
/// recommendation says (every malformed value refused, never trapped on), and making new
/// identifiers from a random source.
enum TraceContextHeaders {
    /// The field that carries the trace and the parent span.
    static let traceparent = "traceparent"
    /// The field that carries the vendors' state.
    static let tracestate = "tracestate"

    /// The fields of a well-formed `traceparent`.
    struct Parsed: Equatable {
        let traceID: String
        let spanID: String
        let isSampled: Bool
    }

    /// Reads `value` as a `traceparent` field: `nil` for anything malformed.
    static func parse(_ value: String) -> Parsed? {
        let bytes = Array(value.utf8)
        // version (2) - trace-id (32) - parent-id (16) - flags (2): 55 bytes.
        guard bytes.count >= 55, bytes[2] == dash, bytes[35] == dash, bytes[52] == dash else { return nil }
        let version = bytes[0..<2]
        guard isLowercaseHex(version), !(version.elementsEqual("ff".utf8)) else { return nil }
        if version.elementsEqual("00".utf8) {
            guard bytes.count == 55 else { return nil }
        } else if bytes.count > 55 {
            // A later version may add fields, each after a dash.
            guard bytes[55] == dash else { return nil }
        }
        let trace = bytes[3..<35]
        let span = bytes[36..<52]
        let flags = bytes[53..<55]
        guard isLowercaseHex(trace), isLowercaseHex(span), isLowercaseHex(flags),
            trace.contains(where: { $0 != zero }), span.contains(where: { $0 != zero }),
            let flagBits = UInt8(String(decoding: flags, as: UTF8.self), radix: 16)
        else { return nil }
        return Parsed(
            traceID: String(decoding: trace, as: UTF8.self), spanID: String(decoding: span, as: UTF8.self),
            isSampled: flagBits & 1 == 1)
    }

    /// `value` if it is a well-formed `tracestate`: at most 32 comma-separated list members,
    /// each `key=value` with the recommendation's characters, no key twice, at most 512 bytes in
    /// all; empty members (optional whitespace around commas) are allowed. `nil` otherwise, or
    /// for a value with no member.
    static func validTraceState(_ value: String) -> String? {
        guard value.utf8.count <= 512 else { return nil }
        var keys = Set<Substring>()
        for rawMember in value.split(separator: ",", omittingEmptySubsequences: false) {
            var trimmed = rawMember
            while trimmed.first.map(isOptionalWhitespace) == true { trimmed.removeFirst() }
            while trimmed.last.map(isOptionalWhitespace) == true { trimmed.removeLast() }
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            let key = trimmed[..<equals]
            let memberValue = trimmed[trimmed.index(after: equals)...]
            guard isValidKey(key), isValidValue(memberValue), keys.insert(key).inserted else { return nil }
        }
        guard !keys.isEmpty, keys.count <= 32 else { return nil }
        return value
    }

    /// A new trace identifier: 16 random bytes, not all zero, in lowercase hexadecimal.
    static func newTraceID<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        let high = generator.next()
        let low = high == 0 ? nonZero(using: &generator) : generator.next()
        return hex(high) + hex(low)
    }

    /// A new span identifier: 8 random bytes, not all zero, in lowercase hexadecimal.
    static func newSpanID<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        hex(nonZero(using: &generator))
    }

    /// A number from `generator` other than zero; after a few zeros (a broken source), one from
    /// the system's generator, so that no source can stall a request.
    private static func nonZero<Generator: RandomNumberGenerator>(using generator: inout Generator) -> UInt64 {
        for _ in 0..<4 {
            let value = generator.next()
            if value != 0 { return value }
        }
        var system = SystemRandomNumberGenerator()
        var value: UInt64 = 0
        while value == 0 { value = system.next() }
        return value
    }

    /// `value` as 16 lowercase hexadecimal digits.
    static func hex(_ value: UInt64) -> String {
        // On the stack, then one copy into the string: no array to allocate and free.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { digits in
            for index in 0..<16 {
                let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
                digits[index] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble  // 0-9, a-f
            }
            return String(decoding: UnsafeBufferPointer(digits), as: UTF8.self)
        }
    }

    // MARK: - Characters

    private static let dash = UInt8(ascii: "-")
    private static let zero = UInt8(ascii: "0")

    private static func isLowercaseHex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func isOptionalWhitespace(_ character: Character) -> Bool {
        character == " " || character == "\t"
    }

    /// A key: `lcalpha 0*255(lcalpha / DIGIT / "_" / "-" / "*" / "/")`, or a multi-tenant
    /// `tenant@system` (tenant up to 241 characters starting with a letter or digit, system up to
    /// 14 starting with a letter).
    private static func isValidKey(_ key: Substring) -> Bool {
        let bytes = Array(key.utf8)
        func isKeyCharacter(_ byte: UInt8) -> Bool {
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "/")
        }
        func isLowercaseLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        if let at = bytes.firstIndex(of: UInt8(ascii: "@")) {
            let tenant = bytes[..<at]
            let system = bytes[(at + 1)...]
            guard let tenantFirst = tenant.first, let systemFirst = system.first, tenant.count <= 241,
                system.count <= 14, isLowercaseLetter(tenantFirst) || isDigit(tenantFirst),
                isLowercaseLetter(systemFirst)
            else { return false }
            return tenant.allSatisfy(isKeyCharacter) && system.allSatisfy(isKeyCharacter)
        }
        guard let first = bytes.first, isLowercaseLetter(first), bytes.count <= 256 else { return false }
        return bytes.allSatisfy(isKeyCharacter)
    }

    /// A value: `0*255(chr) nblk-chr`, printable ASCII without `,` and `=`, no trailing space.
    private static func isValidValue(_ value: Substring) -> Bool {
        let bytes = Array(value.utf8)
        guard let last = bytes.last, bytes.count <= 256, last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy { byte in
            (0x20...0x7E).contains(byte) && byte != UInt8(ascii: ",") && byte != UInt8(ascii: "=")
        }
    }
}
