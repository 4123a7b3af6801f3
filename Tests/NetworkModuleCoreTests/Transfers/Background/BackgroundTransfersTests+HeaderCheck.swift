import Foundation
import NetworkModuleTestSupport
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one header check of a background transfer, just before the hand-off.
extension BackgroundTransfersTests {
    struct BadHeaderGet: NetworkRequest {
        var path: String { "/videos/7/file" }
        var headers: HTTPHeaders
    }

    @Test(
        "when a caller's header, a default header or an action's header holds CR/LF, should end the transfer with the header error, never handed to the system",
        arguments: ["caller", "defaults", "action"])
    func issue40BadHeaderNeverHandedOff(source: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = HTTPHeaders([("X-Bad", "v\r\nX-Injected: 1")])
        let module: DefaultNetworkModule =
            switch source {
            case "defaults":
                DefaultNetworkModule(
                    requestBuilder: DefaultRequestBuilder(
                        baseURL: URL(string: "https://api.example.com/v2")!, defaultHeaders: bad),
                    session: FakeNetworkSession(), actions: [action], completionExecutor: .immediate)
            case "action": self.module(actions: [action, WritesBadHeader()])
            default: self.module()
            }
        let transfers = transfers(module: module)
        let request = BadHeaderGet(headers: source == "caller" ? bad : [:])
        var thrown: NetworkError?
        do {
            try transfers.download(
                request: request, to: DownloadDestination(folder.appendingPathComponent("v")), id: "a")
        } catch { thrown = error }
        let ended = thrown ?? reports.results.first?.error
        #expect(system.sent.isEmpty)
        #expect(ended == .invalidRequest(.invalidHeaderValue(name: "X-Bad")), "\(String(describing: ended))")
        #expect(reports.results.count + (thrown == nil ? 0 : 1) == 1)
        #expect(action.hooks.value.last == "didFinish" || thrown != nil)
        let ledger = (try? String(contentsOf: ledgerFile, encoding: .utf8)) ?? ""
        #expect(!ledger.contains("X-Injected"), "the ledger keeps the bad header: \(ledger.prefix(300))")
    }
}
