import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Redaction {
    /// `url` as text to write down: secret query values masked, and a password in the URL
    /// (`https://user:secret@host`) masked too.
    func loggable(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        let redacted = redacted(url)
        guard var components = URLComponents(url: redacted, resolvingAgainstBaseURL: true),
            components.percentEncodedPassword != nil
        else { return redacted.absoluteString }
        components.percentEncodedPassword = Self.mask
        return components.string ?? redacted.absoluteString
    }

    /// The headers of `request`, secret values masked, sorted by name so that the text is the
    /// same on every platform.
    func loggableHeaders(of request: URLRequest) -> [HTTPHeaders.Field] {
        sortedFields(redacted(HTTPHeaders(request.allHTTPHeaderFields ?? [:])))
    }

    /// `headers` with secret values masked, sorted by name.
    func loggableHeaders(_ headers: HTTPHeaders) -> [HTTPHeaders.Field] {
        sortedFields(redacted(headers))
    }

    private func sortedFields(_ headers: HTTPHeaders) -> [HTTPHeaders.Field] {
        headers.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }
}
