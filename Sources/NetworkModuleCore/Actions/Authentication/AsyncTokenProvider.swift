/// The ``AccessTokenProvider`` of `.authentication(current:refresh:scheme:refreshStatusCodes:)`:
/// each call runs its closure in a new `Task` (the action makes one call at a time), and a thrown
/// error fails the requests waiting for the token.
struct AsyncTokenProvider: AccessTokenProvider {
    private let current: @Sendable () async throws -> String
    private let refresh: @Sendable () async throws -> String

    /// Creates a provider; `refresh` is `current` again when `nil`.
    init(
        current: @escaping @Sendable () async throws -> String,
        refresh: (@Sendable () async throws -> String)? = nil
    ) {
        self.current = current
        self.refresh = refresh ?? current
    }

    /// Runs `current` and hands its answer to `completion`.
    func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        Self.run(current, completion: completion)
    }

    /// Runs `refresh` and hands its answer to `completion`.
    func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        Self.run(refresh, completion: completion)
    }

    private static func run(
        _ body: @escaping @Sendable () async throws -> String,
        completion: @escaping @Sendable (Result<String, any Error>) -> Void
    ) {
        Task {
            do {
                completion(.success(try await body()))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
