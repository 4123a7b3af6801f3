import Testing

@testable import NetworkModuleCore

@Suite("Header token table")
struct HeaderTokenTableTests {
    @Test("the bit table should match RFC 9110's tchar for every byte")
    func tableMatchesGrammar() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(HeaderValidation.isTokenCharacter(byte) == tchar.contains(byte), "byte \(byte)")
        }
    }
}
