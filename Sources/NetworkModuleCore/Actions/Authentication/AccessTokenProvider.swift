import Foundation

/// Where an ``AuthenticationAction`` gets its token: the app's token store.
///
/// Both methods may answer later, from any thread, and must call `completion` exactly once.
/// The action calls them one at a time: never two at once, whatever the number of requests.
///
/// ```swift
/// final class SessionTokens: AccessTokenProvider {
///     func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
///         completion(keychain.accessToken.map(Result.success) ?? .failure(SignedOut()))
///     }
///     func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
///         authServer.refresh(using: keychain.refreshToken) { completion($0) }  // and store it
///     }
/// }
/// ```
public protocol AccessTokenProvider: Sendable {
    /// The token to use now, for example from the keychain. Asked when the action has no
    /// token: before the first request, and after a failed refresh or ``AuthenticationAction/resetToken()``.
    /// A failure fails the requests waiting for the token with that error.
    func currentToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void)

    /// A new token, because the server rejected the current one (`401` by default). The
    /// provider stores it if it should outlive the app. A failure (the refresh token expired,
    /// say) fails every request waiting for the new token with that error.
    func refreshToken(completion: @escaping @Sendable (Result<String, any Error>) -> Void)
}
