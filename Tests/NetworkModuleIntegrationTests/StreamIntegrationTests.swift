import Foundation
import NetworkModuleCore
import NetworkModuleTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streamed responses on the wire, against the fault server: order and bytes, the buffer bound
/// under a slow consumer, cancellation, and the size limit.
@Suite("Streams on the wire", .integration)
struct StreamIntegrationTests {
    /// Polls `condition` every 10 ms for at most `seconds`; whether it became true.
    static func eventually(within seconds: TimeInterval, _ condition: () -> Bool) async -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return true
    }

    @Test("when a multi-MB body streams, should hand over its chunks in order, byte for byte, and finish")
    func multiMegabyteInOrder() async throws {
        let size = 8 * 1024 * 1024
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer())
        let expected = TransferTestSupport.pattern(length: size)
        var received = 0
        var chunks = 0
        var mismatch: Int?

        for try await chunk in module.stream(
            request: Endpoint(path: "/large", queryItems: [URLQueryItem(name: "bytes", value: "\(size)")]),
            bufferSize: 256 * 1024)
        {
            let end = received + chunk.count
            if mismatch == nil, end > size || chunk != expected[received..<end] { mismatch = received }
            received += chunk.count
            chunks += 1
            if chunks % 64 == 0 { await Task.yield() }
        }

        #expect(received == size)
        #expect(mismatch == nil, "a wrong byte in the chunk at \(mismatch ?? -1)")
        #expect(chunks > 1, "streamed, not handed over whole")
    }

    @Test("when the consumer is slow, should pause reading (Apple) or stop at the size limit (Linux), memory bounded")
    func slowConsumerBoundsBuffer() async throws {
        let bound = 256 * 1024
        let limit = 8 * 1024 * 1024
        let transport = URLSessionTransport(configuration: .ephemeral, maximumResponseSize: limit)
        let url = try IntegrationServers.faultServer().appendingPathComponent("endless")
        let consumer = SlowConsumer(bound: bound)
        let ended = LockedEnd()

        let task = transport.transferTask(
            with: URLRequest(url: url), transfer: TransferOptions(destination: .chunks(consumer.sink))
        ) { _, _, error in ended.set(error) }
        task.resume()
        // The consumer takes 64 KiB every 20 ms: about 3 MiB a second, far below loopback speed.
        // Apple: 2 s of it, paused. Linux: until the limit ends it, which a loaded machine (CI,
        // both cores busy) may take longer than 2 s to reach.
        #if canImport(FoundationNetworking)
            let rounds = 1_000
        #else
            let rounds = 100
        #endif
        for _ in 0..<rounds where ended.error == nil {
            try await Task.sleep(nanoseconds: 20_000_000)
            consumer.drain(64 * 1024)
        }
        task.cancel()

        let stats = consumer.stats
        print("streams: slow consumer: received \(stats.received / 1024) KiB, peak waiting \(stats.peak / 1024) KiB")
        #expect(await Self.eventually(within: 5) { ended.error != nil })
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation cannot pause a transfer: the size limit bounds what waits.
            #expect(stats.received <= limit)
            #expect(
                (ended.error as? NetworkError) == .responseTooLarge(limit: limit), "\(String(describing: ended.error))")
        #else
            // The bound, plus the chunks already read when the task was suspended.
            #expect(stats.peak <= bound + 1024 * 1024, "peak waiting \(stats.peak) bytes")
            #expect(stats.received < limit, "reading paused: \(stats.received) bytes read in 2 s")
            #expect((ended.error as? URLError)?.code == .cancelled)
        #endif
    }

    @Test("when a stream is cancelled after the first chunk, should complete once with .cancelled and no later chunk")
    func cancelAfterFirstChunk() async throws {
        // The first chunk's handler cancels where the transport hands it over: on a loaded machine a
        // Dispatch pool kept busy could hold it back until the 2.5 s body had all arrived.
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer(), executor: .immediate)
        let events = Events()
        let handle = LockedHandle()
        let trickle = Endpoint(
            path: "/trickle",
            queryItems: [
                URLQueryItem(name: "chunks", value: "50"), URLQueryItem(name: "interval_ms", value: "50"),
                URLQueryItem(name: "chunk_bytes", value: "100"),
            ])

        handle.set(
            module.stream(
                request: trickle,
                onChunk: { _ in
                    events.chunk()
                    handle.cancel()
                },
                completion: { result in events.end(result) }))

        #expect(await Self.eventually(within: 10) { events.ends.count == 1 })
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(events.ends.count == 1, "exactly one end")
        #expect(events.ends.first?.error == .cancelled)
        #expect(events.chunksAfterEnd == 0)
        #expect(events.chunks >= 1)
    }

    @Test("when the async iterator of a stream that does not end is dropped, should cancel the request")
    func droppingIteratorStopsEndlessStream() async throws {
        let finished = FinishRecorder()
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer(), actions: [finished])
        var chunks = 0

        // Endless for the test's purpose (a kilobyte every 10 ms for 1,000 s), and slow enough that
        // no size limit ends it first: on Linux the transport cannot pause a stream, and
        // `/endless` at loopback speed passes 100 MiB before a cancel on a loaded machine lands.
        let endless = Endpoint(
            path: "/trickle",
            queryItems: [
                URLQueryItem(name: "chunks", value: "100000"), URLQueryItem(name: "interval_ms", value: "10"),
                URLQueryItem(name: "chunk_bytes", value: "1000"),
            ])
        for try await _ in module.stream(request: endless, bufferSize: 64 * 1024) {
            chunks += 1
            if chunks == 3 { break }
        }

        #expect(await Self.eventually(within: 10) { finished.results.count == 1 })
        #expect(finished.results.first?.error == .cancelled)
    }

    @Test("when a streamed body passes the size limit, should fail with .responseTooLarge")
    func sizeLimitApplies() async throws {
        let transport = URLSessionTransport(configuration: .ephemeral, maximumResponseSize: 1024 * 1024)
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer(), session: transport)
        var received = 0

        await #expect(throws: NetworkError.responseTooLarge(limit: 1024 * 1024)) {
            for try await chunk in module.stream(request: Endpoint(path: "/endless")) { received += chunk.count }
        }
        #expect(received <= 1024 * 1024)
    }
}

/// A consumer that takes bytes only when the test drains it, and measures what waits.
private final class SlowConsumer: Sendable {
    struct Stats {
        var received = 0
        var consumed = 0
        var peak = 0
        var onRoom: (@Sendable () -> Void)?
    }

    let bound: Int
    private let state = LockedState(Stats())

    init(bound: Int) {
        self.bound = bound
    }

    var stats: Stats { state.withLock { $0 } }

    var sink: TransferOptions.ChunkSink {
        TransferOptions.ChunkSink { chunk, _, onRoom in
            self.state.withLock { stats in
                stats.received += chunk.count
                stats.peak = max(stats.peak, stats.received - stats.consumed)
                guard stats.received - stats.consumed >= self.bound else { return true }
                stats.onRoom = onRoom
                return false
            }
        }
    }

    /// Takes up to `bytes` of what waits; resumes the session once half the bound is free.
    func drain(_ bytes: Int) {
        let resume = state.withLock { stats -> (@Sendable () -> Void)? in
            stats.consumed = min(stats.received, stats.consumed + bytes)
            guard stats.received - stats.consumed <= bound / 2 else { return nil }
            defer { stats.onRoom = nil }
            return stats.onRoom
        }
        resume?()
    }
}

/// The error a task ended with.
private final class LockedEnd: Sendable {
    private let state = LockedState<(any Error)?>(nil)
    var error: (any Error)? { state.withLock { $0 } }
    func set(_ error: (any Error)?) { state.withLock { $0 = error ?? URLError(.unknown) } }
}

/// A handle set after the call that returns it.
private final class LockedHandle: Sendable {
    private let state = LockedState<(any NetworkCancellable)?>(nil)
    func set(_ handle: any NetworkCancellable) { state.withLock { $0 = handle } }
    func cancel() { state.withLock { $0 }?.cancel() }
}

/// Chunks and ends of a callback stream, and chunks that came after an end.
private final class Events: Sendable {
    private struct State {
        var chunks = 0
        var chunksAfterEnd = 0
        var ends: [Result<NetworkResponse, NetworkError>] = []
    }

    private let state = LockedState(State())
    var chunks: Int { state.withLock { $0.chunks } }
    var chunksAfterEnd: Int { state.withLock { $0.chunksAfterEnd } }
    var ends: [Result<NetworkResponse, NetworkError>] { state.withLock { $0.ends } }

    func chunk() {
        state.withLock { state in
            state.chunks += 1
            if !state.ends.isEmpty { state.chunksAfterEnd += 1 }
        }
    }

    func end(_ result: Result<NetworkResponse, NetworkError>) { state.withLock { $0.ends.append(result) } }
}

/// An action that records how each request finished.
private final class FinishRecorder: NetworkModuleAction {
    private let state = LockedState<[Result<NetworkResponse, NetworkError>]>([])
    var results: [Result<NetworkResponse, NetworkError>] { state.withLock { $0 } }

    func didFinish(_ result: Result<NetworkResponse, NetworkError>, context: ActionContext) {
        state.withLock { $0.append(result) }
    }
}
