import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Performs requests and delivers their results to completion closures.
///
/// ``DefaultNetworkModule`` is the implementation; code that performs requests should depend
/// on this protocol, so tests can hand it a fake (the testing kit's `FakeNetworkModule`).
///
/// Every call returns a ``NetworkCancellable`` at once and delivers exactly one result through
/// the module's completion executor: a response, an error, or ``NetworkError/cancelled``.
///
/// A module implements the two `perform` methods; every other way to call it (typed requests,
/// decoding, progress, downloads, streams, async/await, Combine, pages) is written once, on top
/// of them. On ``DefaultNetworkModule`` those run on its pipeline: decoding happens before the
/// actions' `didFinish`, progress is reported as the bytes move, downloads and streams never
/// hold the body whole. A hand-written module (a mock of your own) gets them built on its two
/// `perform` methods: decoded after the response, progress reported once at the end, the body
/// held in memory and then written or handed over as one chunk.
public protocol NetworkModule: Sendable {
    /// Decodes the bodies of ``TypedRequest``s that name no decoder of their own, and is the
    /// decoder to read server error bodies with. Default: a ``JSONResponseDecoder``.
    var decoder: any ResponseDecoder { get }

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
}

extension NetworkModule {
    /// A ``JSONResponseDecoder`` with Foundation's defaults.
    public var decoder: any ResponseDecoder { JSONResponseDecoder() }

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
    /// the request's decoder or ``decoder``). On ``DefaultNetworkModule`` that happens before the
    /// completion executor is reached, and a body that does not decode is the request's failure,
    /// which the actions see in `didFinish` too.
    @discardableResult
    public func perform<Request: TypedRequest>(
        _ request: Request,
        completion: @escaping @Sendable (Result<Request.Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        let decoder = request.decoder ?? decoder
        return perform(
            .description(request), transform: { response in request.result(from: response, decoder: decoder) },
            completion: completion)
    }

    /// Performs `request` and decodes the JSON body into `responseType` with `decoder` (a
    /// default `JSONDecoder` unless given).
    ///
    /// ```swift
    /// module.performAndDecode(request: GetUser(id: 1), responseType: User.self) { result in
    ///     switch result {
    ///     case .success(let user): show(user)
    ///     case .failure(let error): show(error)
    ///     }
    /// }
    /// ```
    ///
    /// On ``DefaultNetworkModule`` decoding happens before the completion executor is reached, so
    /// a large body is not decoded on the main queue, and a body that does not decode is the
    /// failure the actions see in `didFinish`.
    @discardableResult
    public func performAndDecode<Response: Decodable & Sendable>(
        request: any NetworkRequest,
        responseType: Response.Type,
        decoder: JSONDecoder = JSONDecoder(),
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        perform(
            .description(request), transform: NetworkResponse.decoding(responseType, decoder), completion: completion)
    }

    /// Performs `urlRequest` and decodes the JSON body into `responseType`, as
    /// ``performAndDecode(request:responseType:decoder:completion:)`` does.
    @discardableResult
    public func performAndDecode<Response: Decodable & Sendable>(
        urlRequest: URLRequest,
        responseType: Response.Type,
        decoder: JSONDecoder = JSONDecoder(),
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any NetworkCancellable {
        perform(
            .urlRequest(urlRequest), transform: NetworkResponse.decoding(responseType, decoder), completion: completion)
    }
}

extension NetworkResponse {
    /// ``decode(_:decoder:)-(_,JSONDecoder)`` as a transform to a `Result`: how every
    /// `performAndDecode` decodes, the module's and the protocol's alike.
    static func decoding<Body: Decodable & Sendable>(
        _: Body.Type, _ decoder: JSONDecoder
    ) -> @Sendable (NetworkResponse) -> Result<Body, NetworkError> {
        { response in
            do throws(NetworkError) {
                return .success(try response.decode(Body.self, decoder: decoder))
            } catch {
                return .failure(error)
            }
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
