import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The body of a response as it arrives, for `for try await`: the chunks of a 2xx body in order,
/// then the end, or the request's ``NetworkError``.
///
/// ```swift
/// for try await chunk in module.stream(request: GetLog(id: 7)) {
///     parser.consume(chunk)
/// }
/// ```
///
/// - **The request starts when iteration starts** (``makeAsyncIterator()``, or a first
///   ``next()``), or when ``response`` is first awaited. Iterate a stream once, from one task:
///   it is its own iterator, and one consumer takes each chunk. A second task that asks for a
///   chunk while another waits for one (iterating a copy of the stream, say) is not made to
///   wait: its `next()` throws ``NetworkError/underlying(_:)`` at once, saying so, and the
///   waiting task reads on.
/// - **Memory stays bounded.** At most about `bufferSize` bytes wait for the consumer (see
///   ``NetworkModule/stream(request:bufferSize:)``): a consumer slower than the network pauses
///   the transfer, which reads on when the consumer has taken half of them. (With
///   ``URLSessionTransport`` on Linux, where swift-corelibs-foundation cannot pause a transfer,
///   the transport's ``URLSessionTransport/maximumResponseSize`` is the bound instead.)
/// - **Cancelling** the iterating `Task`, or releasing the iterator (leaving the loop with
///   `break`, say), cancels the request, and so does releasing the stream and every copy of it.
///   The iterator then throws ``NetworkError/cancelled`` (a cancelled `Task`) or is gone; no
///   chunk comes after it.
/// - **Exactly one end**: after the last chunk, `next()` returns `nil` once the request
///   succeeded, or throws its ``NetworkError`` (thrown errors are always `NetworkError`s);
///   after that it returns `nil`. Chunks that arrived before a failure are handed over first;
///   a cancel drops them.
/// - **Error statuses are not streamed**: their body is read whole and thrown as
///   its status's ``NetworkError`` case, with the body in ``NetworkError/httpErrorResponse`` (or
///   decoded by your actions), as for any request.
/// - **No silent retry after the first byte**: a failure once a chunk has arrived is thrown,
///   whatever the module's actions would decide (the consumer would see the bytes twice).
///   Before it, retries work as for any request.
///
/// Iterating it needs no completion executor hop for chunks; the end arrives through the
/// module's completion executor, after the actions have seen it.
public struct ResponseStream: AsyncSequence, AsyncIteratorProtocol, Sendable {
    private let source: Source
    /// Cancels the request when the iterator is released: set only on the copy that
    /// ``makeAsyncIterator()`` returns, so that leaving a loop cancels even while the stream
    /// itself is still held.
    private let lifetime: Lifetime?

    /// A stream whose request `start` sends, handing its body to the channel's sink and its end
    /// to the channel's ``Channel/finish(_:)``, with at most `bufferSize` bytes waiting.
    init(bufferSize: Int, start: @escaping @Sendable (Channel) -> any NetworkCancellable) {
        self.source = Source(channel: Channel(limit: bufferSize), start: start)
        self.lifetime = nil
    }

    private init(source: Source, lifetime: Lifetime) {
        self.source = source
        self.lifetime = lifetime
    }

    /// Starts the request (unless it started already) and returns the stream as the iterator of
    /// its chunks: releasing that iterator cancels the request.
    public func makeAsyncIterator() -> ResponseStream {
        source.startIfNeeded()
        return ResponseStream(source: source, lifetime: Lifetime(source: source))
    }

    /// The next chunk; `nil` after the last one of a successful response. Starts the request if
    /// it has not started.
    ///
    /// - Throws: the request's ``NetworkError`` (``NetworkError/cancelled`` when the `Task`
    ///   was cancelled), once, after the chunks that arrived before it; or, at once,
    ///   ``NetworkError/underlying(_:)`` when another task waits for a chunk of the same stream.
    public mutating func next() async throws -> Data? {
        let source = source
        source.startIfNeeded()
        let pulled = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if let pull = source.channel.take(continuation) { continuation.resume(returning: pull) }
            }
        } onCancel: {
            source.cancel()
        }
        return try pulled.get()
    }

    /// The response's head: the status and headers of the streamed body, as soon as its first
    /// chunk arrived, or at the end for a body that is empty or was not streamed. Starts the
    /// request if it has not started.
    ///
    /// - Throws: the request's ``NetworkError`` when it failed before a chunk arrived.
    public var response: HTTPURLResponse {
        get async throws(NetworkError) {
            let source = source
            source.startIfNeeded()
            let channel = source.channel
            // Cancelling the awaiting task cancels the stream, as it does for `next()`.
            let head = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if let head = channel.awaitHead(continuation) { continuation.resume(returning: head) }
                }
            } onCancel: {
                source.cancel()
            }
            return try head.get()
        }
    }

    /// What a second task's `next()` throws (as ``NetworkError/underlying(_:)``) while another
    /// task waits for a chunk of the same stream: only one task iterates a stream.
    struct ConcurrentIteration: Error, LocalizedError, CustomStringConvertible {
        var description: String {
            "Another task is already waiting for the next chunk of this ResponseStream: iterate a stream "
                + "from one task only (each chunk goes to one consumer)."
        }
        var errorDescription: String? { description }
    }

    /// Cancels the request when the iterator that holds it is released.
    private final class Lifetime: Sendable {
        let source: Source

        init(source: Source) {
            self.source = source
        }

        deinit {
            source.cancel()
        }
    }

    /// The stream's request: started once, cancelled by its iterator's cancel or release, or
    /// when the stream and all its copies are released.
    final class Source: Sendable {
        let channel: Channel
        private let start: @Sendable (Channel) -> any NetworkCancellable
        private let request = LockedState(TaskLifecycle<any NetworkCancellable, Void>(handler: ()))

        init(channel: Channel, start: @escaping @Sendable (Channel) -> any NetworkCancellable) {
            self.channel = channel
            self.start = start
        }

        deinit {
            cancel()
        }

        func startIfNeeded() {
            // A task cancelled before it iterates (or awaits the response) sends nothing: the
            // stream ends `.cancelled`, as the async calls do.
            if Task.isCancelled { return cancel() }
            request.start { start(channel) }
        }

        /// Cancels the request: the channel hands over no chunk from now on (see
        /// ``ChunkBuffer/cancel()``), and the request's end arrives as ``NetworkError/cancelled``
        /// (at once for a request that never started).
        func cancel() {
            channel.cancel()
            if request.cancel() { channel.finish(.failure(.cancelled)) }
        }
    }

    /// The buffer between the session and the iterator, behind one lock.
    final class Channel: Sendable {
        typealias Pulled = Result<Data?, NetworkError>
        typealias Waiter = CheckedContinuation<Pulled, Never>
        typealias HeadWaiter = CheckedContinuation<Result<HTTPURLResponse, NetworkError>, Never>

        private let buffer: LockedState<ChunkBuffer<Waiter, HeadWaiter>>

        init(limit: Int) {
            self.buffer = LockedState(ChunkBuffer(limit: limit))
        }

        /// The sink the session hands the body to.
        var sink: TransferOptions.ChunkSink {
            buffer.chunkSink { receipt, response in
                for head in receipt.heads { head.resume(returning: .success(response)) }
                if let (waiter, chunk) = receipt.handOff { waiter.resume(returning: .success(chunk)) }
            }
        }

        /// Whether any chunk arrived: a retry would then show the consumer bytes twice.
        var hasReceived: Bool {
            buffer.withLock { $0.hasReceived }
        }

        /// The consumer cancelled: no chunk is handed over from now on.
        func cancel() {
            buffer.cancelChunks()
        }

        /// The request ended with `result`.
        func finish(_ result: Result<NetworkResponse, NetworkError>) {
            let ending = buffer.finishChunks(result)
            if let head = ending.head {
                for waiter in ending.heads { waiter.resume(returning: head) }
            }
            if let (waiter, pull) = ending.wake { waiter.resume(returning: Self.pulled(pull)) }
        }

        /// The next chunk or the end, now; `nil` when `waiter` is parked until one arrives.
        func take(_ waiter: Waiter) -> Pulled? {
            switch buffer.withLock({ $0.take(waiter) }) {
            case .now(let pull, let resumeSession):
                resumeSession?()
                return Self.pulled(pull)
            case .later:
                return nil
            case .over:
                return .success(nil)
            case .busy:
                return .failure(.underlying(ConcurrentIteration()))
            }
        }

        /// The response head now, or `nil` when `waiter` waits for it.
        func awaitHead(_ waiter: HeadWaiter) -> Result<HTTPURLResponse, NetworkError>? {
            buffer.withLock { $0.awaitHead(waiter) }
        }

        private static func pulled(_ pull: ChunkBuffer<Waiter, HeadWaiter>.Pull) -> Pulled {
            switch pull {
            case .chunk(let chunk): .success(chunk)
            case .end(.success): .success(nil)
            case .end(.failure(let error)): .failure(error)
            }
        }
    }
}
