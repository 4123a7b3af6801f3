import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// network-module-demo: a tour of NetworkModule.
//
//   swift run network-module-demo                          # offline, on the embedded stub backend
//   swift run network-module-demo --base-url http://127.0.0.1:8080   # against an httpbin-compatible server

let usage = """
    usage: network-module-demo [--base-url URL]
      --base-url URL   run the tour against an httpbin-compatible server instead of the
                       embedded stub backend
    """

var arguments = CommandLine.arguments.dropFirst()
var baseURL: URL?
while let argument = arguments.popFirst() {
    switch argument {
    case "--base-url":
        guard let value = arguments.popFirst(), let url = URL(string: value), url.host != nil else {
            FileHandle.standardError.write(Data("--base-url needs an absolute URL\n\(usage)\n".utf8))
            exit(2)
        }
        baseURL = url
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n\(usage)\n".utf8))
        exit(2)
    }
}

let defaultHeaders: HTTPHeaders = ["Accept": "application/json"]
let lastMetrics = LastMetrics()
let actions = DemoActions.make(metrics: lastMetrics)
let module: DefaultNetworkModule
if let baseURL {
    module = DefaultNetworkModule(
        requestBuilder: DefaultRequestBuilder(baseURL: baseURL, defaultHeaders: defaultHeaders),
        // The safe transport, as everywhere a user copies from: credentials stay on their origin
        // across redirects, responses are bounded and their framing checked.
        session: URLSessionTransport.shared, actions: actions, completionExecutor: .main)
} else {
    // ".invalid" is reserved (RFC 2606): nothing here ever reaches a network.
    let stubURL = URLComponents(string: "https://stub.invalid")?.url ?? URL(fileURLWithPath: "/")
    module = DefaultNetworkModule(
        requestBuilder: DefaultRequestBuilder(baseURL: stubURL, defaultHeaders: defaultHeaders),
        session: StubBackend.makeSession(), actions: actions, completionExecutor: .main)
}

let passed = await Tour(
    module: module, backendName: baseURL?.absoluteString ?? "the embedded stub backend", lastMetrics: lastMetrics
).run()
exit(passed ? 0 : 1)
