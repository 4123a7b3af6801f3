import Foundation

#if canImport(Security) && !canImport(FoundationNetworking)
    import Security
#endif

/// Which HTTPS servers a ``URLSessionTransport`` trusts.
///
/// By default (``system``) a server is trusted as the platform decides: a certificate chain
/// to one of the system's root authorities, valid today, for the host name requested. A
/// self-signed or otherwise untrusted certificate fails with
/// ``NetworkError/secureConnectionFailed(_:)-enum.case``.
///
/// ``pinnedCertificates(_:)`` is the explicit opt-in for anything else: a self-signed
/// certificate, a private authority, or a server that must be one of a known few. The
/// server's chain must then lead to one of the pinned certificates; the system's roots no
/// longer count, and the host name and validity dates are still checked.
///
/// ```swift
/// // openssl x509 -in server.pem -outform der -out server.der
/// let certificate = try Data(contentsOf: Bundle.main.url(forResource: "server", withExtension: "der")!)
/// let transport = URLSessionTransport(serverTrust: .pinnedCertificates([certificate]))
/// ```
///
/// - Important: Pinning is enforced on Apple platforms, through the `URLSession` delegate's
///   server-trust challenge. swift-corelibs-foundation (Linux, Windows) has no such challenge
///   and no other way to change what libcurl trusts, so there a transport with pinned
///   certificates **fails closed**: every HTTPS request, and every redirect to an HTTPS URL,
///   fails with ``NetworkError/secureConnectionFailed(_:)-enum.case`` (`URLError.secureConnectionFailed`,
///   with a message saying why) and is never sent unpinned. Plain HTTP requests are not
///   affected.
public struct ServerTrustPolicy: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case system
        case pinnedCertificates([Data])
    }

    let kind: Kind

    /// The platform's own validation against the system's trusted roots. The default.
    public static let system = ServerTrustPolicy(kind: .system)

    /// Trusts only servers whose certificate chain leads to one of `certificates` (each in
    /// DER form), which may be self-signed; the host name and validity dates are still
    /// checked. An empty list, or data that is not a certificate, trusts no server.
    ///
    /// Enforced on Apple platforms only; elsewhere HTTPS requests fail closed (see the type).
    public static func pinnedCertificates(_ certificates: [Data]) -> ServerTrustPolicy {
        ServerTrustPolicy(kind: .pinnedCertificates(certificates))
    }

    /// Whether the policy replaces the platform's own validation.
    var isPinned: Bool { kind != .system }

    #if canImport(Security) && !canImport(FoundationNetworking)
        /// Whether `trust`, presented by `host`, leads to a pinned certificate (with the
        /// host name and dates valid). Always `true` for ``system``, which the caller leaves
        /// to the platform.
        func accepts(_ trust: SecTrust, host: String) -> Bool {
            guard case .pinnedCertificates(let certificates) = kind else { return true }
            let anchors = certificates.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
            guard !anchors.isEmpty,
                SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString)) == errSecSuccess,
                SecTrustSetAnchorCertificates(trust, anchors as CFArray) == errSecSuccess,
                SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess
            else { return false }
            return SecTrustEvaluateWithError(trust, nil)
        }
    #endif
}
