import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A second adversarial review of masking a session's words on their own: a name whose opening
/// quote was cut off is read as a `name=`'s is, so a name of several keys (`user[password]`) or
/// an escaped one (`%70assword`, `\u0070assword`) is still a name, as it was when the
/// description was masked whole; and another domain's name, code and message are masked as one
/// text, so a name that ends the domain still names the message's secret.
@Suite("Redaction: second attack on a NetworkError's description masking the session's words alone")
struct RedactionDescriptionSecondAttackTests: SecretMaskingChecks {
    private func expectNoSecret(in error: NetworkError, sourceLocation: SourceLocation = #_sourceLocation) {
        expectNoSecret(error.description, sourceLocation: sourceLocation)
        expectNoSecret(error.localizedDescription, sourceLocation: sourceLocation)
        expectNoSecret("\(error)", sourceLocation: sourceLocation)
        expectNoSecret(Redaction.default.loggable(error), sourceLocation: sourceLocation)
        expectNoSecret(Redaction.default.adding(queryItems: ["sig"]).loggable(error), sourceLocation: sourceLocation)
    }

    @Test(
        "when a session's message holds a cut-off secret name that is not plain key characters, a transport error's description should mask its value",
        arguments: [
            #"user[password]":"s3cr3t"}"#,
            #"password[]":"s3cr3t"}"#,
            #"credentials[access_token]": "s3cr3t"}"#,
            #"user%5Bpassword%5D":"s3cr3t"}"#,
            #"%70assword":"s3cr3t"}"#,
            #"\u0070assword":"s3cr3t"}"#,
            #"user[password]\":\"s3cr3t\"}"#,
            #"user[password]" => "s3cr3t""#,
        ])
    func cutNameOfSeveralKeys(message: String) {
        for makeError in RedactionDescriptionAttackTests.transportErrors {
            expectNoSecret(in: makeError(message))
        }
        // A URLError from a session, mapped as the framework maps it.
        expectNoSecret(
            in: NetworkError(
                NSError(domain: NSURLErrorDomain, code: -1001, userInfo: [NSLocalizedDescriptionKey: message])))
    }

    @Test(
        "when another domain's name ends in a secret's name, the description should still mask the secret its message holds",
        arguments: [
            ("HTTP Authorization:", "Bearer s3cr3t"),
            ("com.example \"password", #"": "s3cr3t""#),
            ("com.example.oauth grant_type", "code=s3cr3t"),
        ])
    func domainNamesTheMessagesSecret(domain: String, message: String) {
        expectNoSecret(
            in: .underlying(NSError(domain: domain, code: 5, userInfo: [NSLocalizedDescriptionKey: message])))
    }
}
