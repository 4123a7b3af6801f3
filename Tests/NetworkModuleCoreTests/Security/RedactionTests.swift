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
}
