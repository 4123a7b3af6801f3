import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An adversarial review of 6ab39d9 (the round-2 masking code). Each test asserts a promise of
/// SECURITY.md "Secrets" / docs/actions.md; a failing one is a break. Observed outputs are in the
/// expectation messages.
@Suite("Redaction: second attack on nested and free-text masking")
struct RedactionSecondAttackTests: SecretMaskingChecks {
    // MARK: - Promise 1

    @Test(
        "a secret header line whose value holds a quote or & (Digest, OAuth 1.0, quoted cookie) should be masked whole",
        arguments: [
            "Authorization: Digest username=\"bob\", realm=\"a\", nonce=\"n\", response=\"s3cr3t\"",
            "Authorization: OAuth oauth_consumer_key=\"k\", oauth_token=\"s3cr3t\", oauth_signature=\"x\"",
            "Cookie: theme=\"dark\"; session=s3cr3t",
            "Cookie: a=1&b=2; session=s3cr3t",
        ])
    func headerLineWithQuote(text: String) {
        expectNoSecret(Redaction.default.redactedText(text))
        expectNoSecret(body(Data("HTTP/1.1 200 OK\r\n\(text)\r\n".utf8), "text/plain"))
    }

    @Test("a nested value masked at one level should not leave a secret escaped at a deeper level in clear")
    func oneLevelMaskedHidesDeeperLevel() throws {
        // Level 0 masks a quoted value; an escaped secret follows it.
        expectNoSecret(try url("https://a.example/?q=token='x'%26password%3Ds3cr3t"))
        // Level 0 masks a URL's password; the escaped query after it holds a token.
        expectNoSecret(try url("https://a.example/?next=//u:p@h/%3Ftoken%3Ds3cr3t"))
        // Level 1 masks a token; a return URL escaped once more holds a password.
        expectNoSecret(
            try url(
                "https://a.example/login?r=https%3A%2F%2Fa.example%2Fcb%3Ftoken%3Dt1%26next%3Dhttps%253A%252F%252Fb.example%252F%253Fpassword%253Ds3cr3t"
            ))
        expectNoSecret(
            body(Data("r=token%3Dt1%26next%3Da%253Fpassword%253Ds3cr3t".utf8), "application/x-www-form-urlencoded"))
    }

    @Test("a URL whose return URL is escaped should be masked in free text and JSON strings as redacted(url) masks it")
    func escapedReturnURLOutsideURLs() throws {
        let text = "https://a.example/login?r=https%3A%2F%2Fb.example%2Fcb%3Ftoken%3Ds3cr3t"
        expectNoSecret(try url(text))  // held: the URL path decodes
        expectNoSecret(
            Redaction.default.redactedText(
                "Error Domain=NSURLErrorDomain Code=-1001 \"timed out\" UserInfo={NSErrorFailingURLStringKey=\(text)}"))
        expectNoSecret(body(Data(#"{"next":"\#(text)"}"#.utf8), "application/json"))
        let error = URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: text)!])
        expectNoSecret(Redaction.default.loggable(error))
    }

    @Test("a secret in a JSON object's key (a map keyed by URL) should be masked")
    func secretInJSONKey() {
        let json = #"{"https://a.example/cb?token=s3cr3t":200}"#
        expectNoSecret(body(Data(json.utf8), "application/json"))
        expectNoSecret(body(Data(json.utf8), nil))
        expectNoSecret(body(Data(#"{"Authorization: Bearer s3cr3t":1}"#.utf8), "application/json"))
        // The free-text scanner alone would mask it; read as JSON first, it is left.
        expectNoSecret(body(Data(#"{"data":"{\"https://a.example/?token=s3cr3t\":1}"}"#.utf8), "application/json"))
    }

    @Test(
        "a map written by another language (Python, Ruby, PHP, Perl) should have its secret masked",
        arguments: [
            "{'password': 's3cr3t'}",
            "error: {'user': 'bob', 'token': 's3cr3t'}",
            "{\"password\"=>\"s3cr3t\"}",
            "{\"password\" => \"s3cr3t\"}",
            "Array\n(\n    [password] => s3cr3t\n)\n",
            "$VAR1 = { 'password' => 's3cr3t' };",
        ])
    func otherLanguagesMaps(text: String) {
        expectNoSecret(Redaction.default.redactedText(text))
        expectNoSecret(body(Data(text.utf8), "text/plain"))
    }

    @Test("a UTF-8 text body with a NUL in its first two bytes should not be read as UTF-16 and left in clear")
    func textBodyWithLeadingNUL() {
        expectNoSecret(body(Data([0]) + Data("password=s3cr3t".utf8), "text/plain"))
        expectNoSecret(body(Data("a\u{0}x password=s3cr3t".utf8), nil))
        expectNoSecret(body(Data("a\u{0}&password=s3cr3t&x=1".utf8), "application/x-www-form-urlencoded"))
    }

    @Test("free text: a JSON key escaped as \\u0070assword after a prefix should be masked")
    func escapedUnicodeKeyInFreeText() {
        expectNoSecret(Redaction.default.redactedText(#"decoding failed: {"\u0070assword":"s3cr3t"}"#))
    }

    @Test("free text: JSON escaped twice (a description of a string holding a JSON string) should be masked")
    func doublyEscapedJSONInFreeText() {
        expectNoSecret(Redaction.default.redactedText(#"message: "{\"data\":\"{\\\"password\\\":\\\"s3cr3t\\\"}\"}""#))
    }

    @Test("a JSON string nested 14 times with a secret at the bottom should be masked")
    func deeplyEscapedJSONString() {
        var json = #"{"password":"s3cr3t"}"#
        for _ in 0..<14 {
            let data = try! JSONSerialization.data(withJSONObject: ["a": json], options: [.sortedKeys])
            json = String(decoding: data, as: UTF8.self)
        }
        expectNoSecret(body(Data(json.utf8), "application/json"))
    }

    // MARK: - Promise 3: no secret, no change

    @Test("held: binary bodies (PNG, gzip, protobuf with a zero second byte) are never rewritten")
    func binaryBodiesUnchanged() {
        let bodies: [Data] = [
            Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52]),
            Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, 0x3D, 0x00, 0x3A, 0x00]),
            Data([0x08, 0x00, 0x12, 0x00, 0x3D, 0x00, 0x3A, 0x00, 0x7B, 0x00]),
            Data([0x7B, 0x00, 0x3D, 0x00, 0x3A, 0x00, 0x22, 0x00, 0x0A, 0x00]),
            Data([0x00, 0x7B, 0x00, 0x3D, 0x00, 0x3A, 0x00, 0x22]),
        ]
        for data in bodies {
            for type in [nil, "application/octet-stream", "application/x-protobuf", "image/png"] as [String?] {
                #expect(
                    Redaction.default.maskedBody(data, contentType: type) == .unchanged,
                    "\(Array(data)) \(type ?? "nil")")
            }
        }
    }

    @Test("held: NDJSON keeps blank lines, CRLF and a trailing newline byte for byte")
    func ndjsonPreserved() {
        let text = "{\"a\":1}\r\n\r\n{\"password\":\"s3cr3t\",\"b\":2}\r\n  \n{\"c\":\"x\"}\n"
        #expect(
            body(Data(text.utf8), nil) == "{\"a\":1}\r\n\r\n{\"b\":2,\"password\":\"REDACTED\"}\r\n  \n{\"c\":\"x\"}\n")
        let clean = "{\"a\":1}\r\n\r\n{\"b\":2}\r\n  \n{\"c\":\"x\"}\n"
        #expect(Redaction.default.maskedBody(Data(clean.utf8), contentType: nil) == .unchanged)
    }

    @Test("observed: a JSON string holding JSON is re-serialized when a nested secret is masked")
    func nestedJSONReserialization() {
        let json = #"{"data":"{\"z\":1.0,\"password\":\"s3cr3t\",\"a\":\"\\/x\"}"}"#
        let masked = body(Data(json.utf8), "application/json")
        expectNoSecret(masked)
        print("nestedJSONReserialization observed:", masked)
    }

    @Test(
        "held: boundaries of the free-text scanner never trap",
        arguments: [
            "token:", "token: \"", "token: \\\"", "\"token\":", "\"token\": \\", "\"token\":\\\"", "token=(",
            "token: (",
            "\\\":", "//", "a//", "//u:p@", "://", ":", "=", "\"", "\\", "Authorization:", "\"token\":\\\"x\\",
            "token='", "token=\"\\", "\":", "\\\"token\\\":", "password: [[[", "x=//:@",
        ])
    func boundaries(text: String) {
        _ = Redaction.default.redactedText(text)
        _ = Redaction.default.maskedBody(Data(text.utf8), contentType: nil)
        _ = Redaction.default.maskedBody(Data(text.utf8), contentType: "application/x-www-form-urlencoded")
    }
}

/// Inputs that might crash the process (stack overflow, trap): run alone first.
@Suite("Redaction: second attack, crash candidates")
struct RedactionSecondAttackDeepTests {
    @Test("10,000 nested arrays with a secret at the bottom: no stack overflow, no secret")
    func deepArrays() {
        let json =
            String(repeating: "[", count: 10_000) + #"{"password":"s3cr3t"}"# + String(repeating: "]", count: 10_000)
        for type in [nil, "application/json"] as [String?] {
            let out = String(
                decoding: Redaction.default.writableBody(Data(json.utf8), contentType: type), as: UTF8.self)
            #expect(!out.contains("s3cr3t"))
        }
        #expect(!Redaction.default.redactedText("x " + json).contains("s3cr3t"))
    }

    @Test("1 MiB of {\"a\":\" nesting: no crash")
    func megabyteOfOpenStrings() {
        let text = String(repeating: #"{"a":""#, count: (1 << 20) / 6)
        _ = Redaction.default.writableBody(Data(text.utf8), contentType: nil)
        _ = Redaction.default.redactedText(text)
        let secretText = String(repeating: #"{"password":""#, count: (1 << 20) / 13)
        _ = Redaction.default.redactedText(secretText)
    }

    @Test(
        "a URL with invalid percent-encoding and a secret: no trap, no secret",
        arguments: [
            "https://a.example/?x=%zz&token=s3cr3t", "https://a.example/?x=%E9&token=s3cr3t",
            "https://a.example/?x=%&token=s3cr3t", "https://a.example/?x=a%2&next=//u:s3cr3t@h",
            "https://a.example/#x=%zz&token=s3cr3t",
        ])
    func invalidPercentEncoding(text: String) {
        guard let url = URL(string: text) else {
            print("invalidPercentEncoding: URL(string:) is nil for", text)
            return
        }
        let masked = Redaction.default.redacted(url).absoluteString
        #expect(!masked.contains("s3cr3t"), "\(masked)")
    }
}
