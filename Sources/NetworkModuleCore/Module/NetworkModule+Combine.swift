#if canImport(Combine)
    import Combine
    import Foundation

    extension NetworkModule {
        /// A publisher that performs `request` when a subscriber asks for a value, and
        /// publishes its response, then finishes; or fails with the ``NetworkError``.
        ///
        /// The request starts at the first demand, once per subscription. Exactly one event
        /// reaches the subscriber (a value followed by `.finished`, or a failure), through the
        /// module's completion executor, as every completion does. Cancelling the subscription
        /// cancels the request at whichever step it is, and the subscriber gets nothing more.
        /// Apple platforms only (Combine).
        ///
        /// ```swift
        /// module.performPublisher(request: GetUser(id: 1))
        ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.statusCode) })
        ///     .store(in: &cancellables)
        /// ```
        public func performPublisher(request: any NetworkRequest) -> AnyPublisher<NetworkResponse, NetworkError> {
            NetworkRequestPublisher { completion in perform(request: request, completion: completion) }
                .eraseToAnyPublisher()
        }

        /// A publisher that performs `urlRequest` when a subscriber asks for a value; see
        /// ``performPublisher(request:)``.
        public func performPublisher(urlRequest: URLRequest) -> AnyPublisher<NetworkResponse, NetworkError> {
            NetworkRequestPublisher { completion in perform(urlRequest: urlRequest, completion: completion) }
                .eraseToAnyPublisher()
        }

        /// A publisher that performs `request`, decodes its JSON body into `responseType`
        /// (off the completion executor) and publishes it; see ``performPublisher(request:)``
        /// for when it starts, how it delivers and how it cancels.
        ///
        /// ```swift
        /// module.performAndDecodePublisher(request: GetUser(id: 1), responseType: User.self)
        ///     .sink(receiveCompletion: { _ in }, receiveValue: { user in print(user.name) })
        ///     .store(in: &cancellables)
        /// ```
        public func performAndDecodePublisher<Response: Decodable & Sendable>(
            request: any NetworkRequest, responseType: Response.Type = Response.self,
            decoder: JSONDecoder = JSONDecoder()
        ) -> AnyPublisher<Response, NetworkError> {
            NetworkRequestPublisher { completion in
                performAndDecode(request: request, responseType: responseType, decoder: decoder, completion: completion)
            }
            .eraseToAnyPublisher()
        }

        /// A publisher that performs `urlRequest`, decodes its JSON body into `responseType`
        /// and publishes it; see ``performPublisher(request:)``.
        public func performAndDecodePublisher<Response: Decodable & Sendable>(
            urlRequest: URLRequest, responseType: Response.Type = Response.self,
            decoder: JSONDecoder = JSONDecoder()
        ) -> AnyPublisher<Response, NetworkError> {
            NetworkRequestPublisher { completion in
                performAndDecode(
                    urlRequest: urlRequest, responseType: responseType, decoder: decoder, completion: completion)
            }
            .eraseToAnyPublisher()
        }
    }
#endif
