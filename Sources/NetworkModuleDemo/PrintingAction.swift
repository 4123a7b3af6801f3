import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A hand-written action: prints each attempt and its outcome. (The library's own logging
/// action redacts secrets and pretty-prints bodies; this one shows how small an action can be.)
struct PrintingAction: NetworkModuleAction {
    func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        let method = context.sentRequest?.httpMethod ?? "GET"
        let url = context.sentRequest?.url?.absoluteString ?? "?"
        switch result {
        case .success(let response):
            let milliseconds = Int((response.duration * 1000).rounded())
            print("    [action] \(method) \(url) → \(response.statusCode), \(response.data.count) bytes, \(milliseconds) ms")
        case .failure(let error):
            let status = error.statusCode.map { "HTTP \($0)" } ?? "\(error)"
            print("    [action] \(method) \(url) → \(status)")
        }
    }
}
