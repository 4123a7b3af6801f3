import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session on a background configuration runs only upload and download tasks (Apple's raises an
/// exception for a completion-handler data task): the transport and the plain `URLSession`
/// adapter refuse every request on one, unsent, rather than crash or send it unreliably.
@Suite("Background configurations")
struct BackgroundConfigurationTests {
    struct Ping: NetworkRequest {
        var path: String { "/ping" }
    }

    /// A configuration with an identifier: a background one on Apple platforms; on Linux, which
    /// has none, an ephemeral one given an identifier (its setter is public there).
    static func backgroundConfiguration() -> URLSessionConfiguration {
        #if canImport(FoundationNetworking)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.identifier = "com.example.tests.background"
            return configuration
        #else
            return URLSessionConfiguration.background(withIdentifier: "com.example.tests.background.\(UUID())")
        #endif
    }

    func module(_ session: some NetworkSession) -> DefaultNetworkModule {
        // Port 9 (discard): a request that was sent would fail to connect, not be refused.
        DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "http://127.0.0.1:9")!), session: session,
            completionExecutor: .immediate)
    }

    @Test("when URLSessionTransport has a background configuration, should refuse every request unsent")
    func transport() async {
        let transport = URLSessionTransport(configuration: Self.backgroundConfiguration())

        let error = await #expect(throws: NetworkError.self) { try await module(transport).perform(request: Ping()) }

        #expect(transport.isBackground)
        #expect(error == .transportError(.unsupportedURL))
        #expect(error?.transportFailure?.message?.contains("background configuration") == true)
        #expect(error?.transportFailure?.failingURL?.absoluteString == "http://127.0.0.1:9/ping")
    }

    @Test("when a plain URLSession has a background configuration, should refuse every request unsent")
    func plainSession() async {
        let session = URLSession(configuration: Self.backgroundConfiguration())
        defer { session.invalidateAndCancel() }
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "http://127.0.0.1:9")!), session: session,
            completionExecutor: .immediate)

        let error = await #expect(throws: NetworkError.self) { try await module.perform(request: Ping()) }

        #expect(error == .transportError(.unsupportedURL))
        #expect(error?.transportFailure?.message?.contains("BackgroundTransfers") == true)
    }

    @Test("when the configuration is a default one, should not count as background")
    func defaultConfiguration() {
        let transport = URLSessionTransport(configuration: .ephemeral)

        #expect(!transport.isBackground)
        #expect(!URLSessionAdapter(URLSession.shared).isBackground)
    }
}
