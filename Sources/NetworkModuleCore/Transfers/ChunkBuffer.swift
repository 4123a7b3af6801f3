import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The chunks of one streamed response between the session that reads them and the consumer
/// that takes them, as a value: a method per event that returns what to do, behind its owner's
/// one lock (``ChunkDelivery`` for callbacks, ``ResponseStream`` for `for try await`).
///
/// A consumer takes chunks one at a time with ``take(_:)``; when there is none yet it is parked
/// as a `Waiter` (a continuation, or the mark that no delivery job is running) and the next chunk
/// or the end is handed straight to it. The end comes once, after every chunk that arrived
/// before it, except on a cancel, which drops the chunks not yet taken: after `.cancelled` the
/// consumer hears of nothing more.
///
/// The consumer's own cancel (``cancel()``) takes effect at once, under the same lock as every
/// take, not when the request's end has made its way through the completion executor: a chunk
/// still waiting, or arriving later, is dropped, and the end is ``NetworkError/cancelled``
/// whatever the request's outcome, so no chunk is handed over after the cancel returned.
///
/// ## The bound
/// The session is told the buffer is full (``receive(_:of:onRoom:)`` returns `hasRoom: false`)
/// once ``limit`` bytes wait, and its `onRoom` is kept; the consumer's take that brings the
/// buffer down to half the limit hands `onRoom` back to be called, and the session reads on. A
/// session still hands over the chunks it read before it could stop: they are kept, so the
/// buffer holds at most the limit plus what one pause lets through.
///
/// | state | event | result |
/// |---|---|---|
/// | open | receive, a consumer parked | chunk handed to it |
/// | open | receive, no consumer parked | buffered; full at ``limit`` bytes: `onRoom` kept |
/// | open | take, chunks buffered | first chunk; `onRoom` handed back at half the limit |
/// | open | take, none buffered | consumer parked |
/// | open, cancelled | take, none buffered, a consumer parked | busy: the parked one stays, this one is answered at once |
/// | open | finish | ending: a parked consumer gets the end; a cancel drops the chunks |
/// | ending | take, chunks buffered | first chunk |
/// | ending | take, none buffered | the end; over |
/// | ending, over | receive, finish | ignored |
/// | over | take | over: nothing more |
/// | open, ending | cancel | cancelled: the chunks dropped, the end (pending or to come) `.cancelled`, `onRoom` handed back |
/// | cancelled | receive | ignored |
/// | cancelled | finish | ending, with `.cancelled` |
/// | cancelled, over | cancel | ignored |
struct ChunkBuffer<Waiter, HeadWaiter> {
    /// What a consumer gets.
    enum Pull {
        case chunk(Data)
        /// The stream's end: the response (with no body: it went out in chunks) or the failure.
        case end(Result<NetworkResponse, NetworkError>)
    }

    /// What a chunk that arrived did.
    struct Receipt {
        /// Whether the session may go on reading.
        var hasRoom = true
        /// The parked consumer, with the chunk to hand it.
        var handOff: (waiter: Waiter, chunk: Data)?
        /// Those waiting for the response head, to hand it.
        var heads: [HeadWaiter] = []
    }

    /// What a take got.
    enum Taken {
        /// A chunk or the end, with the session's `onRoom` to call when the take made room.
        case now(Pull, resumeSession: (@Sendable () -> Void)?)
        /// Nothing yet: the consumer is parked until a chunk or the end arrives.
        case later
        /// The end was taken already: nothing more comes.
        case over
        /// Another consumer is parked: only one waits at a time (each chunk goes to one), so this
        /// one gets nothing from the buffer and is answered at once by its owner. The parked one
        /// stays parked.
        case busy
    }

    /// What the end did.
    struct Ending {
        /// The parked consumer, with the end to hand it.
        var wake: (waiter: Waiter, pull: Pull)?
        /// Those waiting for the response head, with what to tell them.
        var heads: [HeadWaiter] = []
        var head: Result<HTTPURLResponse, NetworkError>?
        /// The paused session's call to read on: called, so that a session waiting for room
        /// goes on to its end (its chunks are dropped from now on).
        var resumeSession: (@Sendable () -> Void)?
    }

    /// The buffered bytes at which the session is asked to stop reading.
    let limit: Int
    /// The bytes received and not yet taken.
    private(set) var bufferedBytes = 0
    /// Whether any chunk arrived: from then on the consumer has bytes it cannot un-see, and the
    /// request must not be retried.
    private(set) var hasReceived = false
    /// The head of the streamed response, from its first chunk.
    private(set) var response: HTTPURLResponse?
    private var chunks: [Data] = []
    private var head = 0
    private var waiter: Waiter?
    private var headWaiters: [HeadWaiter] = []
    /// The session's call to read on, while it is paused.
    private var onRoom: (@Sendable () -> Void)?
    /// The end, once known; taken after the chunks before it.
    private var end: Result<NetworkResponse, NetworkError>?
    /// Whether the end was taken.
    private(set) var isOver = false
    /// The head, or the failure, that the end brought.
    private var headAtEnd: Result<HTTPURLResponse, NetworkError>?
    /// Whether the consumer cancelled: no chunk is handed over from then on.
    private(set) var isCancelled = false

    /// A buffer that asks the session to pause at `limit` bytes (at least 1); `waiter`, when
    /// given, is parked from the start (a callback consumer with no delivery running).
    init(limit: Int, parked waiter: Waiter? = nil) {
        self.limit = max(1, limit)
        self.waiter = waiter
    }

    /// The session hands over `chunk` of `response`'s body.
    mutating func receive(_ chunk: Data, of response: HTTPURLResponse, onRoom: @escaping @Sendable () -> Void)
        -> Receipt
    {
        var receipt = Receipt()
        guard end == nil, !isOver, !isCancelled else { return receipt }
        if self.response == nil {
            self.response = response
            receipt.heads = headWaiters
            headWaiters = []
        }
        guard !chunk.isEmpty else { return receipt }
        hasReceived = true
        if bufferedBytes == 0, let waiter = waiter.take() {
            receipt.handOff = (waiter, chunk)
            return receipt
        }
        chunks.append(chunk)
        bufferedBytes += chunk.count
        if bufferedBytes >= limit {
            self.onRoom = onRoom
            receipt.hasRoom = false
        }
        return receipt
    }

    /// The consumer `waiter` asks for the next chunk or the end.
    mutating func take(_ waiter: Waiter) -> Taken {
        guard !isOver else { return .over }
        if head < chunks.count {
            let chunk = chunks[head]
            chunks[head] = Data()
            head += 1
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            }
            bufferedBytes -= chunk.count
            let resume = bufferedBytes <= limit / 2 ? onRoom.take() : nil
            return .now(.chunk(chunk), resumeSession: resume)
        }
        if let end {
            isOver = true
            self.end = nil
            return .now(.end(end), resumeSession: nil)
        }
        // One parked consumer at most: a second one must not take its place, or the first
        // would wait for ever.
        guard self.waiter == nil else { return .busy }
        self.waiter = waiter
        return .later
    }

    /// `waiter` asks for the response head: the first chunk's response, or the end's.
    mutating func awaitHead(_ waiter: HeadWaiter) -> Result<HTTPURLResponse, NetworkError>? {
        if let response { return .success(response) }
        if let headAtEnd { return headAtEnd }
        headWaiters.append(waiter)
        return nil
    }

    /// The request ended with `result`. A response that still holds a body (a status other than
    /// 2xx that the request accepts, collected in memory) hands it over as the last chunk; a
    /// cancel drops the chunks not taken. Only the first end counts.
    mutating func finish(_ result: Result<NetworkResponse, NetworkError>) -> Ending {
        var ending = Ending()
        guard end == nil, !isOver else { return ending }
        ending.resumeSession = onRoom.take()
        var result = isCancelled ? .failure(.cancelled) : result
        switch result {
        case .success(let response):
            if !response.data.isEmpty {
                hasReceived = true
                chunks.append(response.data)
                bufferedBytes += response.data.count
                result = .success(
                    NetworkResponse(
                        data: Data(), httpResponse: response.httpResponse, request: response.request,
                        duration: response.duration))
            }
            ending.head = .success(self.response ?? response.httpResponse)
        case .failure(let error):
            if error == .cancelled { dropChunks() }
            ending.head = self.response.map { .success($0) } ?? .failure(error)
        }
        headAtEnd = ending.head
        ending.heads = headWaiters
        headWaiters = []
        end = result
        // A parked consumer had taken every chunk: it gets the body's last chunk, if the end
        // brought one, or the end.
        if let waiter = waiter.take(), case .now(let pull, _) = take(waiter) {
            ending.wake = (waiter, pull)
        }
        return ending
    }

    /// The consumer cancelled: the chunks not taken are dropped, chunks still to come are
    /// ignored, and the end, pending or to come, is ``NetworkError/cancelled``. Returns the paused
    /// session's call to read on, to call so that the session goes on to its end.
    mutating func cancel() -> (@Sendable () -> Void)? {
        guard !isOver, !isCancelled else { return nil }
        isCancelled = true
        dropChunks()
        if end != nil { end = .failure(.cancelled) }
        return onRoom.take()
    }

    private mutating func dropChunks() {
        chunks.removeAll()
        head = 0
        bufferedBytes = 0
    }
}

extension LockedState {
    /// A sink that hands each chunk to the buffer behind this lock, then `handle`s what it did
    /// (a chunk for a parked consumer, heads to answer) outside the lock; the owners' one way in.
    func chunkSink<Waiter, HeadWaiter>(
        _ handle: @escaping @Sendable (ChunkBuffer<Waiter, HeadWaiter>.Receipt, HTTPURLResponse) -> Void
    ) -> TransferOptions.ChunkSink where State == ChunkBuffer<Waiter, HeadWaiter> {
        TransferOptions.ChunkSink { chunk, response, onRoom in
            let receipt = self.withLock { $0.receive(chunk, of: response, onRoom: onRoom) }
            handle(receipt, response)
            return receipt.hasRoom
        }
    }

    /// Cancels the buffer behind this lock (see ``ChunkBuffer/cancel()``) and resumes a session it
    /// had paused, so that it goes on to its end.
    func cancelChunks<Waiter, HeadWaiter>() where State == ChunkBuffer<Waiter, HeadWaiter> {
        withLock { $0.cancel() }?()
    }

    /// Ends the buffer behind this lock with `result` and resumes a session it had paused, so
    /// that it goes on to its end; returns what the end did, for the owner to hand on.
    func finishChunks<Waiter, HeadWaiter>(
        _ result: Result<NetworkResponse, NetworkError>
    ) -> ChunkBuffer<Waiter, HeadWaiter>.Ending where State == ChunkBuffer<Waiter, HeadWaiter> {
        let ending = withLock { $0.finish(result) }
        ending.resumeSession?()
        return ending
    }
}
