import Foundation

/// Which header, query and body values are secrets, and how they are masked wherever the
/// framework writes requests and responses down: log lines, `curl` commands, recorded traffic.
///
/// ``default`` masks, with nothing to configure:
/// - **headers**: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-API-Key`,
///   `Api-Key`, `X-Auth-Token`, `X-Access-Token`, `X-Refresh-Token`, `X-CSRF-Token`,
///   `X-XSRF-Token`, `X-Amz-Security-Token`, and the header of every ``AuthenticationAction``
///   created in the process, whatever its name;
/// - **fields**, that is query items, JSON keys (at any depth) and form fields
///   (`application/x-www-form-urlencoded`): `password`, `passwd`, `secret`, `token`,
///   `access_token`, `refresh_token`, `id_token`, `api_key`, `apikey`, `client_secret`, and, in an
///   OAuth token request or response (one that also has a `grant_type` field), `code` and
///   `code_verifier`;
/// - a password in a URL (`https://user:password@host`), and the fields above in a URL's
///   fragment (`#access_token=…`, OAuth's implicit flow) as in its query;
/// - the query items and headers every signing action (``NetworkModuleAction/signing(secrets:sign:)``) created in the process declared secret.
///
/// Names are compared ignoring case, and field names also ignoring `_` and `-`, so
/// `accessToken`, `ACCESS-TOKEN` and `access_token` are one name. Add the names your API uses:
///
/// ```swift
/// let redaction = Redaction.default.adding(headers: ["X-Tenant-Key"], queryItems: ["sig"])
/// ```
///
/// The fixed credential headers listed above, the authentication actions' headers and the
/// signing actions' secrets are masked by every redaction, even one created without them.
///
/// JSON bodies are read in any encoding `JSONSerialization` reads and after an anti-XSSI
/// prefix; a body that may hold a secret and cannot be masked is left out with a note, and a
/// `Location`, `Content-Location`, `Referer`, `Link` or `Refresh` value that cannot be read is
/// masked whole: nothing that cannot be shown free of secrets is written in clear. A value that
/// is not a secret itself is still read for one: a return URL in a query item with its own
/// `access_token`, JSON with a `password` in a form field or a JSON string, a bracketed name
/// (`user[password]`); and text that is neither JSON nor a form (newline-delimited JSON, an
/// error's description) is masked as free text.
public struct Redaction: Sendable, Equatable {
    /// What replaces a secret value.
    static let mask = "REDACTED"

    /// The documented defaults: see the type's description for the full list.
    public static let `default` = Redaction(
        headerNames: CredentialHeaders.fixed,
        queryItemNames: [
            "password", "passwd", "secret", "token", "access_token", "refresh_token", "id_token", "api_key", "apikey",
            "client_secret",
        ])

    /// Header names whose values are masked, compared ignoring case.
    let headerNames: Set<String>
    /// Field names whose values are masked: query items, JSON keys and form fields. Compared
    /// ignoring case, `_` and `-`.
    let queryItemNames: Set<String>
    /// `queryItemNames`, normalized for comparison.
    private let normalizedFieldNames: Set<String>
    /// The same, as bytes, for the scan of a URL's query.
    private let normalizedFieldNameBytes: [[UInt8]]

    /// Fields that are secrets only in an OAuth token request or response (one with a
    /// `grant_type` field), normalized.
    private static let tokenRequestFieldNames: Set<String> = ["code", "codeverifier"]
    private static let grantType = "granttype"

    /// Creates a redaction of these header and field names (and the credential headers every
    /// redaction masks).
    public init(headerNames: Set<String>, queryItemNames: Set<String>) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.queryItemNames = queryItemNames
        self.normalizedFieldNames = Set(queryItemNames.map(Self.normalized))
        self.normalizedFieldNameBytes = normalizedFieldNames.map { Array($0.utf8) }.sorted {
            $0.lexicographicallyPrecedes($1)
        }
    }

    /// This redaction with more header and field names.
    public func adding(headers: Set<String> = [], queryItems: Set<String> = []) -> Redaction {
        Redaction(headerNames: headerNames.union(headers), queryItemNames: queryItemNames.union(queryItems))
    }

    /// Whether the header `name` holds a secret.
    public func isSecret(header name: String) -> Bool {
        headerNames.contains(name.lowercased()) || CredentialHeaders.contains(name)
    }

    /// Whether a query item, JSON key or form field named `name` holds a secret; `inTokenRequest`
    /// when its query or body has a `grant_type` field (OAuth), where `code` is one too. A name is
    /// also read as a path of keys, a secret's when any key is: `user[password]`, `password[]`,
    /// `password[0]`, `user.password`, `token*`, a nameless item holding a URL (`?https://…?token=`);
    /// one still escaped (`user%5Bpassword%5D`, from a URL escaped twice) is decoded once more first.
    package func isSecret(field name: String, inTokenRequest: Bool) -> Bool {
        if isSecret(normalizedField: Self.normalized(name), inTokenRequest: inTokenRequest) { return true }
        guard name.contains(where: { !Self.isKeyCharacter($0) }) else { return false }
        let unescaped = name.contains("%") ? (name.removingPercentEncoding ?? name) : name
        return unescaped.split(whereSeparator: { !Self.isKeyCharacter($0) }).contains { key in
            isSecret(normalizedField: Self.normalized(String(key)), inTokenRequest: inTokenRequest)
        }
    }

    /// Whether `character` may be part of one key of a field's name.
    private static func isKeyCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "-"
    }

    private func isSecret(normalizedField normalized: String, inTokenRequest: Bool) -> Bool {
        normalizedFieldNames.contains(normalized)
            || (inTokenRequest && Self.tokenRequestFieldNames.contains(normalized))
            || CredentialFields.contains(normalized: normalized)
    }

    /// Whether `names` (of one query, JSON object or form) make an OAuth token request.
    package static func isTokenRequest(_ names: some Sequence<String>) -> Bool {
        names.contains { normalized($0) == grantType }
    }

    /// `value`, or the mask if header `name` holds a secret. A header that carries URLs
    /// (`Location`, `Content-Location`, `Referer`, `Link`, `Refresh`) keeps them, with their passwords and
    /// secret query and fragment values masked as in ``redacted(_:)-(URL)``; a value of one of
    /// them that cannot be read (a URL that does not parse, a `Refresh` that is not
    /// `time; url=…`, a `Link` that is not a list of `<…>`) is masked, never passed on as it is.
    public func value(_ value: String, forHeader name: String) -> String {
        if isSecret(header: name) { return Self.mask }
        switch name.lowercased() {
        case "location", "content-location", "referer": return redactedURLText(value[...])
        case "link": return redactedLinks(value)
        case "refresh": return redactedRefresh(value)
        default: return value
        }
    }

    /// `headers` with secret values masked, in the same order.
    public func redacted(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.map { ($0.name, value($0.value, forHeader: $0.name)) })
    }

    /// `url` with its password (`https://user:password@host`) and the values of secret query items
    /// masked, and those of secret items in its fragment too (`#access_token=…&state=…`, OAuth's
    /// implicit flow, on either side of a `?` in it: `#/callback?token=…`); the rest is left as it
    /// was. A URL with none of these is returned at once.
    public func redacted(_ url: URL) -> URL {
        // Read off the URL's text, which Foundation keeps, rather than through `url.password`
        // and `url.query`, which parse it again: a password needs an `@`, the query is what
        // lies between the first `?` and the `#` after it, and the fragment what follows that
        // `#` (RFC 3986 §3).
        var text = url.absoluteString
        let (mayHavePassword, mayHaveSecretQuery, mayHaveSecretFragment) = text.withUTF8 { bytes in
            let queryStart = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            guard let queryStart else { return (bytes.contains(UInt8(ascii: "@")), false, false) }
            var fragmentStart: Int? = queryStart
            var secretQuery = false
            if bytes[queryStart] == UInt8(ascii: "?") {
                let query = bytes[(queryStart + 1)...]
                let queryEnd = query.firstIndex(of: UInt8(ascii: "#")) ?? query.endIndex
                secretQuery = mayHaveSecret(query: UnsafeBufferPointer(rebasing: query[..<queryEnd]))
                fragmentStart = queryEnd < bytes.endIndex ? queryEnd : nil
            }
            var secretFragment = false
            if let fragmentStart {
                // Items may stand on either side of a `?` in the fragment (`#/cb?token=…`,
                // `#access_token=…?state=…`): each part is read as a list of items.
                secretFragment = bytes[(fragmentStart + 1)...].split(
                    separator: UInt8(ascii: "?"), omittingEmptySubsequences: false
                ).contains { mayHaveSecret(query: UnsafeBufferPointer(rebasing: $0)) }
            }
            return (bytes[..<queryStart].contains(UInt8(ascii: "@")), secretQuery, secretFragment)
        }
        let hasPassword = mayHavePassword && url.password != nil
        guard hasPassword || mayHaveSecretQuery || mayHaveSecretFragment else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return unreadableURL(text)
        }
        if hasPassword { components.percentEncodedPassword = Self.mask }
        var changed = hasPassword
        if mayHaveSecretQuery, let items = components.percentEncodedQueryItems {
            let names = items.map { $0.name.removingPercentEncoding ?? $0.name }
            let tokenRequest = Self.isTokenRequest(names)
            let masked = zip(items, names).map { item, name -> URLQueryItem in
                if isSecret(field: name, inTokenRequest: tokenRequest) {
                    return URLQueryItem(name: item.name, value: Self.mask)
                }
                return item.value.flatMap(maskedNestedValue).map { URLQueryItem(name: item.name, value: $0) } ?? item
            }
            if masked != items {
                components.percentEncodedQueryItems = masked
                changed = true
            }
        }
        if mayHaveSecretFragment, let fragment = components.percentEncodedFragment {
            let parts = fragment.split(separator: "?", omittingEmptySubsequences: false)
            let masked = parts.map { maskedFormFields($0) }
            if masked.contains(where: { $0 != nil }) {
                components.percentEncodedFragment = zip(parts, masked).map { $1 ?? String($0) }.joined(separator: "?")
                changed = true
            }
        }
        guard changed else { return url }
        return components.url ?? unreadableURL(text)
    }

    /// What stands for a URL whose secrets could not be masked through its components: its
    /// text masked as free text, or, if that is no URL, the mask alone. Never the URL in clear.
    private func unreadableURL(_ text: String) -> URL {
        URL(string: redactedText(text)) ?? URL(fileURLWithPath: "/" + Self.mask)
    }

    /// Whether a percent-encoded query may have an item to mask: a name that is a secret's, or
    /// `grant_type`, or one that must be decoded to tell. A scan of the query's bytes, so that
    /// the URL of nearly every request (metrics record one for each) is returned as it is
    /// without being parsed into components.
    private func mayHaveSecret(query bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // The signing actions' names, behind their lock: read once, and only for a name the
        // fixed lists do not settle.
        var registered: [[UInt8]]?
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            var nameEnd = start
            while nameEnd < end, bytes[nameEnd] != UInt8(ascii: "=") { nameEnd += 1 }
            let name = UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])
            // An escape or a `+` must be decoded to tell, and a name of several keys (`user[password]`,
            // `user.password`, a URL) read key by key: the full path does that.
            if name.contains(where: { !Self.isASCIIKeyByte($0) }) { return true }
            // A value that may hold a secret of its own (a URL's `name=value` or password, JSON's
            // `"name":`), as written or escaped: the full path reads it as free text.
            if nameEnd < end, Self.mayNest(UnsafeBufferPointer(rebasing: bytes[(nameEnd + 1)..<end])) { return true }
            if Self.matches(name, Self.grantTypeBytes)
                || normalizedFieldNameBytes.contains(where: { Self.matches(name, $0) })
                || Self.tokenRequestFieldNameBytes.contains(where: { Self.matches(name, $0) })
            {
                return true
            }
            let names = registered ?? CredentialFields.normalizedBytes
            registered = names
            if names.contains(where: { Self.matches(name, $0) }) { return true }
            start = end + 1
        }
        return false
    }

    /// Whether a query value, as written, holds `=`, `:` or `@`, one of them escaped, or an
    /// escaped `%` (what was escaped twice).
    private static func mayNest(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        for (index, byte) in value.enumerated() {
            if byte == UInt8(ascii: "=") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") { return true }
            if byte == UInt8(ascii: "%"), index + 2 < value.count {
                let escaped = (value[index + 1], lowercased(value[index + 2]))
                if escaped == (UInt8(ascii: "3"), UInt8(ascii: "d"))
                    || escaped == (UInt8(ascii: "3"), UInt8(ascii: "a"))
                    || escaped == (UInt8(ascii: "4"), UInt8(ascii: "0"))
                    || escaped == (UInt8(ascii: "2"), UInt8(ascii: "5"))
                {
                    return true
                }
            }
        }
        return false
    }

    /// Whether `byte` is an ASCII letter, digit, `_` or `-`: what one key of a name is made of.
    static func isASCIIKeyByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-")
    }

    /// `byte`, lowercased if it is an ASCII capital letter.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether ASCII `name`, lowercased and without `_` and `-`, is `normalized`.
    private static func matches(_ name: UnsafeBufferPointer<UInt8>, _ normalized: [UInt8]) -> Bool {
        var index = 0
        for byte in name where byte != UInt8(ascii: "_") && byte != UInt8(ascii: "-") {
            guard index < normalized.count, normalized[index] == lowercased(byte) else { return false }
            index += 1
        }
        return index == normalized.count && index > 0
    }

    private static let grantTypeBytes = Array(grantType.utf8)
    private static let tokenRequestFieldNameBytes = tokenRequestFieldNames.map { Array($0.utf8) }

    /// A field name as compared: lowercased, without `_` and `-`.
    static func normalized(_ name: String) -> String {
        String(String.UnicodeScalarView(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" }))
    }
}
