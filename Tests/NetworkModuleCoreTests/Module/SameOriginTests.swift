import Foundation
import NetworkModuleCore
import Testing

@Suite("Same-origin checks")
struct SameOriginTests {
    let context = ActionContext(networkRequest: nil, baseURL: URL(string: "https://api.example.com/v2"))

    @Test(
        "when the URL has the base URL's scheme, host and port, should be the same origin",
        arguments: [
            "https://api.example.com/v2/users", "https://api.example.com", "https://api.example.com/",
            "https://api.example.com?x=1", "https://api.example.com#top", "https://api.example.com:443/other",
            "HTTPS://API.EXAMPLE.COM/v2", "https://user@api.example.com/v2",
        ])
    func sameOrigin(url: String) throws {
        let parsed = try #require(URL(string: url))
        #expect(context.isSameOrigin(as: parsed))
    }

    @Test(
        "when scheme, host or port differ, or the host only starts like the base's, should not be",
        arguments: [
            "http://api.example.com/v2", "https://api.example.com.evil.com/v2", "https://api.example.com:8443/v2",
            "https://evil.example.com/v2", "https://example.com/v2", "https://api.example.co/v2",
            "https://api.example.com@evil.com/v2",
        ])
    func otherOrigin(url: String) throws {
        let parsed = try #require(URL(string: url))
        #expect(!context.isSameOrigin(as: parsed))
    }

    @Test("when there is no base URL or no URL, should not be the same origin")
    func missingURLs() throws {
        let url = try #require(URL(string: "https://api.example.com/v2"))
        #expect(!ActionContext(networkRequest: nil, baseURL: nil).isSameOrigin(as: url))
        #expect(!context.isSameOrigin(as: nil))
    }
}
