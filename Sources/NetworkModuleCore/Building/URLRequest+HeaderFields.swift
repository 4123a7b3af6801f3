import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// Replaces every header field with `headers` at once.
    mutating func setHeaderFields(_ headers: HTTPHeaders) {
        #if canImport(FoundationNetworking)
            allHTTPHeaderFields = headers.dictionary
        #else
            allHTTPHeaderFields = nil
            for field in headers { setValue(field.value, forHTTPHeaderField: field.name) }
        #endif
    }
}
