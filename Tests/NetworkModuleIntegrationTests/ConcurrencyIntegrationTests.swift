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
        let latency = first.deliveredAt.timeIntervalSince(cancelledAt)
        try await Task.sleep(nanoseconds: 300_000_000)  // time for a stray second delivery to show up

        #expect(first.result.error == .cancelled)
        // The server would answer after 10 s; the cancel is delivered without waiting for it.
        #expect(latency < 5, "cancel delivered after \(latency) s")
        #expect(deliveries.count == 1)
    }

    @Test("when a Task awaiting a request is cancelled, should throw .cancelled promptly")
    func cancelAsync() async throws {
        let executor = DeliveryClockExecutor()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin(), executor: executor)

        let task = Task { try await module.perform(request: Endpoint(path: "/delay/10")) }
        try await Task.sleep(nanoseconds: 200_000_000)
        let cancelledAt = Date()
        task.cancel()
        let result = await task.result
        let latency = try #require(executor.lastDelivery).timeIntervalSince(cancelledAt)

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
/// Collects a callback's deliveries with the time each arrived, and hands the first to a waiter.
///
/// The time is read in the callback itself: a test that resumes later (because the other tests
/// keep the cooperative threads busy) still measures when the framework delivered.
final class Deliveries: Sendable {
    typealias Delivery = (result: Result<NetworkResponse, NetworkError>, deliveredAt: Date)

    private struct State {
        var deliveries: [Delivery] = []
        var waiter: CheckedContinuation<Delivery, Never>?
    }

    private let state = LockedState(State())

    var count: Int { state.withLock { $0.deliveries.count } }

    func record(_ result: Result<NetworkResponse, NetworkError>) {
        let delivery = (result: result, deliveredAt: Date())
        let waiter = state.withLock { state -> CheckedContinuation<Delivery, Never>? in
            state.deliveries.append(delivery)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: delivery)
    }

    func first() async -> Delivery {
        await withCheckedContinuation { continuation in
            let existing = state.withLock { state -> Delivery? in
                if let first = state.deliveries.first { return first }
                state.waiter = continuation
                return nil
            }
            if let existing { continuation.resume(returning: existing) }
        }
    }
}

/// Delivers on the background queue like `.background`, noting when it last ran a completion.
final class DeliveryClockExecutor: CompletionExecutor {
    private let deliveredAt = LockedState<Date?>(nil)

    /// When the last completion ran, or `nil` before the first.
    var lastDelivery: Date? { deliveredAt.withLock { $0 } }

    func execute(_ work: @escaping @Sendable () -> Void) {
        BuiltInExecutor.background.execute {
            self.deliveredAt.withLock { $0 = Date() }
            work()
        }
    }
}
