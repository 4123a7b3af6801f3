import Foundation

/// The chunks and the end of one streamed request, handed to the caller's callbacks through the
/// completion executor: in order, one at a time (one delivery job runs at once, whatever the
/// executor), the end after the last chunk and exactly once.
///
/// A ``ChunkBuffer`` behind one lock holds what the callbacks have not taken yet, so a consumer
/// slower than the network (a busy main queue, a slow `onChunk`) pauses the session at the
/// buffer's limit.
final class ChunkDelivery: Sendable {
    /// The mark of a consumer with no delivery job running: the next chunk starts one.
    private struct Idle {}

    private let buffer: LockedState<ChunkBuffer<Idle, Never>>
    private let executor: any CompletionExecutor
    private let onChunk: @Sendable (Data) -> Void
    private let completion: @Sendable (Result<NetworkResponse, NetworkError>) -> Void

    init(
        limit: Int, executor: any CompletionExecutor, onChunk: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) {
        self.buffer = LockedState(ChunkBuffer(limit: limit, parked: Idle()))
        self.executor = executor
        self.onChunk = onChunk
        self.completion = completion
    }

    /// The sink the session hands the body to.
    var sink: TransferOptions.ChunkSink {
        buffer.chunkSink { receipt, _ in
            if let (_, chunk) = receipt.handOff {
                self.executor.execute { self.deliver(from: .chunk(chunk)) }
            }
        }
    }

    /// Whether any chunk arrived: a retry would then show the caller bytes twice.
    var hasReceived: Bool {
        buffer.withLock { $0.hasReceived }
    }

    /// The handle to give the caller: cancelling it stops the chunks at once (see
    /// ``ChunkBuffer/cancel()``), then cancels `operation`, whose end arrives as
    /// ``NetworkError/cancelled``.
    func handle(cancelling operation: any NetworkCancellable) -> any NetworkCancellable {
        Handle(delivery: self, operation: operation)
    }

    private struct Handle: NetworkCancellable {
        let delivery: ChunkDelivery
        let operation: any NetworkCancellable

        func cancel() {
            delivery.buffer.cancelChunks()
            operation.cancel()
        }
    }

    /// The request ended with `result`; called on the completion executor. The end is delivered
    /// here when no delivery job runs, and otherwise by the job, after its last chunk.
    func finish(_ result: Result<NetworkResponse, NetworkError>) {
        if let (_, pull) = buffer.finishChunks(result).wake { deliver(from: pull) }
    }

    /// The delivery job: hands over `first`, then whatever the buffer holds, until it is empty
    /// (the job ends, and the next chunk starts another) or the end is delivered.
    ///
    /// `first`, a chunk handed to the job when it was queued, is dropped if the caller cancelled
    /// since: a cancel made on the executor's queue, where this job runs, is seen by every job
    /// queued behind it. (A cancel from another thread while a job hands a chunk over cannot
    /// stop that one chunk; it stops every chunk after it.)
    private func deliver(from first: ChunkBuffer<Idle, Never>.Pull) {
        var pull: ChunkBuffer<Idle, Never>.Pull? = first
        if case .chunk = first, buffer.withLock({ $0.isCancelled }) { pull = nil }
        while true {
            switch pull {
            case .chunk(let chunk):
                onChunk(chunk)
            case .end(let result):
                completion(result)
                return
            case nil:
                break
            }
            switch buffer.withLock({ $0.take(Idle()) }) {
            case .now(let next, let resumeSession):
                resumeSession?()
                pull = next
            case .later, .over, .busy:
                return
            }
        }
    }
}
