import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A module whose calls run on the framework's pipeline (``RequestOperation``) as they are:
/// ``DefaultNetworkModule``, and the testing kit's fake, which runs each call on a module of its
/// own. Every variant of ``NetworkModule`` is written once, on a ``ModuleCall``; a module of the
/// user's own (a hand-written mock) runs on the pipeline too, its two `perform` methods the
/// session (``ModuleAdapter``). So the real module, the fake and a mock run the same code.
package protocol PipelineModule: NetworkModule {
    /// Begins a call of `source`: the module whose actions, session and executor it runs with.
    /// Asked once per call, on the caller's thread, when the call starts.
    func beginCall(_ source: RequestSource) -> DefaultNetworkModule
}

extension PipelineModule {
    /// Builds, prepares and sends `request` on the pipeline, then delivers the response or error.
    @discardableResult
    public func perform(
        request: any NetworkRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        call(.description(request)).start(delivering: completion)
    }

    /// Prepares and sends `urlRequest` on the pipeline, then delivers the response or error.
    @discardableResult
    public func perform(
        urlRequest: URLRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        call(.urlRequest(urlRequest)).start(delivering: completion)
    }
}

/// One call of a module: the module whose pipeline runs it (its executor, its session).
struct ModuleCall {
    let module: DefaultNetworkModule
    fileprivate let source: RequestSource
    /// For a module of the user's own, the session that its two `perform` methods make.
    fileprivate let adapter: ModuleAdapter?

    /// Starts the call, through `transfer` when given, and returns the caller's handle: on a
    /// module of the user's own, its own, so that it decides how a cancelled call ends, and where.
    ///
    /// - Parameter completionIsShort: whether `completion` only hands the result on, transforming
    ///   nothing (``TransferOptions/handlerIsShort``).
    func start(
        transfer: TransferOperationSession? = nil, completionIsShort: Bool = false,
        completion: @escaping RequestOperation.Completion
    ) -> any NetworkCancellable {
        guard let adapter else {
            return RequestOperation.start(
                source: source, module: module, transfer: transfer, completionIsShort: completionIsShort,
                completion: completion)
        }
        _ = RequestOperation.start(source: source, module: module, transfer: transfer) { result in
            completion(adapter.restoring(result))
        }
        return adapter
    }

    /// Starts the call and delivers its outcome as it is.
    func start(
        delivering completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        start(completionIsShort: true) { result in
            (result, { cancelled in completion(cancelled ? .failure(.cancelled) : result) })
        }
    }
}

extension NetworkModule {
    /// Begins a call of `source`: the one place that tells a ``PipelineModule`` from a module of
    /// the user's own, whose call runs on a module with no actions, delivering on the thread of
    /// the user's completion, every status of its answer standing, its one attempt (whose
    /// request is never sent) the user's call.
    func call(_ source: RequestSource) -> ModuleCall {
        if let pipeline = self as? any PipelineModule {
            return ModuleCall(module: pipeline.beginCall(source), source: source, adapter: nil)
        }
        let adapter = ModuleAdapter(module: self, source: source)
        let unsent = URL(fileURLWithPath: "/")
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: unsent), session: adapter, completionExecutor: .immediate,
            acceptableStatusCodes: AcceptableStatusCodes(closedRanges: [.min ... .max]))
        return ModuleCall(module: module, source: .urlRequest(URLRequest(url: unsent)), adapter: adapter)
    }

    /// Runs `source` and turns its response into the caller's output with `transform`, before the
    /// actions' `didFinish`, off the completion executor: the actions see a response that does
    /// not decode as the failure the caller gets, and a large body is not decoded on the main
    /// queue.
    func perform<Output: Sendable>(
        _ source: RequestSource,
        transform: @escaping @Sendable (NetworkResponse) -> Result<Output, NetworkError>,
        completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        call(source).start { result in
            let output = result.flatMap(transform)
            let seen = output.flatMap { _ in result }  // the caller's failure, as the actions see it
            return (seen, { cancelled in completion(cancelled ? .failure(.cancelled) : output) })
        }
    }
}

/// A module of the user's own as the session of one call, and as the task of its one attempt:
/// resumed, it hands the call's request as it was made to the module's own `perform`, and the
/// answer to the transfer (a file, a chunk, the final progress: ``TransferOptions/appliedToWholeBody(of:completionHandler:)``), then to
/// the pipeline. Cancelled (by the call's caller), it cancels the user's call.
final class ModuleAdapter: TransferringSession, NetworkSessionTask, NetworkCancellable {
    private struct State {
        var completionHandler: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?
        /// The user's handle, once its `perform` has returned (before the call's start does).
        var handle: (any NetworkCancellable)?
        /// The user's module's response: the caller gets its request and duration.
        var response: NetworkResponse?
    }

    private let module: any NetworkModule
    private let source: RequestSource
    private let state = LockedState(State())

    init(module: any NetworkModule, source: RequestSource) {
        (self.module, self.source) = (module, source)
    }

    func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        let completionHandler = transfer.appliedToWholeBody(of: request, completionHandler: completionHandler)
        state.withLock { $0.completionHandler = completionHandler }
        return self
    }

    func resume() {
        guard let completionHandler = state.withLock({ $0.completionHandler.take() }) else { return }
        let answer: @Sendable (Result<NetworkResponse, NetworkError>) -> Void = { [state] result in
            switch result {
            case .success(let response):
                state.withLock { $0.response = response }
                completionHandler(response.data, response.httpResponse, nil)
            case .failure(let error):
                completionHandler(nil, nil, error)
            }
        }
        let handle =
            switch source {
            case .description(let request): module.perform(request: request, completion: answer)
            case .urlRequest(let urlRequest): module.perform(urlRequest: urlRequest, completion: answer)
            }
        state.withLock { $0.handle = handle }
    }

    func cancel() {
        state.withLock { $0.handle }?.cancel()
    }

    /// `result` with the request and duration of the user's module's response.
    func restoring(_ result: Result<NetworkResponse, NetworkError>) -> Result<NetworkResponse, NetworkError> {
        guard case .success(let response) = result, let answer = state.withLock({ $0.response }) else { return result }
        return .success(
            NetworkResponse(
                data: response.data, httpResponse: answer.httpResponse, request: answer.request,
                duration: answer.duration))
    }
}
