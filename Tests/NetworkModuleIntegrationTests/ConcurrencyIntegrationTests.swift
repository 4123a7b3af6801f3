import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cancellation and load on a real server.
@Suite("Integration: cancellation and load", .integration)
struct ConcurrencyIntegrationTests {
    @Test("when cancelled in flight, should deliver .cancelled promptly and exactly once")
    func cancelInFlight() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let deliveries = Deliveries()

        let task = module.perform(request: Endpoint(path: "/delay/10")) { deliveries.record($0) }
        try await Task.sleep(nanoseconds: 200_000_000)
        let cancelledAt = Date()
        task.cancel()
        task.cancel()
        let first = await deliveries.first()
        let latency = Date().timeIntervalSince(cancelledAt)
        try await Task.sleep(nanoseconds: 300_000_000)  // time for a stray second delivery to show up

        #expect(first.error == .cancelled)
        // The server would answer after 10 s; the cancel is delivered without waiting for it.
        #expect(latency < 5, "cancel delivered after \(latency) s")
        #expect(deliveries.count == 1)
    }

    @Test("when a Task awaiting a request is cancelled, should throw .cancelled promptly")
    func cancelAsync() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())

        let task = Task { try await module.perform(request: Endpoint(path: "/delay/10")) }
        try await Task.sleep(nanoseconds: 200_000_000)
        let cancelledAt = Date()
        task.cancel()
        let result = await task.result
        let latency = Date().timeIntervalSince(cancelledAt)

        #expect(throws: NetworkError.cancelled) { try result.get() }
        #expect(latency < 5, "cancel delivered after \(latency) s; the server would answer after 10 s")
    }

    @Test("when 500 requests run 50 at a time, should complete each exactly once with its own body")
    func fiveHundredRequests() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let total = 500
        let width = 50

        let matched = try await withThrowingTaskGroup(of: Bool.self) { group in
            var started = 0
            var matched = 0
            func start(_ index: Int) {
                group.addTask {
                    let echo = try await module.performAndDecode(
                        request: Endpoint(path: "/get", queryItems: [URLQueryItem(name: "n", value: "\(index)")]),
                        responseType: HTTPBinEcho.self)
                    return echo.args?["n"] == "\(index)"
                }
            }
            while started < width {
                start(started)
                started += 1
            }
            while let ok = try await group.next() {
                matched += ok ? 1 : 0
                if started < total {
                    start(started)
                    started += 1
                }
            }
            return matched
        }

        #expect(matched == total)
    }
}

/// Counts completions and lets a test await the first.
final class Deliveries: Sendable {
    private struct State {
        var results: [Result<NetworkResponse, NetworkError>] = []
        var waiter: CheckedContinuation<Result<NetworkResponse, NetworkError>, Never>?
    }

    private let state = LockedState(State())

    var count: Int { state.withLock { $0.results.count } }

    func record(_ result: Result<NetworkResponse, NetworkError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<NetworkResponse, NetworkError>, Never>? in
            state.results.append(result)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func first() async -> Result<NetworkResponse, NetworkError> {
        await withCheckedContinuation { continuation in
            let existing = state.withLock { state -> Result<NetworkResponse, NetworkError>? in
                if let first = state.results.first { return first }
                state.waiter = continuation
                return nil
            }
            if let existing { continuation.resume(returning: existing) }
        }
    }
}
