import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Long runs of ordinary requests: once the process has warmed up, what it holds (threads,
/// resident memory) must stop growing, however many requests follow.
@Suite("Integration: soak", .integration)
struct SoakIntegrationTests {
    /// Requests before the baseline is read: libcurl's, Foundation's and Dispatch's one-time
    /// set-up, and the allocator's first arenas.
    static let warmUpRequests = 2_000
    static let measuredRequests = 20_000
    /// Threads above the warmed-up count that Dispatch may start and not yet have retired.
    static let threadAllowance = 4
    /// Resident memory the measured requests may add. Foundation and libcurl on Linux keep
    /// about 100 bytes per request themselves (a plain `URLSession` grew from 57 to 59 MiB over
    /// 20,000 requests on this machine, as fast as the module), so about 2 MiB; a leak of each
    /// request's `URLRequest`, body or response (a kilobyte or more) adds 20 MiB or more.
    static let memoryAllowance = 6 * 1024 * 1024

    @Test(
        "probe (child process only): 20,000 sequential requests through a module with every default",
        .enabled(if: ChildProcess.isProbe("soak")))
    func probeSequentialRequests() async throws {
        // The module a newcomer writes: URLSessionTransport.shared, completions on the main queue.
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: try IntegrationServers.httpbin()))
        let request = Endpoint(path: "/get")
        for _ in 0..<Self.warmUpRequests {
            _ = try await module.perform(request: request)
        }
        let threadsAtStart = try #require(ProcessStatus.value("Threads"))
        let memoryAtStart = try #require(ProcessStatus.value("VmRSS"))
        var mostThreads = threadsAtStart

        for index in 1...Self.measuredRequests {
            _ = try await module.perform(request: request)
            if index % 500 == 0 {
                mostThreads = max(mostThreads, try #require(ProcessStatus.value("Threads")))
            }
        }

        let growth = try #require(ProcessStatus.value("VmRSS")) - memoryAtStart
        print(
            "soak: threads \(threadsAtStart) after warm-up, at most \(mostThreads); resident memory +\(growth / 1024) KiB"
        )
        #expect(
            mostThreads <= threadsAtStart + Self.threadAllowance,
            "threads grew from \(threadsAtStart) to \(mostThreads)")
        #expect(growth <= Self.memoryAllowance, "resident memory grew by \(growth / 1024) KiB")
    }

    @Test(
        "when 20,000 requests follow each other on loopback, threads and resident memory should plateau after warm-up")
    func threadsAndMemoryPlateau() async throws {
        #if os(Linux)
            _ = try IntegrationServers.httpbin()

            let outcome = try await ChildProcess.run(probe: "soak", filter: "probeSequentialRequests", timeout: 600)

            #expect(outcome.succeeded, "\(outcome.output)")
        #endif
    }
}
