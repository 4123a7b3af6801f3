import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A user's own `URLSession` code, in a file that imports NetworkModuleCore: it must compile
/// unchanged: the framework adds no overload to a Foundation type. The framework wraps a `URLSession` instead of adding a
/// second `dataTask(with:completionHandler:)` to it, which made these calls ambiguous. No task
/// is resumed: nothing is sent.
@Suite("A plain URLSession beside the framework")
struct URLSessionAdapterTests {
    let url = URL(string: "https://example.invalid/users/1")!

    @Test("when a file imports NetworkModuleCore, URLSession's dataTask(with: URLRequest) should compile unchanged")
    func urlRequestFormCompiles() {
        let request = URLRequest(url: url)

        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            _ = (data, response, error)
        }

        #expect(task.originalRequest?.url == url)
        task.cancel()
    }

    @Test("when a file imports NetworkModuleCore, URLSession's dataTask(with: URL) should compile unchanged")
    func urlFormCompiles() {
        let task = URLSession.shared.dataTask(with: url) { data, response, error in
            _ = (data, response, error)
        }

        #expect(task.originalRequest?.url == url)
        task.cancel()
    }

    @Test("when a module is given URLSession.shared, should send on that session through the adapter")
    func moduleTakesAPlainURLSession() {
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: url), session: URLSession.shared,
            completionExecutor: .immediate)

        #expect((module.session as? URLSessionAdapter)?.urlSession === URLSession.shared)
    }
}
