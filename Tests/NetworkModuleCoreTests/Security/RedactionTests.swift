import Foundation
import NetworkModuleCore
import Testing

@Suite("Redaction")
struct RedactionTests {
    @Test("by default, should mask Authorization, Proxy-Authorization, Cookie and Set-Cookie in any casing")
    func defaultHeaders() {
        let headers: HTTPHeaders = [
            "authorization": "Bearer s3cret", "Proxy-Authorization": "Basic x", "COOKIE": "a=b",
            "Set-Cookie": "c=d", "Accept": "application/json",
        ]

        let redacted = Redaction.default.redacted(headers)

        #expect(redacted["Authorization"] == "REDACTED")
        #expect(redacted["proxy-authorization"] == "REDACTED")
        #expect(redacted["Cookie"] == "REDACTED")
        #expect(redacted["set-cookie"] == "REDACTED")
        #expect(redacted["Accept"] == "application/json")
        #expect(redacted.count == headers.count)
    }

    @Test("when names are added, should mask those headers and query values too")
    func addedNames() throws {
        let redaction = Redaction.default.adding(headers: ["X-API-Key"], queryItems: ["token", "sig nature"])
        let url = try #require(URL(string: "https://api.example.com/a?page=2&token=abc&sig%20nature=xyz"))

        #expect(redaction.value("k3y", forHeader: "x-api-key") == "REDACTED")
        #expect(
            redaction.redacted(url).absoluteString
                == "https://api.example.com/a?page=2&token=REDACTED&sig%20nature=REDACTED")
    }

    @Test("when a URL carries a password, should mask it whatever the query names")
    func urlPassword() throws {
        let url = try #require(URL(string: "https://ada:s3cret@api.example.com/a?page=2"))
        #expect(Redaction.default.redacted(url).absoluteString == "https://ada:REDACTED@api.example.com/a?page=2")
    }

    @Test("when a URL has no secret query items, should return it unchanged")
    func untouchedURL() throws {
        let url = try #require(URL(string: "https://api.example.com/a?page=2"))
        #expect(Redaction.default.adding(queryItems: ["token"]).redacted(url) == url)
    }

    @Test(
        "should find the query and the password where RFC 3986 puts them: before any fragment, and after any base",
        arguments: [
            ("https://api.example.com/a?token=abc#top", "https://api.example.com/a?token=REDACTED#top"),
            ("https://api.example.com/a#top?token=abc", "https://api.example.com/a#top?token=REDACTED"),
            ("https://api.example.com/a?page=2#token=abc", "https://api.example.com/a?page=2#token=REDACTED"),
            ("https://api.example.com/@me?email=a@b.example", "https://api.example.com/@me?email=a@b.example"),
            ("https://ada:s3cret@api.example.com/a#x", "https://ada:REDACTED@api.example.com/a#x"),
            ("https://api.example.com/a?", "https://api.example.com/a?"),
            ("b?access_token=abc", "https://api.example.com/v1/b?access_token=REDACTED"),
        ])
    func queryAndPasswordPlaces(text: String, expected: String) throws {
        let base = try #require(URL(string: "https://api.example.com/v1/"))
        let url = try #require(URL(string: text, relativeTo: base))

        #expect(Redaction.default.redacted(url).absoluteString == expected)
    }

    @Test(
        "by default, should mask secret query items named like a password or token, ignoring case, _ and -",
        arguments: [
            "password", "passwd", "secret", "token", "access_token", "refresh_token", "id_token", "api_key", "apikey",
            "client_secret", "ACCESS-TOKEN", "accessToken", "ApiKey",
        ])
    func defaultQueryItems(name: String) throws {
        let url = try #require(URL(string: "https://api.example.com/a?page=2&\(name)=s3cret"))

        let redacted = Redaction.default.redacted(url).absoluteString

        #expect(redacted == "https://api.example.com/a?page=2&\(name)=REDACTED")
    }

    @Test(
        "when a secret query item's name is percent-encoded, should still mask it",
        arguments: ["%74oken", "T%4Fken", "client%5Fsecret", "api%20key"])
    func encodedQueryItemNames(name: String) throws {
        let redaction = Redaction.default.adding(queryItems: ["api key"])
        let url = try #require(URL(string: "https://api.example.com/a?page=2&\(name)=s3cret"))

        let redacted = redaction.redacted(url).absoluteString

        #expect(!redacted.contains("s3cret"), "\(redacted)")
    }

    @Test("by default, should mask code only in an OAuth token request (one with grant_type)")
    func oauthCode() throws {
        let token = try #require(URL(string: "https://id.example.com/token?grant_type=authorization_code&code=c0de"))
        let other = try #require(URL(string: "https://api.example.com/countries?code=PL"))

        #expect(Redaction.default.redacted(token).absoluteString.hasSuffix("code=REDACTED"))
        #expect(Redaction.default.redacted(other) == other)
    }

    @Test("by default, should mask API key and token headers", arguments: ["X-API-Key", "x-auth-token", "Api-Key"])
    func defaultCredentialHeaders(name: String) {
        #expect(Redaction.default.value("k3y", forHeader: name) == "REDACTED")
    }

    @Test("when an authentication action writes a header of any name, every redaction should mask it")
    func authenticationHeaderMasked() {
        let redaction = Redaction(headerNames: [], queryItemNames: [])

        _ = AuthenticationAction.authentication(FixedTokens(token: "t"), scheme: .header("X-Redaction-Test-Credential"))

        #expect(redaction.value("t0ken", forHeader: "x-redaction-test-credential") == "REDACTED")
    }
    // MARK: URLs in header values, bodies that cannot be masked (issue 28, items 5 and 6)

    @Test("when a header carries a URL with a secret, should mask it as in the request's URL")
    func urlsInHeaderValues() {
        let cases: [(name: String, value: String, expected: String)] = [
            (
                "Location", "https://app.example.com/cb?access_token=abc&state=1",
                "https://app.example.com/cb?access_token=REDACTED&state=1"
            ),
            ("location", "/cb?access_token=abc", "/cb?access_token=REDACTED"),
            ("Content-Location", "https://u:pw@api.example.com/x", "https://u:REDACTED@api.example.com/x"),
            (
                "Link", "<https://api.example.com/p?page=2&token=abc>; rel=\"next\", </p?page=9>; rel=\"last\"",
                "<https://api.example.com/p?page=2&token=REDACTED>; rel=\"next\", </p?page=9>; rel=\"last\""
            ),
            (
                "Refresh", "5; url=https://app.example.com/?access_token=abc",
                "5; url=https://app.example.com/?access_token=REDACTED"
            ),
        ]
        for (name, value, expected) in cases {
            #expect(Redaction.default.value(value, forHeader: name) == expected, "\(name)")
        }
    }

    @Test("when a URL-carrying header holds no secret, or another header holds a URL, should leave it as it is")
    func urlHeadersWithoutSecrets() {
        #expect(
            Redaction.default.value("https://api.example.com/next?page=2", forHeader: "Location")
                == "https://api.example.com/next?page=2")
        #expect(Redaction.default.value("5", forHeader: "Refresh") == "5")
        #expect(Redaction.default.value("<x>", forHeader: "Link") == "<x>")
    }

    @Test("when a JSON body is larger than can be parsed, should withhold it, never leave it in clear")
    func largeJSONWithheld() {
        let body = Data(
            ("{\"password\":\"hunter2\",\"pad\":\"" + String(repeating: "a", count: 1_100_000) + "\"}").utf8)

        let written = Redaction.default.writableBody(body, contentType: "application/json")

        #expect(String(decoding: written, as: UTF8.self) == "(\(body.count) bytes of JSON left out: too large to mask)")
    }

    @Test("when a form body is larger than 1 MiB, should still mask its secret fields")
    func largeFormMasked() {
        let body = Data(("password=hunter2&pad=" + String(repeating: "a", count: 1_100_000)).utf8)

        let written = String(decoding: Redaction.default.writableBody(body, contentType: nil), as: UTF8.self)

        #expect(written.hasPrefix("password=REDACTED&pad=aaa"))
        #expect(!written.contains("hunter2"))
    }

    @Test("when a body says it is JSON or a form and cannot be read as one, should withhold it")
    func unreadableDeclaredBodiesWithheld() {
        let notJSON = Data("{\"password\": \"hunter2\"".utf8)
        let notUTF8Form = Data([0x70, 0x3D, 0xFF, 0xFE])

        #expect(
            Redaction.default.maskedBody(notJSON, contentType: "application/json")
                == .withheld("(\(notJSON.count) bytes of invalid JSON left out: its secrets cannot be masked)"))
        #expect(
            Redaction.default.maskedBody(notUTF8Form, contentType: "application/x-www-form-urlencoded")
                == .withheld("(4 bytes of a form that is not UTF-8 left out)"))
        #expect(Redaction.default.maskedBody(Data("[INFO] started".utf8), contentType: "text/plain") == .unchanged)
    }

    // MARK: Fragments and bodies that say they are JSON (issue 38, items 13 and 14)

    private static let fragmentCases: [(String, String)] = [
        (
            "https://app.example.com/cb#access_token=t0k3n&token_type=bearer&expires_in=3600",
            "https://app.example.com/cb#access_token=REDACTED&token_type=bearer&expires_in=3600"
        ),
        (
            "https://app.example.com/#/cb?id_token=t0k3n&state=s",
            "https://app.example.com/#/cb?id_token=REDACTED&state=s"
        ),
        (
            "https://app.example.com/cb?state=s#refresh%5Ftoken=t0k3n",
            "https://app.example.com/cb?state=s#refresh%5Ftoken=REDACTED"
        ),
        (
            "https://app.example.com/cb#access_token=t0k3n?state=1",
            "https://app.example.com/cb#access_token=REDACTED?state=1"
        ),
        ("https://app.example.com/cb#section-2", "https://app.example.com/cb#section-2"),
    ]

    @Test(
        "when a header carrying URLs holds one whose fragment has a token before a ?, should mask it",
        arguments: [
            ("Location", "https://a.example/cb#access_token=t0k3n?state=1"),
            ("Refresh", "0; url=https://a.example/#access_token=t0k3n?x"),
            ("Link", "<https://a.example/#access_token=t0k3n?x=1>; rel=\"next\""),
        ])
    func fragmentTokenBeforeQuestionMarkInHeaders(name: String, value: String) {
        #expect(!Redaction.default.value(value, forHeader: name).contains("t0k3n"))
    }

    @Test(
        "when a URL's fragment carries tokens, should mask them like query items",
        arguments: RedactionTests.fragmentCases)
    func fragments(text: String, expected: String) throws {
        let url = try #require(URL(string: text))
        #expect(Redaction.default.redacted(url).absoluteString == expected)
    }

    @Test("when a JSON body holds a URL whose fragment carries a token, should mask it")
    func fragmentInJSON() {
        let body = Data(#"{"next":"https://app.example.com/cb#access_token=t0k3n"}"#.utf8)

        let written = String(
            decoding: Redaction.default.writableBody(body, contentType: "application/json"), as: UTF8.self)

        #expect(written == #"{"next":"https://app.example.com/cb#access_token=REDACTED"}"#)
    }

    private static let tokenJSON = #"{"access_token":"t0k3n"}"#
    private static let unusualJSONBodies: [(String, Data)] = [
        ("utf-8 BOM", Data([0xEF, 0xBB, 0xBF]) + Data(tokenJSON.utf8)),
        (")]}'", Data((")]}'\n" + tokenJSON).utf8)),
        (")]}',", Data((")]}',\n[" + tokenJSON + "]").utf8)),
        ("while(1);", Data(("while(1);" + tokenJSON).utf8)),
        ("for(;;);", Data(("for(;;);" + tokenJSON).utf8)),
        ("utf-16 LE BOM", Data([0xFF, 0xFE]) + (tokenJSON.data(using: .utf16LittleEndian) ?? Data())),
        ("utf-16 BE", tokenJSON.data(using: .utf16BigEndian) ?? Data()),
        ("utf-32 LE", tokenJSON.data(using: .utf32LittleEndian) ?? Data()),
    ]

    @Test(
        "when a body says it is JSON and has a byte-order mark, an anti-XSSI prefix or another encoding, should mask it",
        arguments: RedactionTests.unusualJSONBodies)
    func unusualJSON(name: String, body: Data) {
        for contentType in ["application/json", "application/problem+json; charset=utf-8", " Application/JSON"] {
            let written = Redaction.default.writableBody(body, contentType: contentType)
            let text = String(decoding: written, as: UTF8.self)
            #expect(
                !text.replacingOccurrences(of: "\0", with: "").contains("t0k3n"), "\(name), \(contentType): \(text)")
            #expect(text.contains(#""access_token":"REDACTED""#), "\(name), \(contentType): \(text)")
        }
    }

    @Test("when a body says it is JSON and is not, whatever its first byte, should withhold it with a note")
    func declaredJSONNotJSON() {
        let body = Data("<html>access_token=t0k3n</html>".utf8)

        #expect(
            Redaction.default.maskedBody(body, contentType: "application/vnd.api+json")
                == .withheld("(\(body.count) bytes of invalid JSON left out: its secrets cannot be masked)"))
    }

    @Test("when a body of no declared type has a byte-order mark before its JSON or form, should still mask it")
    func undeclaredMarkedBodies() {
        let json = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"password":"hunter2"}"#.utf8)
        let form = Data("\u{FEFF}password=hunter2&x=1".utf8)

        let cases: [(Data, String?)] = [(json, nil), (form, "application/x-www-form-urlencoded"), (json, "text/plain")]
        for (body, contentType) in cases {
            let text = String(decoding: Redaction.default.writableBody(body, contentType: contentType), as: UTF8.self)
            #expect(!text.contains("hunter2"), "\(contentType ?? "no type"): \(text)")
        }
    }
}

/// A provider that always has the same token.
private struct FixedTokens: AccessTokenProvider {
    let token: String

    func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        completion(.success(token))
    }

    func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        completion(.success(token))
    }
}
