import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TransferOptions {
    /// Where a streamed body goes (``Destination/chunks(_:)``): it takes each chunk as a session
    /// reads it, and says when it is full, so that a slow consumer bounds what is buffered.
    ///
    /// The module makes one per streamed request; a session only calls
    /// ``receive(_:of:onRoom:)``. Two sinks are equal when they are the same sink.
    package struct ChunkSink: Sendable, Equatable {
        /// Gives the sink its identity: sinks compare by it.
        private final class Identity: Sendable {}

        private let identity = Identity()
        private let receiver: @Sendable (Data, HTTPURLResponse, @escaping @Sendable () -> Void) -> Bool

        /// Creates a sink that hands every chunk, with the response it belongs to and the call
        /// that resumes the session, to `receive`, which returns whether there is room for more
        /// (see ``receive(_:of:onRoom:)`` for the contract it must keep).
        package init(
            receive:
                @escaping @Sendable (
                    _ chunk: Data, _ response: HTTPURLResponse, _ onRoom: @escaping @Sendable () -> Void
                )
                -> Bool
        ) {
            self.receiver = receive
        }

        /// Takes `chunk`, the next bytes of the body of `response` (the same for every chunk of a
        /// task), and returns whether there is room for more; if not (`false`), the session stops
        /// reading as soon as it can (chunks already read it still hands over) and reads on when
        /// the sink calls `onRoom`, once, from any thread (a finished sink may never call it: the
        /// task is cancelled then). Sessions call it from any thread, one chunk at a time and in
        /// order, never after the task's completion handler.
        package func receive(_ chunk: Data, of response: HTTPURLResponse, onRoom: @escaping @Sendable () -> Void)
            -> Bool
        {
            receiver(chunk, response, onRoom)
        }

        /// Whether `lhs` and `rhs` are the same sink.
        package static func == (lhs: ChunkSink, rhs: ChunkSink) -> Bool {
            lhs.identity === rhs.identity
        }
    }
}
