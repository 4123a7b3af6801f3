import Foundation

extension ResponseStream {
    /// The bytes a stream lets wait for its consumer unless told otherwise: 1 MiB.
    @usableFromInline static let defaultBufferSize = 1 << 20
}

extension NetworkModule {
    /// Performs `request` and hands its body to `onChunk` as it arrives: chunk by chunk, in
    /// order, one at a time, through the completion executor; then `completion`, exactly once,
    /// after the last chunk, also through the executor, with the response (its `data` empty: the
    /// body went to `onChunk`) or the error. See `docs/transfers.md`.
    ///
    /// ```swift
    /// module.stream(request: GetExport(id: 7), onChunk: { chunk in file.write(chunk) }) { result in
    ///     if case .failure(let error) = result { show(error) }
    /// }
    /// ```
    ///
    /// - At most about `bufferSize` bytes (1 MiB, unless given) wait for `onChunk`: a consumer
    ///   slower than the network (a busy executor, a slow `onChunk`) pauses the transfer.
    ///   (``URLSessionTransport`` on Linux cannot pause one: there its
    ///   ``URLSessionTransport/maximumResponseSize`` bounds it.)
    /// - Only a 2xx body is streamed; any other status is read whole and handled as for
    ///   ``NetworkModule/perform(request:completion:)`` (an error status is its status's ``NetworkError`` case,
    ///   with the body in ``NetworkError/httpErrorResponse``).
    /// - Cancelling the returned handle cancels the request: `completion` gets
    ///   ``NetworkError/cancelled`` and, from the moment `cancel()` returns, `onChunk` nothing
    ///   more, even chunks that had arrived or were queued on the executor. (A cancel from
    ///   another thread cannot stop a chunk that `onChunk` is being handed at that moment.)
    /// - A failure after the first chunk has arrived is delivered as it is, never retried (the
    ///   consumer would get bytes twice); before it, the actions may retry as for any request.
    ///
    /// A module of your own (a mock) hands the body, held in memory, to `onChunk` as one chunk
    /// (none when it is empty) before `completion` gets the response without it; `bufferSize` is
    /// not used.
    @discardableResult
    public func stream(
        request: any NetworkRequest, bufferSize: Int = ResponseStream.defaultBufferSize,
        onChunk: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        let call = call(.description(request))
        let delivery = ChunkDelivery(
            limit: bufferSize, executor: call.module.completionExecutor, onChunk: onChunk, completion: completion)
        let handle = call.startStream(
            into: delivery.sink, retryAllowed: { !delivery.hasReceived }, end: { result in delivery.finish(result) })
        return delivery.handle(cancelling: handle)
    }

    /// The body of `request` as an `AsyncSequence` of chunks, sent when iteration starts, with at
    /// most about `bufferSize` bytes (1 MiB, unless given) waiting for the consumer; the transfer
    /// pauses while they do. See ``ResponseStream``.
    ///
    /// ```swift
    /// for try await chunk in module.stream(request: GetExport(id: 7)) {
    ///     try file.write(contentsOf: chunk)
    /// }
    /// ```
    ///
    /// A module of your own (a mock) hands the body over, held in memory, as one chunk.
    public func stream(
        request: any NetworkRequest, bufferSize: Int = ResponseStream.defaultBufferSize
    ) -> ResponseStream {
        ResponseStream(bufferSize: bufferSize) { channel in
            call(.description(request)).startStream(
                into: channel.sink, retryAllowed: { !channel.hasReceived }, end: { result in channel.finish(result) })
        }
    }
}

extension ModuleCall {
    /// Starts the call streaming its body into `sink`, retrying only while `retryAllowed` says
    /// so, and hands the outcome to `end` through the completion executor.
    fileprivate func startStream(
        into sink: TransferOptions.ChunkSink, retryAllowed: @escaping @Sendable () -> Bool,
        end: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        let session = TransferOperationSession(
            base: module.transferringSession, reporter: nil, download: nil, chunks: sink, retryAllowed: retryAllowed)
        return start(transfer: session) { result in
            (result, { cancelled in end(cancelled ? .failure(.cancelled) : result) })
        }
    }
}
