import Testing

@testable import NetworkModuleCore

@Suite("ASCII sets")
struct ASCIISetTests {
    @Test("the header token set should match RFC 9110's tchar for every byte")
    func tokenCharactersMatchGrammar() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(HeaderValidation.tokenCharacters.contains(byte) == tchar.contains(byte), "byte \(byte)")
        }
    }

    @Test("the URL sets should match RFC 3986's unreserved, path and query characters for every byte")
    func urlCharactersMatchGrammar() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let path = unreserved.union("!$&'()*+,;=:@/".utf8)
        let query = path.union("?".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(PercentEncoding.unreserved.contains(byte) == unreserved.contains(byte), "byte \(byte)")
            #expect(PercentEncoding.pathCharacters.contains(byte) == path.contains(byte), "byte \(byte)")
            #expect(PercentEncoding.queryCharacters.contains(byte) == query.contains(byte), "byte \(byte)")
        }
    }

    @Test("when given characters beyond ASCII, should leave them out, and never hold a byte from 128 up")
    func nonASCII() {
        let set = ASCIISet("aé€")
        #expect(set.contains(UInt8(ascii: "a")))
        for byte in UInt8(128)...UInt8.max { #expect(!set.contains(byte), "byte \(byte)") }
    }

    @Test(
        "when checking a whole string or substring, should say whether every byte is in the set",
        arguments: [
            ("application/json", false), ("abc", true), ("", true), ("ab c", false), ("abcé", false),
            (String(repeating: "z", count: 100), true),
        ])
    func containsAll(text: String, expected: Bool) {
        let letters = ASCIISet.letters
        #expect(letters.containsAll(text) == expected)
        #expect(letters.containsAll(("/" + text + "/").dropFirst().dropLast()) == expected)
    }
}
