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
            ("https://api.example.com/a#top?token=abc", "https://api.example.com/a#top?token=abc"),
            ("https://api.example.com/a?page=2#token=abc", "https://api.example.com/a?page=2#token=abc"),
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

        _ = AuthenticationAction(
            provider: FixedTokens(token: "t"), scheme: .header("X-Redaction-Test-Credential"))

        #expect(redaction.value("t0ken", forHeader: "x-redaction-test-credential") == "REDACTED")
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
