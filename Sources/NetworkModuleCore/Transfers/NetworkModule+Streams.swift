import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ResponseStream {
    /// The bytes a stream lets wait for its consumer unless told otherwise: 1 MiB.
    public static let defaultBufferSize = 1 << 20
}

extension NetworkModule {
    /// ``perform(request:completion:)``, then the body, held in memory, handed to `onChunk` as
    /// one chunk (none when it is empty) before `completion` gets the response without it: what
    /// a module that cannot see the bytes arrive can do. `bufferSize` is not used.
    @discardableResult
    public func stream(
        request: any NetworkRequest, bufferSize: Int,
        onChunk: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        perform(request: request) { result in
            guard case .success(let response) = result else { return completion(result) }
            if !response.data.isEmpty { onChunk(response.data) }
            completion(
                .success(
                    NetworkResponse(
                        data: Data(), httpResponse: response.httpResponse, request: response.request,
                        duration: response.duration)))
        }
    }

    /// ``perform(request:completion:)`` when iteration starts, then the body, held in memory, as
    /// one chunk: what a module that cannot see the bytes arrive can do.
    public func stream(request: any NetworkRequest, bufferSize: Int) -> ResponseStream {
        ResponseStream(bufferSize: bufferSize) { channel in
            perform(request: request) { result in channel.finish(result) }
        }
    }

    /// ``stream(request:bufferSize:onChunk:completion:)`` with at most
    /// ``ResponseStream/defaultBufferSize`` bytes (1 MiB) waiting for `onChunk`.
    ///
    /// ```swift
    /// module.stream(request: GetExport(id: 7), onChunk: { chunk in file.write(chunk) }) { result in
    ///     if case .failure(let error) = result { show(error) }
    /// }
    /// ```
    @discardableResult
    public func stream(
        request: any NetworkRequest,
        onChunk: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        stream(request: request, bufferSize: ResponseStream.defaultBufferSize, onChunk: onChunk, completion: completion)
    }

    /// ``stream(request:bufferSize:)`` with at most ``ResponseStream/defaultBufferSize`` bytes
    /// (1 MiB) waiting for the consumer.
    ///
    /// ```swift
    /// for try await chunk in module.stream(request: GetExport(id: 7)) {
    ///     try file.write(contentsOf: chunk)
    /// }
    /// ```
    public func stream(request: any NetworkRequest) -> ResponseStream {
        stream(request: request, bufferSize: ResponseStream.defaultBufferSize)
    }
}
