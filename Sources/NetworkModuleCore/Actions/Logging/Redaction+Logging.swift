import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Redaction {
    /// `url` as text to write down: secret query values masked, and a password in the URL
    /// (`https://user:secret@host`) masked too.
    func loggable(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        return redacted(url).absoluteString
    }

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
