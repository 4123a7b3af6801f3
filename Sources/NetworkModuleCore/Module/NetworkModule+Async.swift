import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension NetworkModule {
    /// Performs `request` and returns its response.
    ///
    /// Cancelling the calling `Task` cancels the request, which then throws
    /// ``NetworkError/cancelled``.
    ///
    /// ```swift
    /// let response = try await module.perform(request: GetUser(id: 1))
    /// ```
    public func perform(request: any NetworkRequest) async throws(NetworkError) -> NetworkResponse {
        try await bridge { completion in perform(request: request, completion: completion) }
    }

    /// Performs a ``TypedRequest`` and returns its ``TypedRequest/Response``: the call site names
    /// no type. Cancelling the calling `Task` cancels the request, which then throws
    /// ``NetworkError/cancelled``.
    ///
    /// ```swift
    /// let user = try await module.send(GetUser(id: 1))
    /// ```
    public func send<Request: TypedRequest>(_ request: Request) async throws(NetworkError) -> Request.Response {
        try await bridge { completion in perform(request, completion: completion) }
    }

    /// Performs `urlRequest` and returns its response; cancelling the `Task` cancels it.
    public func perform(urlRequest: URLRequest) async throws(NetworkError) -> NetworkResponse {
        try await bridge { completion in perform(urlRequest: urlRequest, completion: completion) }
    }

    /// Downloads `request`'s body to `destination` and returns the file; cancelling the `Task`
    /// cancels the download, which leaves no file. See
    /// ``download(request:to:progress:completion:)``; ``downloadTask(request:to:)`` gives the
    /// progress as an `AsyncSequence`.
    public func download(
        request: any NetworkRequest, to destination: DownloadDestination,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(NetworkError) -> DownloadResponse {
        try await bridge { completion in
            download(request: request, to: destination, progress: progress, completion: completion)
        }
    }

    /// Performs `request` and decodes the JSON body into `responseType`; cancelling the
    /// `Task` cancels the request.
    ///
    /// ```swift
    /// let user = try await module.performAndDecode(request: GetUser(id: 1), responseType: User.self)
    /// ```
    public func performAndDecode<Response: Decodable & Sendable>(
        request: any NetworkRequest, responseType: Response.Type = Response.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws(NetworkError) -> Response {
        try await bridge { completion in
            performAndDecode(request: request, responseType: responseType, decoder: decoder, completion: completion)
        }
    }

    /// Performs `urlRequest` and decodes the JSON body into `responseType`; cancelling the
    /// `Task` cancels the request.
    public func performAndDecode<Response: Decodable & Sendable>(
        urlRequest: URLRequest, responseType: Response.Type = Response.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws(NetworkError) -> Response {
        try await bridge { completion in
            performAndDecode(
                urlRequest: urlRequest, responseType: responseType, decoder: decoder, completion: completion)
        }
    }
}

/// Runs a callback-style request as an async call: the continuation is resumed exactly once
/// (the module delivers exactly once), and cancelling the `Task` cancels the request, even
/// when the cancellation comes before the request has started. A `Task` cancelled before the
/// call starts no request at all: it throws ``NetworkError/cancelled`` and nothing is sent.
private func bridge<Output: Sendable>(
    _ start: (@escaping @Sendable (Result<Output, NetworkError>) -> Void) -> any NetworkCancellable
) async throws(NetworkError) -> Output {
    let request = LockedState(TaskLifecycle<any NetworkCancellable, Void>(handler: ()))
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Output, NetworkError>, Never>) in
            // A task cancelled before it got here has had its cancellation handler run already:
            // send nothing.
            let started = request.start { start { result in continuation.resume(returning: result) } }
            if !started { continuation.resume(returning: .failure(.cancelled)) }
        }
    } onCancel: {
        request.cancel()
    }
    return try result.get()
}
