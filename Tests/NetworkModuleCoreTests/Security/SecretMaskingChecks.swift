import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the masking suites check, written once: a secret that must never appear in clear, and
/// the two ways text reaches a log or a HAR file (a body, a URL), each through `Redaction.default`.
protocol SecretMaskingChecks {}

extension SecretMaskingChecks {
    /// The secret each test writes into its input.
    var secret: String { "s3cr3t" }

    /// Expects `text` not to hold ``secret``, printing the text when it does.
    func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!text.contains(secret), "secret in: \(text.debugDescription)", sourceLocation: sourceLocation)
    }

    /// A body as the default redaction writes it, read as UTF-8.
    func body(_ data: Data, _ type: String?) -> String {
        String(decoding: Redaction.default.writableBody(data, contentType: type), as: UTF8.self)
    }

    /// A URL as the default redaction writes it.
    func url(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let url = try #require(URL(string: text), sourceLocation: sourceLocation)
        return Redaction.default.redacted(url).absoluteString
    }
}
