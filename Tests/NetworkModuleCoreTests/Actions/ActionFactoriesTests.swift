import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

@Suite("Action factories")
struct ActionFactoriesTests {
    @Test("when actions are written as static members in an array literal, should make the built-in actions in order")
    func implicitMembers() {
        let actions: [any NetworkModuleAction] = [
            .headers(["User-Agent": "Notes/2.4.1"]),
            .requestID(),
            .authentication(FakeTokenProvider()),
            .basicAuthentication(username: "ada", password: "secret"),
            .retry(.default),
            .failing(statusCodes: [299]),
            .validate { _ in },
            .logging(),
            .metrics { _ in },
        ]

        #expect(
            actions.map { String(describing: type(of: $0)) } == [
                "HeadersAction", "HeadersAction", "AuthenticationAction", "AuthenticationAction", "RetryAction",
                "ResponseValidationAction", "ResponseValidationAction", "LoggingAction", "MetricsAction",
            ])
    }
}
