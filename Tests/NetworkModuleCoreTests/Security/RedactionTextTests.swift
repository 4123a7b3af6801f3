import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Secrets in text the framework writes that is not a body: errors, and header values that carry
/// URLs (issue 38, items 11 and 12).
@Suite("Redaction of text: errors and URL-carrying headers")
struct RedactionTextTests {
    private let secrets = ["hunter2", "t0k3n", "fr4g"]
    private let secretURL = URL(string: "https://ada:hunter2@api.example.com/p?access_token=t0k3n#id_token=fr4g")!

    private func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!text.contains(secret), "\(secret) in: \(text)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Errors (item 11)

    @Test("when a URLError's userInfo holds the failing URL, its loggable text should mask the URL's secrets")
    func urlErrorLoggable() {
        let error = URLError(
            .cannotConnectToHost,
            userInfo: [
                NSURLErrorFailingURLErrorKey: secretURL, "NSErrorFailingURLStringKey": secretURL.absoluteString,
                NSLocalizedDescriptionKey: "Could not connect to \(secretURL.absoluteString)",
            ])

        let text = Redaction.default.loggable(error)

        expectNoSecret(text)
        #expect(text.hasPrefix("No connection could be made to the host"), "\(text)")
    }

    @Test("when an error of another domain says a URL or a secret field, its loggable text should mask them")
    func otherErrorLoggable() {
        let error = NSError(
            domain: "Example", code: 7,
            userInfo: [NSLocalizedDescriptionKey: "GET \(secretURL.absoluteString) failed; body: password=hunter2"])

        let text = Redaction.default.loggable(error)

        expectNoSecret(text)
        #expect(text.contains("Example error 7"), "\(text)")
    }

    @Test("when a session's message holds secrets, every NetworkError description should mask them")
    func descriptionsMasked() {
        let message = "failed for \(secretURL.absoluteString) with {\"access_token\": \"t0k3n\"}"
        let errors: [NetworkError] = [
            .transportError(TransportFailure(code: .unknown, failingURL: secretURL, message: message)),
            .timedOut(TransportFailure(code: .timedOut, message: message)),
            .underlying(NSError(domain: "Example", code: 1, userInfo: [NSLocalizedDescriptionKey: message])),
            .actionFailed(
                action: "Signer",
                error: NSError(domain: "Example", code: 2, userInfo: [NSLocalizedDescriptionKey: message])),
            .invalidRequest(.invalidPath("/p?access_token=t0k3n&x=a b")),
        ]
        for error in errors {
            expectNoSecret(error.description)
            expectNoSecret(error.localizedDescription)
            expectNoSecret("\(error)")
        }
        let failure = TransportFailure(code: .unknown, failingURL: secretURL, message: message)
        expectNoSecret(failure.description)
    }

    @Test("when a redaction adds a field name, the loggable text of an error should mask it too")
    func loggableUsesTheRedaction() {
        let error = NetworkError.transportError(
            TransportFailure(code: .unknown, message: "refused https://api.example.com/p?sig=s1gn4ture"))

        let text = Redaction.default.adding(queryItems: ["sig"]).loggable(error)

        #expect(!text.contains("s1gn4ture"), "\(text)")
        #expect(text.contains("sig=REDACTED"), "\(text)")
    }

    private static let freeTextCases: [(String, String)] = [
        (
            "UserInfo={NSErrorFailingURLStringKey=http://ada:hunter2@127.0.0.1:1/?access_token=t0k3n, x=1}",
            "UserInfo={NSErrorFailingURLStringKey=http://ada:REDACTED@127.0.0.1:1/?access_token=REDACTED x=1}"
        ),
        ("see /cb#access_token=t0k3n&token_type=bearer", "see /cb#access_token=REDACTED&token_type=bearer"),
        (#"{"id_token" : "t0k3n", "n": 1}"#, #"{"id_token" : "REDACTED", "n": 1}"#),
        ("grant_type=authorization_code&code=c0de", "grant_type=authorization_code&code=REDACTED"),
        ("country code=PL, page=2", "country code=PL, page=2"),
        ("access%5Ftoken=t0k3n", "access%5Ftoken=REDACTED"),
        // A quoted name may hold the other quote, and prose with an apostrophe may stand before it.
        (#"it's {"a": 1, 'token': 't0k3n'}"#, #"it's {"a": 1, 'token': 'REDACTED'}"#),
        (#"{"user's password": "hunter2"}"#, #"{"user's password": "REDACTED"}"#),
        // JSON quoted from its middle: the name's opening quote was cut off.
        (#"access_token":"t0k3n","n":1}"#, #"access_token":"REDACTED","n":1}"#),
    ]

    @Test(
        "when free text holds secrets, should mask each whatever surrounds it",
        arguments: RedactionTextTests.freeTextCases)
    func freeText(text: String, expected: String) {
        #expect(Redaction.default.redactedText(text) == expected)
    }

    @Test(
        "when a description's own words hold an apostrophe, the session's message in it should be masked as it is alone"
    )
    func messageMaskedAsAlone() {
        // Found by the response-handling fuzzer: "Check the request's credentials." and a
        // message's `':` made one quoted name of the prose between them, a secret one.
        let message = "token x':visible"
        let error = NetworkError.transportError(TransportFailure(code: .userAuthenticationRequired, message: message))

        #expect(error.description.contains("The session said: \"\(Redaction.default.redactedText(message))\""))
        #expect(error.description.contains(message), "\(error.description)")
    }

    @Test(
        "when another domain's message ends in a secret header's label, the description's own advice should still show")
    func otherDomainMaskedApartFromTheWords() {
        // Masked with the words after it, the message's `Authorization:` masked the rest of the
        // line: the advice on what to check. The domain, code and message are masked as one
        // text, on their own.
        let error = NSError(domain: "com.example", code: 7, userInfo: [NSLocalizedDescriptionKey: "Authorization:"])

        let description = NetworkError.underlying(error).description

        #expect(description.contains("(com.example error 7): Authorization:."), "\(description)")
        #expect(
            description.hasSuffix(" Check the session (a custom session, decorator or fake) that reported it."),
            "\(description)")
    }

    // MARK: Headers that carry URLs (item 12)

    private static let refreshCases: [(String, String)] = [
        ("0; url='https://a.example/?access_token=t0k3n'", "0; url='https://a.example/?access_token=REDACTED'"),
        (#"0; url="https://a.example/?access_token=t0k3n""#, #"0; url="https://a.example/?access_token=REDACTED""#),
        ("0;URL = https://a.example/?access_token=t0k3n", "0;URL = https://a.example/?access_token=REDACTED"),
        ("5, https://a.example/?access_token=t0k3n", "5, https://a.example/?access_token=REDACTED"),
        ("5 'https://a.example/?access_token=t0k3n'", "5 'https://a.example/?access_token=REDACTED'"),
        (".5; Url=/cb#access_token=t0k3n", ".5; Url=/cb#access_token=REDACTED"),
        ("3; url=https://ada:hunter2@a.example/", "3; url=https://ada:REDACTED@a.example/"),
        ("0; url='https://a.example/?x=1' access_token=t0k3n", "0; url='https://a.example/?x=1'REDACTED"),
        ("0; url=https://[a.example/?access_token=t0k3n", "0; url=REDACTED"),
        ("url=https://a.example/?access_token=t0k3n", "REDACTED"),
        ("0x; url=https://a.example/?access_token=t0k3n", "REDACTED"),
        ("5", "5"),
        ("0; url=https://a.example/next", "0; url=https://a.example/next"),
    ]

    @Test(
        "when Refresh writes its URL in any form HTML reads, should mask the URL's secrets",
        arguments: RedactionTextTests.refreshCases)
    func refreshForms(value: String, expected: String) {
        #expect(Redaction.default.value(value, forHeader: "Refresh") == expected)
    }

    private static let unreadableHeaderCases: [(String, String, String)] = [
        ("Location", "https://a.example:port/?access_token=t0k3n", "REDACTED"),
        ("Content-Location", "https://[a.example/cb?access_token=t0k3n", "REDACTED"),
        ("Link", "<https://a.example/?access_token=t0k3n; rel=\"next\"", "<REDACTED"),
        ("Link", "https://a.example/?access_token=t0k3n; rel=\"next\"", "REDACTED"),
        (
            "Link", "<https://a.example/>; anchor=\"https://a.example/?access_token=t0k3n\"",
            "<https://a.example/>; anchor=\"https://a.example/?access_token=REDACTED\""
        ),
    ]

    @Test(
        "when a URL-carrying header's value cannot be read, should mask it rather than pass it on",
        arguments: RedactionTextTests.unreadableHeaderCases)
    func unreadableURLHeaders(name: String, value: String, expected: String) {
        #expect(Redaction.default.value(value, forHeader: name) == expected)
    }
}
