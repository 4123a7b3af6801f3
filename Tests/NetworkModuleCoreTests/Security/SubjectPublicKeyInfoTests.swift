import Foundation
import Testing

@testable import NetworkModuleCore

/// Reading the public key a pin hashes out of a certificate: against certificates made by
/// `openssl req -x509` (an RSA 2048 and an EC P-256 key), whose `SubjectPublicKeyInfo` openssl
/// printed (`openssl x509 -pubkey | openssl pkey -pubin -outform der`); and against what a
/// hostile server could send instead, which must give `nil`, never a trap.
@Suite("SubjectPublicKeyInfo")
struct SubjectPublicKeyInfoTests {
    static let rsaCertificate = Data(
        base64Encoded:
            "MIIDCzCCAfOgAwIBAgIUTezcmqNO5ChcpQZw7MhdVItOCrEwDQYJKoZIhvcNAQELBQAwFDESMBAGA1UEAwwJMTI3LjAuMC4x"
            + "MCAXDTI2MTEyNjA0NTgyOFoYDzIxMjYxMTAyMDQ1ODI4WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwggEiMA0GCSqGSIb3DQEB"
            + "AQUAA4IBDwAwggEKAoIBAQDbAUPFrwrEiI8MbJxf0yT3qwqSGktq9/ZHLW3argIYzHUsJaHxFGFl1FtFyPYV0vYvggjuXcO9"
            + "O1ypaPcS/S5QJGL78kiJNCNVaqyQLHuOv+O/mY2LZU2cK75WJJIggxotW1z+2uq/JvyDkCqlf9HsQwsj2tUVRbT7BbBw/nR7"
            + "RGQu6Gl9pXesTU2AxbXTAqj/jmEwLM0t0lEdCb3axx5+ZQ9CCYzHLQ9g/qr+IfWdSjYcfZlEWrfJq+ej1TGwZuC43Py+DwYb"
            + "L1le7w8pijKcPpe6UcGUhOQzO6bpffISAfvaUPkw3FcePn3A26qcvSEC7u+E7QQ/PeLZHusWjGL5AgMBAAGjUzBRMB0GA1Ud"
            + "DgQWBBT5FimSMuhV6YTMY6SoAGbj42uTGTAfBgNVHSMEGDAWgBT5FimSMuhV6YTMY6SoAGbj42uTGTAPBgNVHRMBAf8EBTAD"
            + "AQH/MA0GCSqGSIb3DQEBCwUAA4IBAQBWTFSi3roooNvFcjn9jPMl0Xk3xIY0R5QIrNVouWpXR7DnKRdLeYJGFj/nXnI92I0i"
            + "SjwDJ7XCPyZpKySnrRz0v0SGXxaIafmpxySbnaYLwfJkISkQEJAqr7ZS8OYXjIEoY923++QfY/3DIPWjXeQQg53J1EWkXgWH"
            + "OTZzm3YB05HJJdtvKXgY2iO+uSbC4UvaiUyTq83HzyivTlukmumyvBSfTNaWN+v1IveRJVLCY10jkPDfs3QfanPzCMs4ToSg"
            + "54y8WDSfJO3yExjp5QbMuDhNJ75Ae5quAa0TJPicrKXuUoiyI8nIKyV8PMkXwoD2OfSzayzTBbqBJaaEkPQI")!
    static let rsaPublicKeyInfo = Data(
        base64Encoded:
            "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA2wFDxa8KxIiPDGycX9Mk96sKkhpLavf2Ry1t2q4CGMx1LCWh8RRh"
            + "ZdRbRcj2FdL2L4II7l3DvTtcqWj3Ev0uUCRi+/JIiTQjVWqskCx7jr/jv5mNi2VNnCu+ViSSIIMaLVtc/trqvyb8g5AqpX/R"
            + "7EMLI9rVFUW0+wWwcP50e0RkLuhpfaV3rE1NgMW10wKo/45hMCzNLdJRHQm92scefmUPQgmMxy0PYP6q/iH1nUo2HH2ZRFq3"
            + "yavno9UxsGbguNz8vg8GGy9ZXu8PKYoynD6XulHBlITkMzum6X3yEgH72lD5MNxXHj59wNuqnL0hAu7vhO0EPz3i2R7rFoxi"
            + "+QIDAQAB")!
    static let ecCertificate = Data(
        base64Encoded:
            "MIIBgzCCASmgAwIBAgIUeWtVb7xkhRqyjLWkz0GNmG2k2t0wCgYIKoZIzj0EAwIwFjEUMBIGA1UEAwwLZXhhbXBsZS5jb20w"
            + "IBcNMjYxMTI2MDQ1ODI4WhgPMjEyNjExMDIwNDU4MjhaMBYxFDASBgNVBAMMC2V4YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYI"
            + "KoZIzj0DAQcDQgAEiKsdJQVf/om/oBpHtYrDyE6TylkEKRszfDlxTE9Rp7/Ryfe6TEQLc8qjOE1VfbSYwLtLuIWyVGpLY77n"
            + "TVFlFKNTMFEwHQYDVR0OBBYEFDnKNDbkxfCtXOOLQ6jMr+RrDoTEMB8GA1UdIwQYMBaAFDnKNDbkxfCtXOOLQ6jMr+RrDoTE"
            + "MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIhAPLHAZLLbN2KggJlkGy4zTryOtYrhUgthyKZz5+8/HAJAiAl"
            + "ltDxeD7MyKH0OgQk/hzdyEbIiN/OH27X3aJIloeGkQ==")!
    static let ecPublicKeyInfo = Data(
        base64Encoded:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEiKsdJQVf/om/oBpHtYrDyE6TylkEKRszfDlxTE9Rp7/Ryfe6TEQLc8qjOE1V"
            + "fbSYwLtLuIWyVGpLY77nTVFlFA==")!

    @Test("when given an RSA or an EC certificate, should read the key info openssl prints")
    func readsTheKeyInfo() {
        let rsa = SubjectPublicKeyInfo.der(ofCertificate: Self.rsaCertificate)
        let ec = SubjectPublicKeyInfo.der(ofCertificate: Self.ecCertificate)

        #expect(rsa == Self.rsaPublicKeyInfo)
        #expect(ec == Self.ecPublicKeyInfo)
    }

    @Test("when a certificate has no version field (X.509 v1), should read the sixth field")
    func versionOne() {
        // SEQUENCE { SEQUENCE { INTEGER 1, SEQUENCE {}, SEQUENCE {}, SEQUENCE {}, SEQUENCE {},
        // SEQUENCE { 0x05 0x00 } } }
        let tbs: [UInt8] = [0x02, 0x01, 0x01, 0x30, 0x00, 0x30, 0x00, 0x30, 0x00, 0x30, 0x00, 0x30, 0x02, 0x05, 0x00]
        let certificate = Data([0x30, UInt8(tbs.count + 2), 0x30, UInt8(tbs.count)] + tbs)

        #expect(SubjectPublicKeyInfo.der(ofCertificate: certificate) == Data([0x30, 0x02, 0x05, 0x00]))
    }

    @Test("when a certificate is cut short anywhere, should give nil")
    func everyPrefix() {
        for length in 0..<Self.ecCertificate.count {
            let prefix = Self.ecCertificate.prefix(length)
            let info = SubjectPublicKeyInfo.der(ofCertificate: prefix)
            // A prefix long enough to hold the whole key info may still name it: the fields after
            // it are not read. Anything shorter is not a certificate.
            #expect(info == nil || info == Self.ecPublicKeyInfo, "prefix of \(length) bytes")
        }
    }

    @Test(
        "when the bytes are not a certificate, should give nil",
        arguments: [
            [], [0x30], [0x30, 0x80], [0x30, 0x85, 0, 0, 0, 0, 1], [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x02, 0x01, 0x00], [0x30, 0x03, 0x02, 0x01, 0x00], [0x30, 0x02, 0x30, 0x00],
            [0x30, 0x04, 0x30, 0x02, 0x30, 0x05],
        ] as [[UInt8]])
    func notCertificates(bytes: [UInt8]) {
        #expect(SubjectPublicKeyInfo.der(ofCertificate: Data(bytes)) == nil)
    }

    @Test("when a certificate's bytes are changed at random, should never trap (seeded, 20,000 mutations)")
    func mutations() {
        var random = SeededGenerator(seed: 0x5EED)
        var read = 0
        for _ in 0..<20_000 {
            var bytes = [UInt8](Bool.random(using: &random) ? Self.rsaCertificate : Self.ecCertificate)
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if SubjectPublicKeyInfo.der(ofCertificate: Data(bytes)) != nil { read += 1 }
        }
        #expect(read > 0, "some mutations leave the structure intact")
    }
}
