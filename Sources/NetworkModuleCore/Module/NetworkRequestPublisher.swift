#if canImport(Combine)
    import Combine
    import Foundation

    /// A Combine publisher over one callback-style request: each subscription performs the
    /// request once, at the first demand, and publishes its one result.
    struct NetworkRequestPublisher<Output: Sendable>: Publisher {
        typealias Failure = NetworkError
        /// Starts the request with a completion and returns its handle.
        typealias Start = (@escaping @Sendable (Result<Output, NetworkError>) -> Void) -> any NetworkCancellable

        let start: Start

        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == NetworkError {
            subscriber.receive(subscription: NetworkRequestSubscription(subscriber: subscriber, start: start))
        }
    }

    /// One subscription: a request started at the first demand, whose one result reaches the
    /// subscriber unless the subscription was cancelled first.
    ///
    /// `@unchecked Sendable` is safe: the request's life, which holds the subscriber until it
    /// finishes, is only touched inside `life.withLock`, and hands the subscriber out once;
    /// `start` is immutable, and the life lets it run once. The subscriber, `start` and the
    /// request's handle are called after leaving the lock.
    private final class NetworkRequestSubscription<S: Subscriber>: Subscription, @unchecked Sendable
    where S.Failure == NetworkError, S.Input: Sendable {
        private let start: NetworkRequestPublisher<S.Input>.Start
        private let life: LockedState<TaskLifecycle<any NetworkCancellable, S>>

        init(subscriber: S, start: @escaping NetworkRequestPublisher<S.Input>.Start) {
            self.start = start
            self.life = LockedState(TaskLifecycle(handler: subscriber))
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > .none else { return }
            // The completion may run before `start` returns (an immediate executor and a
            // session that answers at once); `deliver` handles it.
            life.start { start { [self] result in deliver(result) } }
        }

        func cancel() {
            // Drops the subscriber; the module then delivers .cancelled to `deliver`, which
            // drops it: a cancelled subscription receives nothing.
            life.cancel()
        }

        /// The module's one completion, on its completion executor.
        private func deliver(_ result: Result<S.Input, NetworkError>) {
            guard let (subscriber, _) = life.withLock({ $0.finish() }) else { return }
            switch result {
            case .success(let value):
                _ = subscriber.receive(value)
                subscriber.receive(completion: .finished)
            case .failure(let error):
                subscriber.receive(completion: .failure(error))
            }
        }
    }
#endif
