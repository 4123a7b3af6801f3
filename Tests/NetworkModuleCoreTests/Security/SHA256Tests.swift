import Foundation
import Testing

@testable import NetworkModuleCore

/// The framework's SHA-256 against the examples of FIPS 180-4 (and NIST's long message), and
/// against the pins openssl computes for the test certificates' keys.
@Suite("SHA-256")
struct SHA256Tests {
    @Test(
        "when hashing FIPS 180-4's examples, should give their digests",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            // 55, 56 and 64 bytes: the padding's edges.
            (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
            (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        ])
    func examples(message: String, digest: String) {
        #expect(Self.hex(SHA256.hash(Data(message.utf8))) == digest)
    }

    @Test("when hashing a million a's, should give NIST's digest")
    func millionAs() {
        let digest = SHA256.hash(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))

        #expect(Self.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("when hashing a certificate's key info, should give the pin openssl gives")
    func opensslPins() {
        let rsa = SHA256.hash(SubjectPublicKeyInfoTests.rsaPublicKeyInfo).base64EncodedString()
        let ec = SHA256.hash(SubjectPublicKeyInfoTests.ecPublicKeyInfo).base64EncodedString()

        #expect(rsa == ServerTrustPolicyTests.rsaPin)
        #expect(ec == ServerTrustPolicyTests.ecPin)
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}
