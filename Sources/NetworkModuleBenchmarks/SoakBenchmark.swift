import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Soak mode: many requests through the module; resident memory sampled at intervals must not
/// grow once warmed up.
struct SoakBenchmark {
    let options: BenchmarkOptions
    let baseURL: URL

    struct Result: Codable {
        let requests: Int
        let inFlight: Int
        let failures: Int
        let seconds: Double
        /// Resident megabytes after every `sampleEvery` requests.
        let residentMegabytes: [Double]
        let sampleEvery: Int
        /// Last sample over the first sample after warm-up (the second sample), in percent.
        let growthAfterWarmUpPercent: Double
    }

    func run() -> Result {
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: baseURL, defaultHeaders: ["Accept": "application/json"]),
            session: URLSessionTransport(configuration: .ephemeral), completionExecutor: .immediate)
        let samples = LockedSamples()
        let every = options.soakSampleEvery
        let request = UserRequest()
        let driver = LoadDriver(
            total: options.soakRequests,
            onCompleted: { count in
                if count % every == 0 { samples.append(Double(ResourceUsage.residentBytes()) / 1_048_576) }
            },
            send: { done in
                module.perform(request: request) { result in
                    if case .success = result { done(true) } else { done(false) }
                }
            })
        let (seconds, failures) = driver.run(inFlight: 32)
        let values = samples.values
        let warmed = values.count > 1 ? values[1] : (values.first ?? 0)
        let growth = warmed == 0 ? 0 : ((values.last ?? 0) - warmed) / warmed * 100
        return Result(
            requests: options.soakRequests, inFlight: 32, failures: failures, seconds: seconds,
            residentMegabytes: values, sampleEvery: every, growthAfterWarmUpPercent: growth)
    }
}

private final class LockedSamples: @unchecked Sendable {
    // @unchecked Sendable is safe: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [Double] = []

    func append(_ value: Double) { lock.withLock { stored.append(value) } }
    var values: [Double] { lock.withLock { stored } }
}
