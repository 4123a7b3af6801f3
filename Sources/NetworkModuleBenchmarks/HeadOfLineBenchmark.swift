import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Head-of-line mode: does one request's slow work hold up the others of the same module?
///
/// Small requests are sent one after another through a module on `URLSessionTransport`, each
/// timed from `perform` to its completion: first alone, then while another request of the same
/// module decodes a large JSON body (`performAndDecode`, over and over), then while other
/// requests of the module keep an action's `didReceive` hook busy for 50 ms each. Each busy
/// case is compared with the case alone (p50 and p99 of the small requests' latencies).
struct HeadOfLineBenchmark {
    let options: BenchmarkOptions
    let baseURL: URL

    struct Case: Codable {
        let name: String
        let samples: Int
        let p50Milliseconds: Double
        let p99Milliseconds: Double
        /// p50 and p99 over those of the case with nothing else running; `nil` for that case.
        let p50Ratio: Double?
        let p99Ratio: Double?
        /// How many of the busy requests (large decodes, slow hooks) completed meanwhile.
        let busyRequestsCompleted: Int
    }

    func run() -> [Case] {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.urlCache = nil
        let transport = URLSessionTransport(configuration: configuration, maximumResponseSize: nil)
        let builder = DefaultRequestBuilder(baseURL: baseURL, defaultHeaders: ["Accept": "application/json"])
        let module = DefaultNetworkModule(
            requestBuilder: builder, session: transport, actions: [SlowHookAction()], completionExecutor: .immediate)
        let samples = options.headOfLineSamples

        // Warm-up: connections and code paths.
        _ = latencies(of: module, count: min(samples, 100))
        let alone = latencies(of: module, count: samples)

        let decoding = BusyLoop(inFlight: 1) { done in
            module.performAndDecode(request: LargeJSONRequest(), responseType: [BenchmarkUser].self) { result in
                if case .success(let users) = result { blackHole(users.count) }
                done()
            }
        }
        decoding.waitUntilOneCompleted()
        let duringDecode = latencies(of: module, count: samples)
        let decodes = decoding.stop()

        let slowHooks = BusyLoop(inFlight: 2) { done in
            module.perform(request: SlowHookRequest()) { _ in done() }
        }
        let duringSlowHooks = latencies(of: module, count: samples)
        let slowRequests = slowHooks.stop()

        let baseline = Percentiles(alone)
        func busyCase(_ name: String, _ values: [Double], completed: Int) -> Case {
            let percentiles = Percentiles(values)
            return Case(
                name: name, samples: values.count, p50Milliseconds: percentiles.p50, p99Milliseconds: percentiles.p99,
                p50Ratio: percentiles.p50 / baseline.p50, p99Ratio: percentiles.p99 / baseline.p99,
                busyRequestsCompleted: completed)
        }
        return [
            Case(
                name: "small requests alone", samples: alone.count, p50Milliseconds: baseline.p50,
                p99Milliseconds: baseline.p99, p50Ratio: nil, p99Ratio: nil, busyRequestsCompleted: 0),
            busyCase("while a \(LargeJSONRequest.megabytes) MB JSON body decodes", duringDecode, completed: decodes),
            busyCase("while hooks take 50 ms", duringSlowHooks, completed: slowRequests),
        ]
    }

    /// Sends `count` small requests one after another; returns each one's latency in ms.
    private func latencies(of module: DefaultNetworkModule, count: Int) -> [Double] {
        var values: [Double] = []
        values.reserveCapacity(count)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            let start = nowNanoseconds()
            module.perform(request: UserRequest()) { _ in done.signal() }
            done.wait()
            values.append(Double(nowNanoseconds() - start) / 1e6)
        }
        return values
    }
}

/// The 50th and 99th percentiles of some values (nearest rank).
private struct Percentiles {
    let p50: Double
    let p99: Double

    init(_ values: [Double]) {
        let sorted = values.sorted()
        func rank(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(index, 0), sorted.count - 1)]
        }
        p50 = rank(0.50)
        p99 = rank(0.99)
    }
}

/// Keeps `inFlight` requests going, each started when the previous one completes, until
/// stopped.
private final class BusyLoop: @unchecked Sendable {
    // @unchecked Sendable is safe: `running`, `completed` and `active` are only touched under
    // `lock`; `send` is set once in init.
    private let lock = NSCondition()
    private var running = true
    private var completed = 0
    private var active = 0
    private let send: (@escaping @Sendable () -> Void) -> Void

    init(inFlight: Int, send: @escaping (@escaping @Sendable () -> Void) -> Void) {
        self.send = send
        for _ in 0..<inFlight { start() }
    }

    private func start() {
        lock.lock()
        active += 1
        lock.unlock()
        send { [self] in
            lock.lock()
            active -= 1
            completed += 1
            let again = running
            lock.broadcast()
            lock.unlock()
            if again { start() }
        }
    }

    /// Waits until the first request has completed, so that the loop is past its warm-up.
    func waitUntilOneCompleted() {
        lock.lock()
        while completed == 0 { lock.wait() }
        lock.unlock()
    }

    /// Stops starting requests, waits for those in flight, and returns how many completed.
    func stop() -> Int {
        lock.lock()
        running = false
        while active > 0 { lock.wait() }
        let count = completed
        lock.unlock()
        return count
    }
}

/// An action whose `didReceive` takes 50 ms for ``SlowHookRequest`` and nothing for others.
private struct SlowHookAction: NetworkModuleAction {
    func didReceive(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        if context.networkRequest is SlowHookRequest { Thread.sleep(forTimeInterval: 0.05) }
    }
}

/// The small JSON, asked for by the requests whose hook is slow.
private struct SlowHookRequest: NetworkRequest {
    var path: String { "/users/42.json" }
}

/// The large JSON array of users that scripts/bench.sh writes beside the small one.
struct LargeJSONRequest: NetworkRequest {
    /// Its size, as scripts/bench.sh makes it.
    static let megabytes = 24
    var path: String { "/users/large.json" }
}
