import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport error's message is masked on its own in a description (the words around it
/// must not change what it shows), and still as strongly as when the description was masked
/// whole: a name whose opening quote was cut off, or stood before the message (the `"` that
/// opens `The session said: "…"`, an apostrophe in `URL's`), is still a name. Found by an
/// adversarial review of the first version of that change, which showed these values.
@Suite("Redaction: attack on a NetworkError's description masking the session's message alone")
struct RedactionDescriptionAttackTests: SecretMaskingChecks {
    /// Every transport case, with a code whose hint is the one the case writes.
    static let transportErrors: [@Sendable (String) -> NetworkError] = [
        { .timedOut(TransportFailure(code: .timedOut, message: $0)) },
        { .notConnectedToInternet(TransportFailure(code: .notConnectedToInternet, message: $0)) },
        { .cannotFindHost(TransportFailure(code: .cannotFindHost, message: $0)) },
        { .cannotConnectToHost(TransportFailure(code: .cannotConnectToHost, message: $0)) },
        { .networkConnectionLost(TransportFailure(code: .networkConnectionLost, message: $0)) },
        { .secureConnectionFailed(TransportFailure(code: .serverCertificateUntrusted, message: $0)) },
        { .transportError(TransportFailure(code: .userAuthenticationRequired, message: $0)) },
    ]

    private func expectNoSecret(in error: NetworkError, sourceLocation: SourceLocation = #_sourceLocation) {
        expectNoSecret(error.description, sourceLocation: sourceLocation)
        expectNoSecret(error.localizedDescription, sourceLocation: sourceLocation)
        expectNoSecret("\(error)", sourceLocation: sourceLocation)
        expectNoSecret(Redaction.default.loggable(error), sourceLocation: sourceLocation)
    }

    @Test(
        "when a session's message holds a secret name whose opening quote was cut off, a transport error's description should mask its value",
        arguments: [
            // A JSON body cut at its front, as a message quoting part of it does.
            #"access_token":"s3cr3t","expires_in":3600}"#,
            #"token":s3cr3t"#,
            // Escaped JSON cut the same way.
            #"password\": \"s3cr3t\"}"#,
            // A Ruby/PHP map.
            #"password" => "s3cr3t""#,
            // A secret header's name.
            #"Authorization": Bearer s3cr3t"#,
        ])
    func nameOpenedBeforeTheMessage(message: String) {
        for makeError in Self.transportErrors {
            expectNoSecret(in: makeError(message))
        }
    }

    @Test(
        "when a session's message holds a secret name closed by an apostrophe, a transport error whose words hold one should mask its value",
        arguments: [#"token': s3cr3t"#, #"password':'s3cr3t'"#])
    func nameOpenedByTheDescriptionsApostrophe(message: String) {
        // The words of these cases hold an apostrophe ("builder's", "URL's", "server's",
        // "request's"); masked alone, the message's name has no opening quote at all.
        for makeError in [0, 2, 3, 5, 6].map({ Self.transportErrors[$0] }) {
            expectNoSecret(in: makeError(message))
        }
    }

    @Test(
        "when a description's own words hold an apostrophe, the loggable text should show the session's message as it is masked alone"
    )
    func loggableMasksTheMessageAsAlone() {
        // `loggable(_:)` (the logging action, HAR `_error`) masks as the description does: the
        // apostrophe in "request's credentials" and the message's `':` make no secret name.
        let message = "token x':visible"
        let error = NetworkError.transportError(TransportFailure(code: .userAuthenticationRequired, message: message))
        let detail = " The session said: \"\(Redaction.default.redactedText(message))\""

        #expect(error.description.hasSuffix(detail))
        #expect(Redaction.default.loggable(error).hasSuffix(detail), "\(Redaction.default.loggable(error))")
    }
}
