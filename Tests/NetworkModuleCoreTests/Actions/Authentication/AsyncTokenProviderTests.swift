import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("AsyncTokenProvider")
struct AsyncTokenProviderTests {
    struct SignedOut: Error {}

    func answer(_ call: (@escaping @Sendable (Result<String, any Error>) -> Void) -> Void) async -> Result<
        String, any Error
    > {
        await withCheckedContinuation { continuation in call { continuation.resume(returning: $0) } }
    }

    @Test("when asked for the current token and a refresh, should run the matching closure")
    func currentAndRefresh() async throws {
        let provider = AsyncTokenProvider(current: { "stored" }, refresh: { "fresh" })

        let current = await answer(provider.currentToken)
        let refreshed = await answer(provider.refreshToken)

        #expect(try current.get() == "stored")
        #expect(try refreshed.get() == "fresh")
    }

    @Test("when no refresh closure is given, should refresh by asking for the current token again")
    func refreshDefaultsToCurrent() async throws {
        let calls = LockedState(0)
        let provider = AsyncTokenProvider(current: {
            calls.withLock { $0 += 1 }
            return "token"
        })

        let refreshed = await answer(provider.refreshToken)

        #expect(try refreshed.get() == "token")
        #expect(calls.value == 1)
    }

    @Test("when the closure throws, should fail with its error")
    func failure() async {
        let provider = AsyncTokenProvider(current: { throw SignedOut() })

        let result = await answer(provider.currentToken)

        #expect(throws: SignedOut.self) { try result.get() }
    }

    @Test("when used by the authentication action, should attach the token the closure returned")
    func withAuthenticationAction() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let module = makeModule(
            session: session, actions: [.authentication(AsyncTokenProvider(current: { "async-token" }))])

        _ = try await module.perform(request: TestRequest(requiresAuthentication: true))

        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer async-token")
    }
}
