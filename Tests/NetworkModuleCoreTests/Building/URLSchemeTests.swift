import Foundation
import Testing

@testable import NetworkModuleCore

/// The one place a scheme is made canonical, for the builder and the transport alike.
@Suite("URL scheme")
struct URLSchemeTests {
    @Test(
        "when a URL's scheme has capitals, should lowercase it and change nothing else",
        arguments: [
            ("HTTP://api.example.com/a%20b?q=1#f", "http://api.example.com/a%20b?q=1#f"),
            ("HtTpS://User@Example.com:8443/P", "https://User@Example.com:8443/P"),
        ])
    func lowercasesScheme(text: String, expected: String) throws {
        let url = try #require(URL(string: text))

        #expect(url.withLowercaseScheme?.absoluteString == expected)
    }

    @Test(
        "when a URL's scheme is lowercase already or it has none, should say there is nothing to change",
        arguments: ["https://api.example.com/a", "relative/path", "mailto:a@b.c"])
    func leavesCanonicalURLs(text: String) throws {
        let url = try #require(URL(string: text))

        #expect(url.withLowercaseScheme == nil)
    }
}
