import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Loopback mode: raw `URLSession` against `DefaultNetworkModule` on the same configuration
/// and the same nginx, in alternating runs (A B A B …).
struct LoopbackBenchmarks {
    let options: BenchmarkOptions
    let baseURL: URL

    struct Side: Codable {
        let requestsPerSecond: Summary
        let cpuMicrosecondsPerRequest: Summary
        /// Voluntary plus involuntary context switches of the whole process per request: the
        /// thread wake-ups a request costs (docs/performance.md, "Context switches").
        let contextSwitchesPerRequest: Summary
        /// The voluntary part: a thread that waited for something another thread then did.
        let voluntarySwitchesPerRequest: Summary
        let peakResidentMegabytes: Double
        let failures: Int
    }

    /// A side measured against raw `URLSession` in the same alternation: a module, or the
    /// control, raw `URLSession` again on a session of its own, whose figures over raw are what
    /// this machine's noise alone gives (docs/performance.md, "The control").
    struct ComparedSide: Codable {
        /// What ran: "module on URLSession", "module on URLSessionTransport" or the control.
        let name: String
        let side: Side
        /// Its requests/s over raw requests/s, per pair of neighbouring runs.
        let ratio: Summary
        /// Its CPU µs per request minus raw's, per pair of neighbouring runs.
        let cpuMicrosecondsOverRaw: Summary
        /// Its context switches per request minus raw's, per pair of neighbouring runs.
        let contextSwitchesOverRaw: Summary
    }

    struct Comparison: Codable {
        let name: String
        let inFlight: Int
        let requestsPerRun: Int
        let raw: Side
        /// The control first, then the modules.
        let compared: [ComparedSide]
    }

    func run() -> [Comparison] {
        var comparisons: [Comparison] = []
        for inFlight in [1, 32] {
            comparisons.append(
                compare(
                    name: "GET ~400 B JSON", path: "/users/42.json?fields=name%2Cemail", request: UserRequest(),
                    inFlight: inFlight, requests: options.loopbackRequests))
        }
        comparisons.append(
            compare(
                name: "GET 1 MB file", path: "/large.bin", request: LargeFileRequest(), inFlight: 4,
                requests: max(20, options.loopbackRequests / 40)))
        return comparisons
    }

    private func compare(
        name: String, path: String, request: any NetworkRequest, inFlight: Int, requests: Int
    ) -> Comparison {
        let configuration = Self.configuration(inFlight: inFlight)
        let rawSession = URLSession(configuration: configuration)
        let plainSession = URLSession(configuration: configuration)
        let transport = URLSessionTransport(configuration: configuration, maximumResponseSize: nil)
        let builder = DefaultRequestBuilder(baseURL: baseURL, defaultHeaders: ["Accept": "application/json"])
        let url = baseURL.absoluteString + path
        let controlSession = URLSession(configuration: configuration)
        let compared: [(name: String, send: (@escaping @Sendable (Bool) -> Void) -> Void)] = [
            ("raw URLSession again (control)", Self.rawSend(controlSession, url: url)),
            (
                "module on URLSession",
                Self.moduleSend(
                    DefaultNetworkModule(
                        requestBuilder: builder, session: plainSession, completionExecutor: .immediate),
                    request: request)
            ),
            (
                "module on URLSessionTransport",
                Self.moduleSend(
                    DefaultNetworkModule(requestBuilder: builder, session: transport, completionExecutor: .immediate),
                    request: request)
            ),
        ]
        let rawSend = Self.rawSend(rawSession, url: url)

        // Warm-up: connections, caches and code paths of every side.
        _ = measureRun(requests: min(requests, 200), inFlight: inFlight, send: rawSend)
        for entry in compared { _ = measureRun(requests: min(requests, 200), inFlight: inFlight, send: entry.send) }

        // Alternating runs: raw, then each compared side, then raw again, … so drift hits all alike.
        var raw: [RunMeasurement] = []
        var comparedRuns = Array(repeating: [RunMeasurement](), count: compared.count)
        for _ in 0..<options.pairs {
            raw.append(measureRun(requests: requests, inFlight: inFlight, send: rawSend))
            for (index, entry) in compared.enumerated() {
                comparedRuns[index].append(measureRun(requests: requests, inFlight: inFlight, send: entry.send))
            }
        }
        for session in [rawSession, controlSession, plainSession] { session.finishTasksAndInvalidate() }
        return Comparison(
            name: name, inFlight: inFlight, requestsPerRun: requests, raw: side(raw, requests: requests),
            compared: compared.enumerated().map { index, entry in
                let pairs = zip(raw, comparedRuns[index])
                return ComparedSide(
                    name: entry.name, side: side(comparedRuns[index], requests: requests),
                    ratio: Summary(pairs.map { raw, other in raw.seconds / other.seconds }),
                    cpuMicrosecondsOverRaw: Summary(
                        pairs.map { raw, other in (other.cpuSeconds - raw.cpuSeconds) / Double(requests) * 1e6 }),
                    contextSwitchesOverRaw: Summary(
                        pairs.map { raw, other in
                            Double(other.contextSwitches - raw.contextSwitches) / Double(requests)
                        }))
            })
    }

    /// `--profile SIDE`: `options.loopbackRequests` requests of `path` on one side alone,
    /// `options.profileInFlight` in flight, in a process of their own, with nothing sampled or printed: for a profiler
    /// (`valgrind --tool=callgrind`, `perf`), whose counts for two request counts, subtracted,
    /// give one request's cost on that side. Returns the number of failed requests.
    func profile(_ side: BenchmarkOptions.ProfileSide, path: String) -> Int {
        let configuration = Self.configuration(inFlight: options.profileInFlight)
        let builder = DefaultRequestBuilder(baseURL: baseURL, defaultHeaders: ["Accept": "application/json"])
        let send: (@escaping @Sendable (Bool) -> Void) -> Void
        switch side {
        case .raw:
            send = Self.rawSend(URLSession(configuration: configuration), url: baseURL.absoluteString + path)
        case .module:
            let module = DefaultNetworkModule(
                requestBuilder: builder, session: URLSession(configuration: configuration),
                completionExecutor: .immediate)
            send = Self.moduleSend(module, request: PathRequest(path: path))
        case .transport:
            let transport = URLSessionTransport(configuration: configuration, maximumResponseSize: nil)
            let module = DefaultNetworkModule(
                requestBuilder: builder, session: transport, completionExecutor: .immediate)
            send = Self.moduleSend(module, request: PathRequest(path: path))
        }
        return LoadDriver(total: options.loopbackRequests, send: send).run(inFlight: options.profileInFlight).failures
    }

    /// The same configuration for every side: enough connections for the requests in flight,
    /// no cache.
    private static func configuration(inFlight: Int) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = max(inFlight, 6)
        configuration.urlCache = nil
        return configuration
    }

    /// One raw request: what an app without the framework writes.
    private static func rawSend(_ session: URLSession, url: String) -> (@escaping @Sendable (Bool) -> Void) -> Void {
        { done in
            guard let url = URL(string: url) else { return done(false) }
            var urlRequest = URLRequest(url: url)
            urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
            session.dataTask(with: urlRequest) { data, response, error in
                done(error == nil && (response as? HTTPURLResponse)?.statusCode == 200 && data != nil)
            }.resume()
        }
    }

    /// One request through a module.
    private static func moduleSend(
        _ module: DefaultNetworkModule, request: any NetworkRequest
    ) -> (@escaping @Sendable (Bool) -> Void) -> Void {
        { done in
            module.perform(request: request) { result in
                if case .success = result { done(true) } else { done(false) }
            }
        }
    }

    private func side(_ runs: [RunMeasurement], requests: Int) -> Side {
        let perRequest = { (value: Double) in value / Double(requests) }
        return Side(
            requestsPerSecond: Summary(runs.map { Double(requests) / $0.seconds }),
            cpuMicrosecondsPerRequest: Summary(runs.map { perRequest($0.cpuSeconds) * 1e6 }),
            contextSwitchesPerRequest: Summary(runs.map { perRequest(Double($0.contextSwitches)) }),
            voluntarySwitchesPerRequest: Summary(runs.map { perRequest(Double($0.voluntarySwitches)) }),
            peakResidentMegabytes: Double(runs.map(\.peakResidentBytes).max() ?? 0) / 1_048_576,
            failures: runs.map(\.failures).reduce(0, +))
    }
}

/// What one run of a loopback side measured, for the whole process while it ran.
struct RunMeasurement {
    let seconds: Double
    let cpuSeconds: Double
    let voluntarySwitches: Int
    let involuntarySwitches: Int
    let peakResidentBytes: Int
    let failures: Int

    var contextSwitches: Int { voluntarySwitches + involuntarySwitches }
}

/// One run of `requests` requests, `inFlight` at a time.
///
/// The memory sampler's thread wakes every 5 ms, adding the same few switches a second to every
/// side alike (about 0.1 per request at 2,000 requests a second).
func measureRun(
    requests: Int, inFlight: Int, send: @escaping (@escaping @Sendable (Bool) -> Void) -> Void
) -> RunMeasurement {
    let sampler = PeakMemorySampler()
    let before = ResourceUsage.Snapshot()
    let (seconds, failures) = LoadDriver(total: requests, send: send).run(inFlight: inFlight)
    let after = ResourceUsage.Snapshot()
    return RunMeasurement(
        seconds: seconds, cpuSeconds: after.cpuSeconds - before.cpuSeconds,
        voluntarySwitches: after.voluntarySwitches - before.voluntarySwitches,
        involuntarySwitches: after.involuntarySwitches - before.involuntarySwitches,
        peakResidentBytes: sampler.stop(), failures: failures)
}
