import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The authentication action with `async throws` closures for its tokens:
/// `AuthenticationAction.authentication(current:refresh:scheme:refreshStatusCodes:)` and
/// `.authentication(current:refresh:scheme:)`.
@Suite("Authentication with async token closures")
struct AsyncTokenTests {
    struct SignedOut: Error {}

    func answer(_ call: (@escaping @Sendable (Result<String, any Error>) -> Void) -> Void) async -> Result<
        String, any Error
    > {
        await withCheckedContinuation { continuation in call { continuation.resume(returning: $0) } }
    }

    @Test("when asked for the current token and a refresh, should run the matching closure")
    func currentAndRefresh() async throws {
        let action = AuthenticationAction.authentication(current: { "stored" }, refresh: { "fresh" })

        let current = await answer(action.provider.currentToken)
        let refreshed = await answer(action.provider.refreshToken)

        #expect(try current.get() == "stored")
        #expect(try refreshed.get() == "fresh")
    }

    @Test("when no refresh closure is given, should refresh by asking for the current token again")
    func refreshDefaultsToCurrent() async throws {
        let calls = LockedState(0)
        let action = AuthenticationAction.authentication(current: {
            calls.withLock { $0 += 1 }
            return "token"
        })

        let refreshed = await answer(action.provider.refreshToken)

        #expect(try refreshed.get() == "token")
        #expect(calls.value == 1)
    }

    @Test("when the closure throws, should fail with its error")
    func failure() async {
        let action = AuthenticationAction.authentication(current: { throw SignedOut() })

        let result = await answer(action.provider.currentToken)

        #expect(throws: SignedOut.self) { try result.get() }
    }

    @Test("when created with a scheme and refresh statuses, should keep them")
    func schemeAndStatuses() {
        let action: AuthenticationAction = .authentication(
            current: { "k3y" }, scheme: .header("X-API-Key"), refreshStatusCodes: [401, 419])
        let factory: AuthenticationAction = .authentication(current: { "k3y" }, scheme: .header("X-API-Key"))

        #expect(action.scheme.headerName == "X-API-Key")
        #expect(action.refreshStatusCodes == [401, 419])
        #expect(factory.scheme.headerName == "X-API-Key")
        #expect(factory.refreshStatusCodes == [401])
    }

    @Test("when used by the module, should attach the token the closure returned")
    func throughTheModule() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session, actions: [.authentication(current: { "async-token" })])

        _ = try await module.perform(request: TestRequest(requiresAuthentication: true))

        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer async-token")
    }

    @Test("when the server rejects the current token, should refresh with the refresh closure and retry once")
    func refreshOn401() async throws {
        let session = FakeNetworkSession()
        session.stub(.header("Authorization", "Bearer stale"), with: .status(401))
        session.stub(.header("Authorization", "Bearer fresh"), with: .status(200))
        let module = makeModule(
            session: session, actions: [.authentication(current: { "stale" }, refresh: { "fresh" })])

        let response = try await module.perform(request: TestRequest(requiresAuthentication: true))

        #expect(response.statusCode == 200)
        #expect(
            session.recordedRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer stale", "Bearer fresh",
            ])
    }
}
