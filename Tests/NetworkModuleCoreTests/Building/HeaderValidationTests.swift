import Testing

@testable import NetworkModuleCore

@Suite("Header validation")
struct HeaderValidationTests {
    /// What RFC 9110 allows in a field value, byte by byte: no control character but tab.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    @Test("when a value holds one ASCII byte at any position, should accept it exactly when RFC 9110 does")
    func everyByteAtEveryPosition() {
        // Lengths around the eight-byte words the check reads, so the byte lands in a word and
        // in the byte-by-byte tail.
        for length in [1, 7, 8, 9, 16, 17, 23] {
            for position in 0..<length {
                for byte in UInt8(0)..<0x80 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    let value = String(decoding: bytes, as: UTF8.self)
                    let accepted = (try? HeaderValidation.validate(name: "X-Test", value: value)) != nil
                    #expect(accepted == Self.isAllowed(byte), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    @Test("when a value holds UTF-8 beyond ASCII beside a control character, should still find the control character")
    func nonASCIINeighbours() throws {
        try HeaderValidation.validate(name: "X-Test", value: "caf\u{E9} \u{20AC}\u{1F600} ok\tand more")
        for text in ["\u{E9}\u{E9}\u{E9}\r\n", "\u{20AC}\u{20AC}\u{7F}x", "\u{1F600}\u{1F600}\0", "\u{FF}\u{80}a\n"] {
            #expect(throws: NetworkError.invalidRequest(.invalidHeaderValue(name: "X-Test"))) {
                try HeaderValidation.validate(name: "X-Test", value: text)
            }
        }
    }
}
