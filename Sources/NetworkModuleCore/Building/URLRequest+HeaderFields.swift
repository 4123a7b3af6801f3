import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// Replaces every header field with `headers` at once.
    mutating func setHeaderFields(_ headers: HTTPHeaders) {
        #if canImport(FoundationNetworking)
            // With room for the fields that actions add: the preparation takes this dictionary
            // out of the request and adds them in place (`HeaderFieldTable`).
            allHTTPHeaderFields = headers.dictionary(spareCapacity: HeaderFieldTable.spareCapacity)
        #else
            allHTTPHeaderFields = nil
            for field in headers { setValue(field.value, forHTTPHeaderField: field.name) }
        #endif
    }
}
