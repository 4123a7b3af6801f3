import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Performs requests and delivers their results to completion closures.
///
/// ``DefaultNetworkModule`` is the implementation; code that performs requests should depend
/// on this protocol, so tests can hand it a fake.
///
/// Every `perform` call returns a ``NetworkCancellable`` at once and delivers exactly one
/// result through the module's completion executor: a response, an error, or
/// ``NetworkError/cancelled``.
///
/// A custom implementation (a hand-written mock, say) must implement the two `perform`
/// methods that take `request:` and `urlRequest:`; the decoding and typed methods have default
/// implementations built on them.
public protocol NetworkModule: Sendable {
    /// Decodes the bodies of ``TypedRequest``s that name no decoder of their own, and is the
    /// decoder to read server error bodies with. Default: a ``JSONResponseDecoder``.
    var decoder: any ResponseDecoder { get }

    /// Performs a ``TypedRequest`` and delivers its ``TypedRequest/Response``: the call site
    /// names no type.
    ///
    /// ```swift
    /// module.perform(GetUser(id: 1)) { result in
    ///     // Result<User, NetworkError>, through the completion executor, exactly once
    /// }
    /// ```
    ///
    /// The body is turned into the response (``TypedRequest/decodeResponse(_:decoder:)``, with
    /// the request's decoder or ``decoder``) before the completion executor is reached, and a
    /// body that does not decode is the request's failure, which the actions see too.
    @discardableResult
    func perform<Request: TypedRequest>(
        _ request: Request,
        completion: @escaping @Sendable (Result<Request.Response, NetworkError>) -> Void
    ) -> any NetworkCancellable

    /// Builds, prepares and sends `request`, then delivers the response or error.
    @discardableResult
    func perform(
        request: any NetworkRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable

    /// Prepares and sends a ready-made `URLRequest`, then delivers the response or error.
    /// Any 2xx status counts as success.
    @discardableResult
    func perform(
        urlRequest: URLRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable

    /// Performs `request` and tells `progress` how far its upload and download have got, through
    /// the completion executor, at most about 60 times a second per direction, the last time at
    /// completion, before the result. See `docs/transfers.md`.
    ///
    /// A custom implementation need not implement it: by default it calls
    /// ``perform(request:completion:)`` and reports the download once, complete, when it succeeds.
    @discardableResult
    func perform(
        request: any NetworkRequest,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable

    /// Performs `request` and streams its body to a file, moved to `destination` when the request
    /// succeeds; on failure or cancel no file is left. A retry resumes the body where the failed
    /// attempt stopped when the server allows it. `progress`, when given, is told how far the
    /// transfer has got, as for ``perform(request:progress:completion:)``. See `docs/transfers.md`.
    ///
    /// A custom implementation need not implement it: by default it calls
    /// ``perform(request:completion:)`` and writes the body, held in memory, to the destination.
    @discardableResult
    func download(
        request: any NetworkRequest,
        to destination: DownloadDestination,
        progress: (@Sendable (TransferProgress) -> Void)?,
        completion: @escaping @Sendable (Result<DownloadResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable

    /// Performs `request` and hands its body to `onChunk` as it arrives: chunk by chunk, in
    /// order, one at a time, through the completion executor; then `completion`, exactly once,
    /// after the last chunk, also through the executor, with the response (its `data` empty: the
    /// body went to `onChunk`) or the error. See `docs/transfers.md`.
    ///
    /// - At most about `bufferSize` bytes wait for `onChunk`: a consumer slower than the network
    ///   (a busy executor, a slow `onChunk`) pauses the transfer. (``URLSessionTransport`` on
    ///   Linux cannot pause one: there its ``URLSessionTransport/maximumResponseSize`` bounds it.)
    /// - Only a 2xx body is streamed; any other status is read whole and handled as for
    ///   ``perform(request:completion:)`` (an error status is its status's ``NetworkError`` case,
    ///   with the body in ``NetworkError/httpErrorResponse``).
    /// - Cancelling the returned handle cancels the request: `completion` gets
    ///   ``NetworkError/cancelled`` and, from the moment `cancel()` returns, `onChunk` nothing
    ///   more, even chunks that had arrived or were queued on the executor. (A cancel from
    ///   another thread cannot stop a chunk that `onChunk` is being handed at that moment.)
    /// - A failure after the first chunk has arrived is delivered as it is, never retried (the
    ///   consumer would get bytes twice); before it, the actions may retry as for any request.
    ///
    /// A custom implementation need not implement it: by default it calls
    /// ``perform(request:completion:)`` and hands the body over as one chunk.
    @discardableResult
    func stream(
        request: any NetworkRequest, bufferSize: Int,
        onChunk: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable

    /// The body of `request` as an `AsyncSequence` of chunks, sent when iteration starts, with at
    /// most about `bufferSize` bytes waiting for the consumer. See ``ResponseStream``.
    ///
    /// A custom implementation need not implement it: by default it calls
    /// ``perform(request:completion:)`` and hands the body over as one chunk.
    func stream(request: any NetworkRequest, bufferSize: Int) -> ResponseStream

    /// Performs `request` and decodes the JSON body into `responseType`.
    @discardableResult
    func performAndDecode<Response: Decodable & Sendable>(
        request: any NetworkRequest,
        responseType: Response.Type,
        decoder: JSONDecoder,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable

    /// Performs `urlRequest` and decodes the JSON body into `responseType`.
    @discardableResult
    func performAndDecode<Response: Decodable & Sendable>(
        urlRequest: URLRequest,
        responseType: Response.Type,
        decoder: JSONDecoder,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable
}

extension NetworkModule {
    /// A ``JSONResponseDecoder`` with Foundation's defaults.
    public var decoder: any ResponseDecoder { JSONResponseDecoder() }

    /// Performs `request` on top of ``perform(request:completion:)`` and turns its response into
    /// ``TypedRequest/Response`` with the request's decoder or ``decoder``.
    @discardableResult
    public func perform<Request: TypedRequest>(
        _ request: Request,
        completion: @escaping @Sendable (Result<Request.Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        let decoder = request.decoder ?? decoder
        return perform(request: request) { result in
            completion(result.flatMap { response in request.result(from: response, decoder: decoder) })
        }
    }

    /// Performs `request` and decodes the JSON body into `responseType`, on top of
    /// ``perform(request:completion:)``.
    @discardableResult
    public func performAndDecode<Response: Decodable & Sendable>(
        request: any NetworkRequest,
        responseType: Response.Type,
        decoder: JSONDecoder,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        perform(request: request) { result in
            completion(result.decoded(as: responseType, decoder: decoder))
        }
    }

    /// Performs `urlRequest` and decodes the JSON body into `responseType`, on top of
    /// ``perform(urlRequest:completion:)``.
    @discardableResult
    public func performAndDecode<Response: Decodable & Sendable>(
        urlRequest: URLRequest,
        responseType: Response.Type,
        decoder: JSONDecoder,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        perform(urlRequest: urlRequest) { result in
            completion(result.decoded(as: responseType, decoder: decoder))
        }
    }

    /// Performs `request` and decodes the JSON body into `responseType` with a default
    /// `JSONDecoder`.
    ///
    /// ```swift
    /// module.performAndDecode(request: GetUser(id: 1), responseType: User.self) { result in
    ///     switch result {
    ///     case .success(let user): show(user)
    ///     case .failure(let error): show(error)
    ///     }
    /// }
    /// ```
    @discardableResult
    public func performAndDecode<Response: Decodable & Sendable>(
        request: any NetworkRequest,
        responseType: Response.Type,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        performAndDecode(request: request, responseType: responseType, decoder: JSONDecoder(), completion: completion)
    }

    /// Performs `urlRequest` and decodes the JSON body into `responseType` with a default
    /// `JSONDecoder`.
    @discardableResult
    public func performAndDecode<Response: Decodable & Sendable>(
        urlRequest: URLRequest,
        responseType: Response.Type,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        performAndDecode(
            urlRequest: urlRequest, responseType: responseType, decoder: JSONDecoder(), completion: completion)
    }
}

extension Result where Success == NetworkResponse, Failure == NetworkError {
    /// The response's body decoded into `type`, or the first error on the way.
    func decoded<Body: Decodable>(as type: Body.Type, decoder: JSONDecoder) -> Result<Body, NetworkError> {
        flatMap { response in response.decodedResult(as: type, decoder: decoder) }
    }
}

extension NetworkResponse {
    /// ``decode(_:decoder:)-(_,JSONDecoder)`` as a `Result`: how every `performAndDecode` decodes,
    /// the module's and the protocol's alike.
    func decodedResult<Body: Decodable>(as type: Body.Type, decoder: JSONDecoder) -> Result<Body, NetworkError> {
        do throws(NetworkError) {
            return .success(try decode(type, decoder: decoder))
        } catch {
            return .failure(error)
        }
    }
}

extension TypedRequest {
    /// ``decodeResponse(_:decoder:)`` as a `Result`.
    func result(from response: NetworkResponse, decoder: any ResponseDecoder) -> Result<Response, NetworkError> {
        do throws(NetworkError) {
            return .success(try decodeResponse(response, decoder: decoder))
        } catch {
            return .failure(error)
        }
    }
}
