import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hands a body held in memory to a ``TransferOptions/ChunkSink`` as a session that streams
/// would: in pieces, in order, waiting while the sink is full. For sessions that do not stream
/// (the default transfer task) and for fakes that deliver a stub in chunks.
package enum ChunkFeeder {
    /// Hands `body`, the body of `response`, to `sink` in pieces of at most `pieceSize` bytes
    /// (at least 1), from `offset` on, then calls `done`. When the sink is full it waits for the
    /// sink's `onRoom` and goes on from there, on that thread; a sink that never calls it (its
    /// request was cancelled) leaves `done` uncalled. An empty body calls `done` at once.
    package static func feed(
        _ body: Data, of response: HTTPURLResponse, in pieceSize: Int, from offset: Int = 0,
        to sink: TransferOptions.ChunkSink, then done: @escaping @Sendable () -> Void
    ) {
        let pieceSize = max(1, pieceSize)
        var offset = offset
        while offset < body.count {
            let end = body.count - offset > pieceSize ? offset + pieceSize : body.count
            let piece = body.subdata(in: (body.startIndex + offset)..<(body.startIndex + end))
            offset = end
            let next = end
            let hasRoom = sink.receive(piece, of: response) {
                feed(body, of: response, in: pieceSize, from: next, to: sink, then: done)
            }
            guard hasRoom else { return }
        }
        done()
    }
}
