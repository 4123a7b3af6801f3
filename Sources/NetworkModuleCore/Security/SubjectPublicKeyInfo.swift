import Foundation

/// The `SubjectPublicKeyInfo` of an X.509 certificate (RFC 5280, section 4.1), the DER bytes a
/// public-key pin is the SHA-256 of (what `openssl x509 -pubkey | openssl pkey -pubin -outform der`
/// prints). The certificate is the server's, so it is read as untrusted input: every length is
/// checked, and anything but the expected structure gives `nil`, never a trap.
enum SubjectPublicKeyInfo {
    /// The `SubjectPublicKeyInfo` of `certificate` (DER), tag and length included; `nil` if
    /// `certificate` is not a DER certificate.
    static func der(ofCertificate certificate: Data) -> Data? {
        let bytes = [UInt8](certificate)
        // Certificate ::= SEQUENCE { tbsCertificate TBSCertificate, ... }
        guard let outer = element(in: bytes, at: 0), outer.tag == sequence,
            let tbs = element(in: bytes, at: outer.contentStart), tbs.tag == sequence
        else { return nil }
        // TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer,
        //   validity, subject, subjectPublicKeyInfo, ... }
        var position = tbs.contentStart
        var index = 0
        while position < tbs.end {
            guard let field = element(in: bytes, at: position), field.end <= tbs.end else { return nil }
            if index == 0 && field.tag == explicitVersion {
                position = field.end
                continue
            }
            if index == 5 {
                guard field.tag == sequence else { return nil }
                return Data(bytes[position..<field.end])
            }
            index += 1
            position = field.end
        }
        return nil
    }

    private static let sequence: UInt8 = 0x30
    private static let explicitVersion: UInt8 = 0xA0

    /// One DER element: its tag, where its contents start and where it ends.
    private struct Element {
        let tag: UInt8
        let contentStart: Int
        let end: Int
    }

    /// The element that starts at `start`, if its header and contents fit in `bytes`. Only the
    /// definite lengths DER allows, in at most four length bytes.
    private static func element(in bytes: [UInt8], at start: Int) -> Element? {
        guard start >= 0, start + 2 <= bytes.count else { return nil }
        let tag = bytes[start]
        let first = Int(bytes[start + 1])
        var length = first
        var contentStart = start + 2
        if first & 0x80 != 0 {
            let count = first & 0x7F
            guard (1...4).contains(count), contentStart + count <= bytes.count else { return nil }
            length = 0
            for byte in bytes[contentStart..<(contentStart + count)] { length = length << 8 | Int(byte) }
            contentStart += count
        }
        // Four length bytes can exceed a 32-bit Int (watchOS): the shifts then wrap negative.
        guard length >= 0, length <= bytes.count - contentStart else { return nil }
        return Element(tag: tag, contentStart: contentStart, end: contentStart + length)
    }
}
