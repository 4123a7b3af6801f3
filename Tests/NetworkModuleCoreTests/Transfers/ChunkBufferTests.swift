import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every (state, event) pair of ``ChunkBuffer``, with no session, thread or clock: the table in
/// its documentation, as tests. Waiters are plain numbers.
@Suite("Chunk buffer")
struct ChunkBufferTests {
    typealias Buffer = ChunkBuffer<Int, Int>

    private let head = HTTPURLResponse(
        url: URL(string: "https://api.example.com/log")!, statusCode: 200, httpVersion: "HTTP/1.1",
        headerFields: [:])!

    private func bytes(_ count: Int) -> Data { Data(repeating: 7, count: count) }

    private func response(body: Data = Data()) -> NetworkResponse {
        NetworkResponse(data: body, httpResponse: head, request: URLRequest(url: head.url!))
    }

    @Test("when a consumer is parked, should hand it the next chunk without buffering it")
    func receiveWithParkedConsumer() {
        var buffer = Buffer(limit: 10)
        #expect(buffer.take(1).isLater)

        let receipt = buffer.receive(bytes(4), of: head, onRoom: {})

        #expect(receipt.handOff?.waiter == 1)
        #expect(receipt.handOff?.chunk == bytes(4))
        #expect(receipt.hasRoom)
        #expect(buffer.bufferedBytes == 0)
        #expect(buffer.hasReceived)
    }

    @Test("when chunks reach the limit with no consumer, should say it is full and keep onRoom")
    func fullAtLimit() {
        var buffer = Buffer(limit: 10)

        let first = buffer.receive(bytes(6), of: head, onRoom: {})
        let second = buffer.receive(bytes(4), of: head, onRoom: {})

        #expect(first.hasRoom)
        #expect(!second.hasRoom)
        #expect(buffer.bufferedBytes == 10)
    }

    @Test("when a take brings the buffer down to half the limit, should hand back onRoom once")
    func roomAtHalf() {
        var buffer = Buffer(limit: 10)
        let resumed = LockedState(0)
        for _ in 0..<4 { _ = buffer.receive(bytes(3), of: head, onRoom: { resumed.withLock { $0 += 1 } }) }

        let takes = (0..<4).map { _ in buffer.take(1) }

        #expect(takes.map(\.resumes) == [false, false, true, false], "12 → 9 → 6: not yet; → 3: at most half")
        #expect(takes.allSatisfy { $0.chunk == bytes(3) })
        #expect(buffer.bufferedBytes == 0)
    }

    @Test("when chunks are buffered, should hand them over in order before the end")
    func orderThenEnd() {
        var buffer = Buffer(limit: 100)
        _ = buffer.receive(Data([1]), of: head, onRoom: {})
        _ = buffer.receive(Data([2]), of: head, onRoom: {})
        let ending = buffer.finish(.success(response()))

        let pulls = [buffer.take(1), buffer.take(1), buffer.take(1), buffer.take(1)]

        #expect(ending.wake == nil)
        #expect(pulls[0].chunk == Data([1]))
        #expect(pulls[1].chunk == Data([2]))
        #expect(pulls[2].isSuccessEnd)
        #expect(pulls[3].isOver, "the end comes once")
    }

    @Test("when a second consumer takes while one is parked, should answer it busy and keep the first parked")
    func secondConsumerWhileParked() {
        var buffer = Buffer(limit: 10)
        #expect(buffer.take(1).isLater)

        #expect(buffer.take(2).isBusy, "one parked consumer at most: the second is answered at once")
        let receipt = buffer.receive(bytes(4), of: head, onRoom: {})
        let ending = buffer.finish(.success(response()))

        #expect(receipt.handOff?.waiter == 1, "the first consumer still gets the next chunk")
        #expect(ending.wake == nil, "no consumer left parked")
        #expect(buffer.take(2).isNow, "once no one waits, a consumer takes the end")
    }

    @Test("when the request ends while a consumer is parked, should wake it with the end")
    func finishWakesParkedConsumer() {
        var buffer = Buffer(limit: 100)
        _ = buffer.take(5)

        let ending = buffer.finish(.failure(.timedOut))

        #expect(ending.wake?.waiter == 5)
        if case .end(.failure(let error))? = ending.wake?.pull { #expect(error == .timedOut) } else { Issue.record() }
        #expect(buffer.take(5).isOver)
    }

    @Test("when a failure ends the stream, should hand over the chunks that arrived first")
    func failureKeepsChunks() {
        var buffer = Buffer(limit: 100)
        _ = buffer.receive(Data([1]), of: head, onRoom: {})

        _ = buffer.finish(.failure(.timedOut))

        #expect(buffer.take(1).chunk == Data([1]))
        #expect(buffer.take(1).failure == .timedOut)
    }

    @Test("when cancelled, should drop the chunks not taken, resume a paused session, and take nothing more")
    func cancelDropsChunks() {
        var buffer = Buffer(limit: 2)
        _ = buffer.receive(bytes(3), of: head, onRoom: {})

        let ending = buffer.finish(.failure(.cancelled))
        let late = buffer.receive(bytes(3), of: head, onRoom: {})

        #expect(ending.resumeSession != nil, "a session waiting for room goes on to its end")
        #expect(buffer.bufferedBytes == 0)
        #expect(late.hasRoom && late.handOff == nil, "a chunk after the end is dropped")
        #expect(buffer.take(1).failure == .cancelled)
        #expect(buffer.take(1).isOver)
    }

    @Test("when the consumer cancels while open, should drop the chunks, resume the session, and ignore later chunks")
    func consumerCancelWhileOpen() {
        var buffer = Buffer(limit: 2)
        _ = buffer.receive(bytes(3), of: head, onRoom: {})

        let resumeSession = buffer.cancel()
        let late = buffer.receive(bytes(3), of: head, onRoom: {})

        #expect(resumeSession != nil, "a session waiting for room goes on to its end")
        #expect(buffer.bufferedBytes == 0)
        #expect(late.hasRoom && late.handOff == nil, "a chunk after the cancel is dropped")
        #expect(buffer.take(1).isLater, "nothing but the end comes now")
    }

    @Test("when the consumer has cancelled, should end with .cancelled whatever the request's outcome")
    func endAfterConsumerCancelIsCancelled() {
        var buffer = Buffer(limit: 10)
        _ = buffer.take(1)
        _ = buffer.cancel()

        let ending = buffer.finish(.success(response(body: Data([9]))))

        if case .end(.failure(.cancelled))? = ending.wake?.pull {} else { Issue.record("the end was not .cancelled") }
        #expect(buffer.take(1).isOver)
    }

    @Test("when the consumer cancels with chunks and the end waiting, should drop them and end with .cancelled")
    func consumerCancelWhileEnding() {
        var buffer = Buffer(limit: 10)
        _ = buffer.receive(bytes(3), of: head, onRoom: {})
        _ = buffer.finish(.success(response()))

        _ = buffer.cancel()

        #expect(buffer.take(1).failure == .cancelled)
        #expect(buffer.take(1).isOver)
    }

    @Test("when the consumer cancels after the end was taken, or twice, should change nothing")
    func consumerCancelWhenOver() {
        var buffer = Buffer(limit: 10)
        _ = buffer.finish(.success(response()))
        _ = buffer.take(1)

        #expect(buffer.cancel() == nil)
        #expect(!buffer.isCancelled)
        var twice = Buffer(limit: 1)
        _ = twice.receive(bytes(2), of: head, onRoom: {})
        #expect(twice.cancel() != nil)
        #expect(twice.cancel() == nil, "the session was resumed once")
    }

    @Test("when the request ends twice, should keep the first end only")
    func firstEndWins() {
        var buffer = Buffer(limit: 10)
        _ = buffer.finish(.success(response()))

        let second = buffer.finish(.failure(.cancelled))

        #expect(second.wake == nil && second.heads.isEmpty)
        #expect(buffer.take(1).isSuccessEnd)
    }

    @Test("when a successful end still holds a body, should hand it over as the last chunk, then the end")
    func bodyInEndBecomesLastChunk() {
        var buffer = Buffer(limit: 10)
        _ = buffer.take(3)

        let ending = buffer.finish(.success(response(body: Data([9, 9]))))

        if case .chunk(let chunk)? = ending.wake?.pull { #expect(chunk == Data([9, 9])) } else { Issue.record() }
        #expect(buffer.hasReceived)
        #expect(buffer.take(3).isSuccessEnd)
    }

    @Test("when the head is awaited, should answer with the first chunk's response, or the end's")
    func headWaiters() {
        var buffer = Buffer(limit: 10)
        #expect(buffer.awaitHead(1) == nil)

        let receipt = buffer.receive(bytes(1), of: head, onRoom: {})

        #expect(receipt.heads == [1])
        #expect((try? buffer.awaitHead(2)?.get()) === head)
        var failed = Buffer(limit: 10)
        _ = failed.awaitHead(4)
        let ending = failed.finish(.failure(.timedOut))
        #expect(ending.heads == [4])
        #expect(failed.awaitHead(5).map { if case .failure(.timedOut) = $0 { true } else { false } } == true)
    }
}

extension ChunkBuffer.Taken {
    fileprivate var isLater: Bool { if case .later = self { true } else { false } }
    fileprivate var isOver: Bool { if case .over = self { true } else { false } }
    fileprivate var isBusy: Bool { if case .busy = self { true } else { false } }
    fileprivate var isNow: Bool { if case .now = self { true } else { false } }
    fileprivate var resumes: Bool {
        if case .now(_, let resume?) = self {
            _ = resume
            return true
        } else {
            return false
        }
    }
    fileprivate var chunk: Data? { if case .now(.chunk(let chunk), _) = self { chunk } else { nil } }
    fileprivate var isSuccessEnd: Bool { if case .now(.end(.success), _) = self { true } else { false } }
    fileprivate var failure: NetworkError? {
        if case .now(.end(.failure(let error)), _) = self { error } else { nil }
    }
}
