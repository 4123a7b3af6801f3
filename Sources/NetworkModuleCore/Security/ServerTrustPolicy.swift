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
/// ``pinnedPublicKeys(sha256:)`` narrows the system's trust instead: the chain must be one the
/// platform trusts, and one of its certificates must hold a pinned public key. Keys outlive
/// certificates (a renewed certificate usually keeps its key), and several pins let a key be
/// replaced without an app release.
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
///   certificates or keys **fails closed**: every HTTPS request, and every redirect to an HTTPS URL,
///   fails with ``NetworkError/secureConnectionFailed(_:)-enum.case`` (`URLError.secureConnectionFailed`,
///   with a message saying why) and is never sent unpinned. Plain HTTP requests are not
///   affected.
public struct ServerTrustPolicy: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case system
        case pinnedCertificates([Data])
        /// The SHA-256 digests of the pinned `SubjectPublicKeyInfo`s.
        case pinnedPublicKeys(Set<Data>)
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

    /// Trusts only servers whose certificate chain the platform trusts (the system's roots, the
    /// host name, the validity dates) and holds, in any of its certificates, a public key whose
    /// `SubjectPublicKeyInfo` has one of the SHA-256 digests `sha256`, each in Base64 (the
    /// `pin-sha256` form of RFC 7469). For a certificate in `server.pem`:
    ///
    /// ```text
    /// openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der \
    ///     | openssl dgst -sha256 -binary | base64
    /// ```
    ///
    /// Pin the key in use and a backup key, so that the server can move to the backup without an
    /// app release. An empty list, or strings that are not the Base64 of 32 bytes, trust no server.
    ///
    /// Enforced on Apple platforms only; elsewhere HTTPS requests fail closed (see the type).
    public static func pinnedPublicKeys(sha256: [String]) -> ServerTrustPolicy {
        let digests = sha256.compactMap { Data(base64Encoded: $0) }.filter { $0.count == 32 }
        return ServerTrustPolicy(kind: .pinnedPublicKeys(Set(digests)))
    }

    /// Whether the policy replaces the platform's own validation, or narrows it.
    var isPinned: Bool { kind != .system }

    /// Whether one of `certificates` (DER, the server's chain) holds a pinned public key; `true`
    /// for a policy that pins no keys.
    func holdsPinnedKey(_ certificates: [Data]) -> Bool {
        guard case .pinnedPublicKeys(let digests) = kind else { return true }
        return certificates.contains { certificate in
            SubjectPublicKeyInfo.der(ofCertificate: certificate).map { digests.contains(SHA256.hash($0)) } ?? false
        }
    }

    #if canImport(Security) && !canImport(FoundationNetworking)
        /// Whether `trust`, presented by `host`, leads to a pinned certificate (with the
        /// host name and dates valid). Always `true` for ``system``, which the caller leaves
        /// to the platform.
        func accepts(_ trust: SecTrust, host: String) -> Bool {
            switch kind {
            case .system:
                return true
            case .pinnedCertificates(let certificates):
                let anchors = certificates.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
                guard !anchors.isEmpty,
                    SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString)) == errSecSuccess,
                    SecTrustSetAnchorCertificates(trust, anchors as CFArray) == errSecSuccess,
                    SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess
                else { return false }
                return SecTrustEvaluateWithError(trust, nil)
            case .pinnedPublicKeys:
                guard SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString)) == errSecSuccess,
                    SecTrustEvaluateWithError(trust, nil)
                else { return false }
                return holdsPinnedKey(Self.chain(of: trust))
            }
        }

        /// The certificates of `trust`'s chain, leaf first, in DER.
        private static func chain(of trust: SecTrust) -> [Data] {
            let reader: any TrustChainReading.Type = IndexedTrustChain.self
            return reader.certificates(of: trust).map { SecCertificateCopyData($0) as Data }
        }
    #endif
}

#if canImport(Security) && !canImport(FoundationNetworking)
    /// Reads the certificates of an evaluated trust.
    private protocol TrustChainReading {
        static func certificates(of trust: SecTrust) -> [SecCertificate]
    }

    /// The chain read by index: the only way iOS 13 and 14 (and macOS 10.15 and 11) have, and
    /// one that later systems keep, deprecated in favour of `SecTrustCopyCertificateChain`.
    /// That newer function would be weakly linked on the older systems, which the Apple check
    /// counts as a symbol iOS 13 lacks; reading by index works on every supported system. The
    /// witness is marked deprecated so that calling the deprecated functions inside it raises
    /// no warning, and it is called through the protocol, which is not deprecated.
    private enum IndexedTrustChain: TrustChainReading {
        @available(iOS, deprecated: 15, message: "iOS 13 and 14 read the chain only by index")
        @available(macOS, deprecated: 12, message: "macOS 10.15 and 11 read the chain only by index")
        @available(tvOS, deprecated: 15, message: "tvOS 13 and 14 read the chain only by index")
        @available(watchOS, deprecated: 8, message: "watchOS 6 and 7 read the chain only by index")
        static func certificates(of trust: SecTrust) -> [SecCertificate] {
            (0..<SecTrustGetCertificateCount(trust)).compactMap { SecTrustGetCertificateAtIndex(trust, $0) }
        }
    }
#endif
