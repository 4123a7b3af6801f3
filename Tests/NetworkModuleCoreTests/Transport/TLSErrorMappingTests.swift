import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// libcurl's TLS failures, as swift-corelibs-foundation reports them (`URLError.unknown` with
/// libcurl's message), mapped to the codes Apple's `URLSession` reports, and on to
/// ``NetworkError/secureConnectionFailed(_:)``.
@Suite("TLS error mapping")
struct TLSErrorMappingTests {
    /// What Linux's URLSession delivered against nginx with a self-signed certificate (seen
    /// on Swift 6.3.1): code -1 and libcurl's message.
    static func linuxError(_ message: String) -> URLError {
        URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: message])
    }

    @Test(
        "when libcurl reports a TLS failure, should map it to the code Apple's URLSession reports",
        arguments: [
            ("SSL certificate problem: self-signed certificate", URLError.Code.serverCertificateUntrusted),
            ("SSL certificate problem: self signed certificate in certificate chain", .serverCertificateUntrusted),
            ("SSL certificate problem: unable to get local issuer certificate", .serverCertificateUntrusted),
            ("SSL certificate problem: certificate has expired", .serverCertificateHasBadDate),
            ("SSL certificate problem: certificate is not yet valid", .serverCertificateNotYetValid),
            (
                "SSL: no alternative certificate subject name matches target host name 'localhost'",
                .serverCertificateUntrusted
            ),
            ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:443", .secureConnectionFailed),
            ("error:0A00010B:SSL routines::wrong version number", .secureConnectionFailed),
        ])
    func mapsTLSMessages(message: String, expected: URLError.Code) {
        let error = Self.linuxError(message)

        let normalized = LinuxURLSessionQuirks.normalized(error, sentTo: nil)

        let urlError = normalized as? URLError
        if LinuxURLSessionQuirks.apply {
            #expect(urlError?.code == expected)
            #expect((normalized as NSError).localizedDescription == message, "libcurl's message is kept")
            #expect(NetworkError(normalized) == .secureConnectionFailed(expected))
        } else {
            #expect(urlError?.code == .unknown, "Apple's URLSession reports TLS codes itself: nothing to map")
        }
    }

    @Test("when an unknown error is not about TLS, should leave it as it is")
    func leavesOtherErrors() {
        let error = Self.linuxError("Failure when receiving data from the peer")

        let normalized = LinuxURLSessionQuirks.normalized(error, sentTo: nil)

        #expect((normalized as? URLError)?.code == .unknown)
        #expect(NetworkError(normalized) == .transportError(.unknown))
    }

    @Test("when a TLS word appears in an error that already has a code, should keep the code")
    func keepsSpecificCodes() {
        let error = URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "SSL connection timeout"])

        let normalized = LinuxURLSessionQuirks.normalized(error, sentTo: nil)

        #expect((normalized as? URLError)?.code == .timedOut)
    }
}
