import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A module whose calls run on the framework's pipeline (``RequestOperation``) as they are:
/// ``DefaultNetworkModule``, and the testing kit's fake, which runs each call on a module of its
/// own.
///
/// Every variant of ``NetworkModule`` (typed, decoding, progress, download, stream, and what is
/// built on them) is written once, in the protocol's extensions, on a ``ModuleCall``: decoding
/// happens before the actions' `didFinish`, progress is reported as the bytes move, a download
/// streams to its file, a stream hands chunks over as they arrive. A module of the user's own (a
/// hand-written mock) runs on the same pipeline, with its two `perform` methods as the session
/// (``ModuleAdapter``). So the real module, the fake and a mock cannot disagree.
package protocol PipelineModule: NetworkModule {
    /// Begins a call of `source`: the module whose actions, session and executor it runs with.
    /// Asked once per call, on the caller's thread, when the call starts.
    func beginCall(_ source: RequestSource) -> DefaultNetworkModule
}

extension PipelineModule {
    /// Builds, prepares and sends `request` on the module's pipeline, then delivers the response
    /// or error.
    @discardableResult
    public func perform(
        request: any NetworkRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        call(.description(request)).start(delivering: completion)
    }

    /// Prepares and sends `urlRequest` on the module's pipeline, then delivers the response or
    /// error.
    @discardableResult
    public func perform(
        urlRequest: URLRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        call(.urlRequest(urlRequest)).start(delivering: completion)
    }
}

/// One call of a module, on the pipeline: the module it runs with (its executor, its session),
/// and how it starts.
struct ModuleCall {
    /// The module whose pipeline runs the call.
    let module: DefaultNetworkModule
    private let source: RequestSource
    /// For a module of the user's own: its two `perform` methods as the session; `nil` on a
    /// ``PipelineModule``.
    private let adapter: ModuleAdapter?

    /// Starts the call on ``module``'s pipeline, through `transfer` when given; returns the
    /// caller's handle.
    func start(
        transfer: TransferSession? = nil, completion: @escaping RequestOperation.Completion
    ) -> any NetworkCancellable {
        guard let adapter else {
            return RequestOperation.start(source: source, module: module, transfer: transfer, completion: completion)
        }
        _ = RequestOperation.start(source: source, module: module, transfer: transfer) { result in
            completion(adapter.restoring(result))
        }
        // The user's module decides how its call ends, cancelled or not, and on which queue.
        return adapter
    }

    /// Starts the call and delivers its outcome as it is.
    func start(
        delivering completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        start { result in (result, { cancelled in completion(cancelled ? .failure(.cancelled) : result) }) }
    }

    /// A call on a ``PipelineModule``.
    fileprivate init(_ source: RequestSource, on module: DefaultNetworkModule) {
        (self.module, self.source, self.adapter) = (module, source, nil)
    }

    /// A call on a module of the user's own: a module with no actions, delivering at once on the
    /// thread of the user's completion (no second executor), whose one attempt is the user's
    /// call. Its request is never sent; every status its answer has stands.
    fileprivate init(_ source: RequestSource, onModuleOfYourOwn userModule: any NetworkModule) {
        let adapter = ModuleAdapter(module: userModule, source: source)
        self.adapter = adapter
        self.source = .urlRequest(ModuleAdapter.unsentRequest)
        self.module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: ModuleAdapter.unsentURL), session: adapter,
            completionExecutor: .immediate, acceptableStatusCodes: AcceptableStatusCodes(closedRanges: [.min ... .max]))
    }
}

extension NetworkModule {
    /// Begins a call of `source` on the pipeline: the one place that tells a ``PipelineModule``
    /// from a module of the user's own.
    func call(_ source: RequestSource) -> ModuleCall {
        if let pipeline = self as? any PipelineModule {
            return ModuleCall(source, on: pipeline.beginCall(source))
        }
        return ModuleCall(source, onModuleOfYourOwn: self)
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
            let seen: Result<NetworkResponse, NetworkError> =
                switch output {
                case .success: result
                case .failure(let error): .failure(error)
                }
            return (seen, { cancelled in completion(cancelled ? .failure(.cancelled) : output) })
        }
    }
}

/// A module of the user's own as the session of its calls: the call's one attempt hands the
/// call's request, unbuilt, to the module's own `perform`, and its answer back to the pipeline,
/// which applies the transfer (a file, chunks, progress) to the body that arrived whole
/// (``BufferedSession``). The handle of the call is the user's own.
final class ModuleAdapter: NetworkSession, NetworkCancellable {
    /// The request the attempt is made with, never sent: the user's module gets the call's own.
    static let unsentURL = URL(fileURLWithPath: "/")
    static let unsentRequest = URLRequest(url: unsentURL)

    private struct State {
        /// The user's handle, once its `perform` has returned (before the call's start does).
        var handle: (any NetworkCancellable)?
        /// The user's module's response, whose request and duration the caller gets.
        var response: NetworkResponse?
    }

    private let module: any NetworkModule
    private let source: RequestSource
    private let state = LockedState(State())

    init(module: any NetworkModule, source: RequestSource) {
        self.module = module
        self.source = source
    }

    func dataTask(
        with _: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        Attempt(adapter: self, completionHandler: completionHandler)
    }

    /// Cancels the user's call: its module delivers what it delivers for a cancel.
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

    private struct Attempt: NetworkSessionTask {
        let adapter: ModuleAdapter
        let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void

        func resume() {
            let state = adapter.state
            let handle = adapter.module.perform(adapter.source) { [completionHandler] result in
                switch result {
                case .success(let response):
                    state.withLock { $0.response = response }
                    completionHandler(response.data, response.httpResponse, nil)
                case .failure(let error):
                    completionHandler(nil, nil, error)
                }
            }
            state.withLock { $0.handle = handle }
        }

        func cancel() {
            adapter.cancel()
        }
    }
}

extension NetworkModule {
    /// Sends `source` through the protocol's two requirements.
    fileprivate func perform(
        _ source: RequestSource,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        switch source {
        case .description(let request): perform(request: request, completion: completion)
        case .urlRequest(let urlRequest): perform(urlRequest: urlRequest, completion: completion)
        }
    }
}
