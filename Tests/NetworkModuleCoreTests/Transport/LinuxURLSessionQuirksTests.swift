import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which `.unsupportedURL` errors of swift-corelibs-foundation are about the response, and so
/// the server's fault (`.badServerResponse`), rather than about the URL.
@Suite("Linux URLSession quirks")
struct LinuxURLSessionQuirksTests {
    static func unsupported(_ message: String) -> URLError {
        URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: message])
    }

    @Test(
        "when a sent http or https URL fails as unsupported, should blame the response, whatever libcurl says",
        arguments: [
            "http://127.0.0.1:8080/raw", "https://api.example.com/v2/users", "HTTP://api.example.com/",
        ])
    func unsupportedAfterSendingIsTheServers(url: String) {
        for message in ["Unsupported HTTP version in response", "Received HTTP/0.9 when not allowed", "anything"] {
            #expect(LinuxURLSessionQuirks.isAboutTheResponse(Self.unsupported(message), sentTo: URL(string: url)))
        }
    }

    @Test(
        "when the URL itself is one Foundation refuses, should leave .unsupportedURL as it is",
        arguments: ["ftp://files.example.com/a", "file:///etc/hosts", "http:///no-host", "mailto:someone@example.com"])
    func unsupportedURLStays(url: String) {
        #expect(
            !LinuxURLSessionQuirks.isAboutTheResponse(
                Self.unsupported("Unsupported protocol"), sentTo: URL(string: url)))
    }

    @Test("when the code is not .unsupportedURL, or no URL is known, should not call it the response's")
    func otherCodesStay() {
        let url = URL(string: "https://api.example.com/")
        #expect(!LinuxURLSessionQuirks.isAboutTheResponse(URLError(.timedOut), sentTo: url))
        #expect(!LinuxURLSessionQuirks.isAboutTheResponse(Self.unsupported("x"), sentTo: nil))
    }

    @Test("when normalized on Linux, should turn a status line libcurl cannot read into .badServerResponse")
    func normalizedStatusLine() {
        let error = Self.unsupported("Unsupported HTTP version in response")

        let normalized = LinuxURLSessionQuirks.normalized(error, sentTo: URL(string: "http://127.0.0.1/raw"))

        let expected: URLError.Code = LinuxURLSessionQuirks.apply ? .badServerResponse : .unsupportedURL
        #expect((normalized as? URLError)?.code == expected)
        #expect((normalized as NSError).localizedDescription == "Unsupported HTTP version in response")
    }
}
