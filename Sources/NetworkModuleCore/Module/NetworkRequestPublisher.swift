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
    /// `@unchecked Sendable` is safe: the phase (subscriber, start closure, request handle) is
    /// only touched inside `phase.withLock`; the subscriber, the start closure and the handle are
    /// called after leaving the lock.
    private final class NetworkRequestSubscription<S: Subscriber>: Subscription, @unchecked Sendable
    where S.Failure == NetworkError, S.Input: Sendable {
        private enum Phase {
            /// Subscribed; no demand yet.
            case waiting(S, NetworkRequestPublisher<S.Input>.Start)
            /// The start closure is running: the handle is not known yet.
            case starting(S)
            /// Cancelled while starting: the handle is cancelled as soon as it is known.
            case cancelledWhileStarting
            /// The request is in flight.
            case running(S, any NetworkCancellable)
            /// Delivered or cancelled: nothing more happens.
            case finished
        }

        private let phase: LockedState<Phase>

        init(subscriber: S, start: @escaping NetworkRequestPublisher<S.Input>.Start) {
            self.phase = LockedState(.waiting(subscriber, start))
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > .none else { return }
            let start = phase.withLock { phase -> NetworkRequestPublisher<S.Input>.Start? in
                guard case .waiting(let subscriber, let start) = phase else { return nil }
                phase = .starting(subscriber)
                return start
            }
            guard let start else { return }
            // The completion may run before `start` returns (an immediate executor and a
            // session that answers at once); `deliver` handles every phase.
            let handle = start { [self] result in deliver(result) }
            let cancelNow = phase.withLock { phase -> Bool in
                switch phase {
                case .starting(let subscriber):
                    phase = .running(subscriber, handle)
                    return false
                case .cancelledWhileStarting:
                    phase = .finished
                    return true
                case .waiting, .running, .finished:
                    return false
                }
            }
            if cancelNow { handle.cancel() }
        }

        func cancel() {
            let handle = phase.withLock { phase -> (any NetworkCancellable)? in
                switch phase {
                case .waiting:
                    phase = .finished
                    return nil
                case .starting:
                    phase = .cancelledWhileStarting
                    return nil
                case .running(_, let handle):
                    phase = .finished
                    return handle
                case .cancelledWhileStarting, .finished:
                    return nil
                }
            }
            // The module then delivers .cancelled to `deliver`, which drops it: a cancelled
            // subscription receives nothing.
            handle?.cancel()
        }

        /// The module's one completion, on its completion executor.
        private func deliver(_ result: Result<S.Input, NetworkError>) {
            let subscriber = phase.withLock { phase -> S? in
                switch phase {
                case .starting(let subscriber), .running(let subscriber, _):
                    phase = .finished
                    return subscriber
                case .waiting, .cancelledWhileStarting, .finished:
                    return nil
                }
            }
            guard let subscriber else { return }
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
