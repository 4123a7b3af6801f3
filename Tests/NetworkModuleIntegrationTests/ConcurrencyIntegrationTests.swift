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

    @Test(
        "when cancel() is called on the line after perform, 1,000 times, should never deliver a success that starts after cancel() returned",
        arguments: ["URLSessionTransport", "URLSession"])
    func cancelOnTheNextLine(transport: String) async throws {
        let session: any NetworkSession =
            transport == "URLSession"
            ? URLSessionAdapter(URLSession(configuration: .ephemeral)) : IntegrationServers.makeSession()
        let count = 1_000
        let race = CancelRace(count: count)
        let executor = StartRecordingExecutor(queue: DispatchQueue(label: "cancel-on-the-next-line"), race: race)
        let answered = AnswerSignal()
        let module = IntegrationServers.module(
            baseURL: try IntegrationServers.faultServer(), session: session, actions: [answered], executor: executor)

        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // On a thread of its own, as an app's code would run: not on a cooperative thread.
            Thread.detachNewThread {
                for index in 0..<count {
                    if index % 2 == 1 { answered.arm() }
                    let task = module.perform(request: Endpoint(path: "/health")) { result in
                        race.completed(index, result)
                        usleep(1_000)  // a completion with work to do: the next deliveries wait for it
                    }
                    // Every other cancel waits (up to 10 ms) for the answer to be decided: it then
                    // meets it on its way to the executor, queued behind the completion before it.
                    if index % 2 == 1 { answered.wait(milliseconds: 10) }
                    task.cancel()
                    race.cancelReturned(index)
                }
                continuation.resume()
            }
        }
        let allCompleted = await race.allCompleted(within: 120)
        try await Task.sleep(nanoseconds: 300_000_000)  // time for a stray second completion to show up
        let report = race.report()

        #expect(allCompleted)
        #expect(report.completions.allSatisfy { $0 == 1 }, "every request completes exactly once")
        #expect(
            report.successesStartedAfterCancel == 0,
            "\(report.successesStartedAfterCancel) of \(count) delivered a success that the executor began after cancel() returned"
        )
        print(
            "\(transport): \(report.successes) successes of \(count), \(report.successesStartedAfterCancel) begun after cancel() returned"
        )
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

/// The race between `cancel()` and a delivery: for each request, when its `cancel()` returned and
/// when the executor began running its completion, on one clock (a counter behind the lock, so
/// "before" is the order in which the two took it).
final class CancelRace: Sendable {
    struct Report {
        var completions: [Int]
        var successes: Int
        var successesStartedAfterCancel: Int
    }

    private struct State {
        var clock = 0
        var cancelReturnedAt: [Int?]
        /// When the executor began the delivery now running on the serial queue.
        var runningDeliveryBeganAt = 0
        var completions: [Int]
        var successBeganAt: [Int?]
        var remaining: Int
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state: LockedState<State>

    init(count: Int) {
        state = LockedState(
            State(
                cancelReturnedAt: Array(repeating: nil, count: count), completions: Array(repeating: 0, count: count),
                successBeganAt: Array(repeating: nil, count: count), remaining: count))
    }

    /// The serial executor begins a delivery (before the framework's part of it runs).
    func deliveryBegins() {
        state.withLock { state in
            state.clock += 1
            state.runningDeliveryBeganAt = state.clock
        }
    }

    func cancelReturned(_ index: Int) {
        state.withLock { state in
            state.clock += 1
            state.cancelReturnedAt[index] = state.clock
        }
    }

    func completed(_ index: Int, _ result: Result<NetworkResponse, NetworkError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.completions[index] += 1
            if case .success = result { state.successBeganAt[index] = state.runningDeliveryBeganAt }
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: true)
    }

    /// Waits up to `seconds` for every request to complete.
    func allCompleted(within seconds: TimeInterval) async -> Bool {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.remaining <= 0 { return true }
                state.waiter = continuation
                return false
            }
            if done { return continuation.resume(returning: true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [state] in
                let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: false)
            }
        }
    }

    func report() -> Report {
        state.withLock { state in
            var late = 0
            for (began, cancelled) in zip(state.successBeganAt, state.cancelReturnedAt) {
                if let began, let cancelled, cancelled < began { late += 1 }
            }
            return Report(
                completions: state.completions, successes: state.successBeganAt.compactMap { $0 }.count,
                successesStartedAfterCancel: late)
        }
    }
}

/// Delivers on a serial queue, telling `race` when each delivery begins.
struct StartRecordingExecutor: CompletionExecutor {
    let queue: DispatchQueue
    let race: CancelRace

    func execute(_ work: @escaping @Sendable () -> Void) {
        queue.async {
            race.deliveryBegins()
            work()
        }
    }
}

/// An action that tells a waiting test when the request it watches has its outcome decided
/// (`didFinish` runs just before the delivery is handed to the executor).
final class AnswerSignal: NetworkModuleAction {
    private let armed = LockedState<DispatchSemaphore?>(nil)

    /// Watches the next request to finish.
    func arm() {
        armed.withLock { $0 = DispatchSemaphore(value: 0) }
    }

    /// Waits up to `milliseconds` for the watched request's outcome.
    func wait(milliseconds: Int) {
        guard let semaphore = armed.withLock({ $0 }) else { return }
        _ = semaphore.wait(timeout: .now() + .milliseconds(milliseconds))
        armed.withLock { $0 = nil }
    }

    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        armed.withLock { $0 }?.signal()
    }
}
