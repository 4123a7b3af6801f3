import Foundation

/// What the session said about a transport failure: the `URLError`'s code, the URL that
/// failed, and the session's message.
///
/// The transport cases of ``NetworkError`` carry one, so the session's own words reach the
/// caller (in the error's `description` too): for example, on Linux, that certificate pinning
/// is not supported there.
///
/// ```swift
/// if case .secureConnectionFailed(let failure) = error {
///     print(failure.code, failure.failingURL?.absoluteString ?? "-", failure.message ?? "-")
/// }
/// ```
public struct TransportFailure: Equatable, Sendable, CustomStringConvertible {
    /// The `URLError` code, for example `.timedOut`.
    public let code: URLError.Code
    /// The URL that failed, when the session said (`NSURLErrorFailingURLErrorKey`).
    public let failingURL: URL?
    /// The session's description of the failure (`NSLocalizedDescriptionKey`), when it gave one.
    public let message: String?

    /// Creates a transport failure, for sessions, fakes and mappers that build errors themselves.
    public init(code: URLError.Code, failingURL: URL? = nil, message: String? = nil) {
        self.code = code
        self.failingURL = failingURL
        self.message = message
    }

    /// The code, failing URL and message of `urlError`.
    init(_ urlError: URLError) {
        self.init(code: urlError.code, userInfo: urlError.userInfo)
    }

    /// The value of the deprecated `NSURLErrorFailingURLStringErrorKey`, which older sessions
    /// and hand-made errors still set (named by its value: the constant warns).
    private static let failingURLStringKey = "NSErrorFailingURLStringKey"

    /// `code` with the failing URL and the message read from an error's `userInfo`.
    init(code: URLError.Code, userInfo: [String: Any]) {
        let failingURL =
            userInfo[NSURLErrorFailingURLErrorKey] as? URL
            ?? (userInfo[Self.failingURLStringKey] as? String).flatMap { URL(string: $0) }
        let message = (userInfo[NSLocalizedDescriptionKey] as? String).flatMap { $0.isEmpty ? nil : $0 }
        self.init(code: code, failingURL: failingURL, message: message)
    }

    /// Whether `code` is the failure's code, so that a pattern can name the code:
    /// `case .secureConnectionFailed(.serverCertificateUntrusted):`.
    public static func ~= (code: URLError.Code, failure: TransportFailure) -> Bool {
        failure.code == code
    }

    /// `"URLError code -1001, timedOut: <message> (<failing URL>)"`, masked with
    /// ``Redaction/default`` (the URL's password and secret query and fragment values, and any
    /// in the message); the parts the session did not give are left out.
    public var description: String {
        var text = code.summary
        if let message { text += ": \(message)" }
        if let failingURL { text += " (\(Redaction.default.redacted(failingURL).absoluteString))" }
        return Redaction.default.redactedText(text)
    }
}

extension URLError.Code {
    /// "URLError code -1202, serverCertificateUntrusted": the number, and the name when known.
    var summary: String {
        "URLError code \(rawValue)" + (name.map { ", \($0)" } ?? "")
    }

    /// The name of the codes a request can meet, as Apple's and swift-corelibs-foundation's
    /// `URLError` spell them.
    private var name: String? {
        switch self {
        case .unknown: "unknown"
        case .cancelled: "cancelled"
        case .badURL: "badURL"
        case .timedOut: "timedOut"
        case .unsupportedURL: "unsupportedURL"
        case .cannotFindHost: "cannotFindHost"
        case .cannotConnectToHost: "cannotConnectToHost"
        case .networkConnectionLost: "networkConnectionLost"
        case .dnsLookupFailed: "dnsLookupFailed"
        case .httpTooManyRedirects: "httpTooManyRedirects"
        case .resourceUnavailable: "resourceUnavailable"
        case .notConnectedToInternet: "notConnectedToInternet"
        case .redirectToNonExistentLocation: "redirectToNonExistentLocation"
        case .badServerResponse: "badServerResponse"
        case .userCancelledAuthentication: "userCancelledAuthentication"
        case .userAuthenticationRequired: "userAuthenticationRequired"
        case .zeroByteResource: "zeroByteResource"
        case .cannotDecodeRawData: "cannotDecodeRawData"
        case .cannotDecodeContentData: "cannotDecodeContentData"
        case .cannotParseResponse: "cannotParseResponse"
        case .requestBodyStreamExhausted: "requestBodyStreamExhausted"
        case .internationalRoamingOff: "internationalRoamingOff"
        case .callIsActive: "callIsActive"
        case .dataNotAllowed: "dataNotAllowed"
        case .dataLengthExceedsMaximum: "dataLengthExceedsMaximum"
        case .cannotLoadFromNetwork: "cannotLoadFromNetwork"
        case .secureConnectionFailed: "secureConnectionFailed"
        case .serverCertificateHasBadDate: "serverCertificateHasBadDate"
        case .serverCertificateUntrusted: "serverCertificateUntrusted"
        case .serverCertificateHasUnknownRoot: "serverCertificateHasUnknownRoot"
        case .serverCertificateNotYetValid: "serverCertificateNotYetValid"
        case .clientCertificateRejected: "clientCertificateRejected"
        case .clientCertificateRequired: "clientCertificateRequired"
        default: nil
        }
    }
}
