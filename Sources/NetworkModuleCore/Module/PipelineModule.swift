import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A module whose calls run on the framework's pipeline (``RequestOperation``):
/// ``DefaultNetworkModule``, and the testing kit's fake, which runs each call on a module of its
/// own.
///
/// Every variant of ``NetworkModule`` (typed, decoding, progress, download, stream, and what is
/// built on them) is written once, in the protocol's extensions. On a pipeline module it runs on
/// the pipeline: decoding happens before the actions' `didFinish`, progress is reported as the
/// bytes move, a download streams to its file, a stream hands chunks over as they arrive. A
/// module of the user's own (a hand-written mock) gets each variant built on its two `perform`
/// methods instead. So the real module and the fake cannot disagree: they run the same code.
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
        run(.description(request), completion: completion)
    }

    /// Prepares and sends `urlRequest` on the module's pipeline, then delivers the response or
    /// error.
    @discardableResult
    public func perform(
        urlRequest: URLRequest,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        run(.urlRequest(urlRequest), completion: completion)
    }

    /// Runs `source` on the pipeline and delivers its outcome as it is.
    private func run(
        _ source: RequestSource,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        RequestOperation.start(source: source, module: beginCall(source)) { result in
            (result, { cancelled in completion(cancelled ? .failure(.cancelled) : result) })
        }
    }
}

extension NetworkModule {
    /// The module as a pipeline module; `nil` for a module of the user's own.
    var pipeline: (any PipelineModule)? {
        self as? any PipelineModule
    }

    /// Sends `source` through the protocol's two requirements: how a module of the user's own
    /// runs every variant.
    func perform(
        _ source: RequestSource,
        completion: @escaping @Sendable (Result<NetworkResponse, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        switch source {
        case .description(let request): perform(request: request, completion: completion)
        case .urlRequest(let urlRequest): perform(urlRequest: urlRequest, completion: completion)
        }
    }

    /// Runs `source` and turns its response into the caller's output with `transform`. On the
    /// pipeline that happens before the actions' `didFinish`, off the completion executor: the
    /// actions see a response that does not decode as the failure the caller gets, and a large
    /// body is not decoded on the main queue.
    func perform<Output: Sendable>(
        _ source: RequestSource,
        transform: @escaping @Sendable (NetworkResponse) -> Result<Output, NetworkError>,
        completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        guard let pipeline else {
            return perform(source) { result in completion(result.flatMap(transform)) }
        }
        return RequestOperation.start(source: source, module: pipeline.beginCall(source)) { result in
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
