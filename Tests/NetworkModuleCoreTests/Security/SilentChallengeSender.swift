import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The sender of a challenge a test raises: it answers nothing, since the delegates under test
/// answer through the challenge's completion handler, never through the sender.
final class SilentChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
