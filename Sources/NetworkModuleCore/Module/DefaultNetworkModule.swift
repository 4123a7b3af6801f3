import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The network module: builds requests, runs them through actions and a session, and
/// delivers each result exactly once through a completion executor.
///
/// ```swift
/// let module = DefaultNetworkModule(
///     requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com/v2")!),
///     session: URLSession.shared,
///     actions: [],
///     completionExecutor: .main
/// )
/// let task = module.performAndDecode(request: GetUser(id: 1), responseType: User.self) { result in
///     // Result<User, NetworkError>, on the main queue, exactly once
/// }
/// task.cancel()  // the completion gets .failure(.cancelled), exactly once
/// ```
///
/// The pipeline of one request: build (``RequestBuilder``), prepare (each action, in order),
/// send (``NetworkSession``), interpret the answer, observe (each action, in order), retry if
/// an action asks to, deliver (``CompletionExecutor``). See ``NetworkModuleAction`` for the
/// hooks. A request that cannot be built completes with ``NetworkError/invalidRequest(_:)``
/// without reaching the actions or the network.
///
/// The module may be used from any thread. A request in flight holds what it needs and
/// completes even if the module itself is released.
public final class DefaultNetworkModule: NetworkModule {
    /// Builds the `URLRequest` of each ``NetworkRequest``.
    public let requestBuilder: any RequestBuilder
    /// The transport.
    public let session: any NetworkSession
    /// The actions run around every request, in order.
    public let actions: [any NetworkModuleAction]
    /// Where completions run.
    public let completionExecutor: any CompletionExecutor

    private let configuration: ModuleConfiguration

    /// Creates a module.
    ///
    /// - Parameters:
    ///   - requestBuilder: turns request descriptions into `URLRequest`s.
    ///   - session: the transport; ``URLSessionTransport/shared`` by default (a `URLSession`
    ///     of the framework's own, which keeps credentials on their origin across redirects
    ///     and bounds response sizes), any `URLSession`, or a fake in tests.
    ///   - actions: run around every request, in this order.
    ///   - completionExecutor: where completions run; the main queue by default,
    ///     `.immediate` in tests.
    ///   - delayScheduler: waits before retries; a dispatch timer by default.
    public init(
        requestBuilder: some RequestBuilder,
        session: some NetworkSession = URLSessionTransport.shared,
        actions: [any NetworkModuleAction] = [],
        completionExecutor: some CompletionExecutor = .main,
        delayScheduler: some DelayScheduler = .dispatch
    ) {
        self.requestBuilder = requestBuilder
        self.session = session
        self.actions = actions
        self.completionExecutor = completionExecutor
        self.configuration = ModuleConfiguration(
            requestBuilder: requestBuilder, session: session, actions: actions,
            completionExecutor: completionExecutor, delayScheduler: delayScheduler)
    }

    /// Builds, prepares and sends `request`, then delivers the response or error.
    @discardableResult
    public func perform(
        request: any NetworkRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        run(request: request, transform: { $0 }, completion: completion)
    }

    /// Prepares and sends `urlRequest`, then delivers the response or error.
    @discardableResult
    public func perform(
        urlRequest: URLRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        run(urlRequest: urlRequest, transform: { $0 }, completion: completion)
    }

    /// Performs `request` and decodes the JSON body into `responseType`. Decoding happens
    /// before the completion executor is reached, so a large body is not decoded on the
    /// main queue.
    @discardableResult
    public func performAndDecode<Response: Decodable & Sendable>(
        request: any NetworkRequest,
        responseType: Response.Type,
        decoder: JSONDecoder,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        run(
            request: request,
            transform: { response throws(NetworkError) in try response.decode(responseType, decoder: decoder) },
            completion: completion)
    }

    /// Performs `urlRequest` and decodes the JSON body into `responseType`, off the
    /// completion executor.
    @discardableResult
    public func performAndDecode<Response: Decodable & Sendable>(
        urlRequest: URLRequest,
        responseType: Response.Type,
        decoder: JSONDecoder,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        run(
            urlRequest: urlRequest,
            transform: { response throws(NetworkError) in try response.decode(responseType, decoder: decoder) },
            completion: completion)
    }

    private func run<Output: Sendable>(
        request: any NetworkRequest,
        transform: @escaping RequestOperation<Output>.Transform,
        completion: @escaping RequestOperation<Output>.Completion
    ) -> any NetworkCancellable {
        let urlRequest: URLRequest
        do {
            urlRequest = try requestBuilder.build(request: request)
        } catch {
            completionExecutor.execute { completion(.failure(error)) }
            return CompletedRequest()
        }
        let operation = RequestOperation(
            source: .description(request), configuration: configuration, transform: transform, completion: completion)
        operation.start(with: consume urlRequest)
        return operation
    }

    private func run<Output: Sendable>(
        urlRequest: URLRequest,
        transform: @escaping RequestOperation<Output>.Transform,
        completion: @escaping RequestOperation<Output>.Completion
    ) -> any NetworkCancellable {
        let operation = RequestOperation(
            source: .urlRequest(urlRequest), configuration: configuration, transform: transform,
            completion: completion)
        operation.start(with: urlRequest)
        return operation
    }
}

/// The handle of a request that completed before `perform` returned (it could not be built):
/// there is nothing left to cancel.
private struct CompletedRequest: NetworkCancellable {
    func cancel() {}
}
