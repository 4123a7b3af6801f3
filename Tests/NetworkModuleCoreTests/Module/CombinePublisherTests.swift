#if canImport(Combine)
    import Combine
    import Foundation
    import NetworkModuleCore
    import NetworkModuleTesting
    import Testing

    /// The Combine publishers: lazy, exactly one event through the module's executor, and
    /// cancellation that cancels the request. Apple platforms only; on Linux the Apple check
    /// compiles this file.
    @Suite("Combine publishers")
    struct CombinePublisherTests {
        /// What a subscriber received, in order.
        enum Event: Equatable, Sendable {
            case value(Int)
            case finished
            case failure(NetworkError)
        }

        /// Records the events of one subscription, from any thread.
        final class EventRecorder: Sendable {
            private let storage = LockedState<[Event]>([])
            var events: [Event] { storage.value }

            func subscribe<Output>(
                _ publisher: AnyPublisher<Output, NetworkError>, value: @escaping (Output) -> Int
            ) -> AnyCancellable {
                publisher.sink(
                    receiveCompletion: { completion in
                        switch completion {
                        case .finished: self.storage.withLock { $0.append(.finished) }
                        case .failure(let error): self.storage.withLock { $0.append(.failure(error)) }
                        }
                    },
                    receiveValue: { output in
                        let number = value(output)
                        self.storage.withLock { $0.append(.value(number)) }
                    })
            }
        }

        /// An executor that holds completions until the test runs them.
        final class HeldExecutor: CompletionExecutor {
            private let work = LockedState<[@Sendable () -> Void]>([])
            var heldCount: Int { work.value.count }

            func execute(_ work: @escaping @Sendable () -> Void) {
                self.work.withLock { $0.append(work) }
            }

            func runAll() {
                let held = work.withLock { held in
                    defer { held = [] }
                    return held
                }
                for work in held { work() }
            }
        }

        func combineModule(_ session: FakeNetworkSession, executor: some CompletionExecutor = .immediate)
            -> DefaultNetworkModule
        {
            DefaultNetworkModule(
                requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session,
                completionExecutor: executor)
        }

        @Test("when nobody subscribes, should send nothing; when subscribed, should publish the response, then finish")
        func performRequest() {
            let session = FakeNetworkSession()
            session.stub(.any, with: .status(201))
            let recorder = EventRecorder()
            let publisher = combineModule(session).performPublisher(request: TestRequest(acceptableStatusCodes: [201]))
            #expect(session.recordedRequests.isEmpty)

            let subscription = recorder.subscribe(publisher) { $0.statusCode }

            #expect(recorder.events == [.value(201), .finished])
            #expect(session.recordedRequests.count == 1)
            subscription.cancel()
        }

        @Test("when a URLRequest's status is not accepted, should fail with the error and publish no value")
        func performURLRequestFailure() {
            let session = FakeNetworkSession()
            session.stub(.any, with: .status(404))
            let recorder = EventRecorder()

            let subscription = recorder.subscribe(
                combineModule(session).performPublisher(
                    urlRequest: URLRequest(url: apiBaseURL.appendingPathComponent("x")))
            ) { $0.statusCode }

            #expect(recorder.events.count == 1)
            #expect(recorder.events.first.map { if case .failure(.notFound) = $0 { true } else { false } } == true)
            subscription.cancel()
        }

        @Test("when decoding, both request forms should publish the decoded value, then finish")
        func performAndDecode() {
            let session = FakeNetworkSession()
            session.stub(.any, with: .json(#"{"id":7,"name":"Ada"}"#))
            let module = combineModule(session)
            let described = EventRecorder()
            let built = EventRecorder()

            let first = described.subscribe(
                module.performAndDecodePublisher(request: TestRequest(), responseType: User.self)
            ) { $0.id }
            let second = built.subscribe(
                module.performAndDecodePublisher(urlRequest: URLRequest(url: apiBaseURL), responseType: User.self)
            ) { $0.id }

            #expect(described.events == [.value(7), .finished])
            #expect(built.events == [.value(7), .finished])
            first.cancel()
            second.cancel()
        }

        @Test("when the body does not decode, should fail with .decodingFailed")
        func performAndDecodeFailure() {
            let session = FakeNetworkSession()
            session.stub(.any, with: .json(#"{"id":"seven"}"#))
            let recorder = EventRecorder()

            let subscription = recorder.subscribe(
                combineModule(session).performAndDecodePublisher(request: TestRequest(), responseType: User.self)
            ) { $0.id }

            #expect(recorder.events.count == 1)
            #expect(
                recorder.events.first.map { if case .failure(.decodingFailed) = $0 { true } else { false } } == true)
            subscription.cancel()
        }

        @Test("when the module's executor holds completions, should publish only when the executor runs them")
        func deliversThroughTheExecutor() {
            let session = FakeNetworkSession()
            session.stub(.any, with: .status(200))
            let executor = HeldExecutor()
            let recorder = EventRecorder()
            let subscription = recorder.subscribe(
                combineModule(session, executor: executor).performPublisher(request: TestRequest())
            ) {
                $0.statusCode
            }
            #expect(recorder.events.isEmpty)
            #expect(executor.heldCount == 1)

            executor.runAll()

            #expect(recorder.events == [.value(200), .finished])
            subscription.cancel()
        }

        @Test("when the subscription is cancelled in flight, should cancel the request, deliver once, publish nothing")
        func cancelInFlight() {
            let session = FakeNetworkSession(holdingResponses: true)
            session.stub(.any, with: .status(200))
            let executor = RecordingExecutor()
            let recorder = EventRecorder()
            let subscription = recorder.subscribe(
                combineModule(session, executor: executor).performPublisher(request: TestRequest())
            ) {
                $0.statusCode
            }
            #expect(session.heldCount == 1)

            subscription.cancel()
            session.releaseAll()

            #expect(session.cancelledCount == 1)
            #expect(executor.deliveryCount == 1)
            #expect(recorder.events.isEmpty)
        }

        /// A subscriber that keeps its subscription and asks for nothing by itself.
        final class PassiveSubscriber: Subscriber {
            typealias Input = NetworkResponse
            typealias Failure = NetworkError
            var subscription: (any Subscription)?

            func receive(subscription: any Subscription) { self.subscription = subscription }
            func receive(_ input: NetworkResponse) -> Subscribers.Demand { .none }
            func receive(completion: Subscribers.Completion<NetworkError>) {}
        }

        @Test("when the subscription is cancelled before any demand, should send nothing, even if asked afterwards")
        func cancelBeforeDemand() {
            let session = FakeNetworkSession()
            session.stub(.any, with: .status(200))
            let subscriber = PassiveSubscriber()
            combineModule(session).performPublisher(request: TestRequest()).subscribe(subscriber)
            #expect(session.recordedRequests.isEmpty)

            subscriber.subscription?.cancel()
            subscriber.subscription?.request(.max(1))

            #expect(session.recordedRequests.isEmpty)
        }
    }
#endif
