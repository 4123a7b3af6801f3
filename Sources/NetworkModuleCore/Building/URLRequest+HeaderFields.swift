import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// Sets header `name` to `value`, replacing a field of the same name in any casing.
    ///
    /// The framework's own path for writing headers. On Linux `setValue(_:forHTTPHeaderField:)`
    /// re-validates and re-capitalizes every value, which profiles at several microseconds per
    /// header; the pipeline checks every header itself just before sending
    /// (``HeaderValidation``), so here the field is written straight into the header table.
    /// On Apple platforms `setValue` is fast and is used as it is.
    mutating func setHeader(_ name: String, to value: String) {
        setHeaders(CollectionOfOne((name, { value })), onlyIfMissing: false)
    }

    /// Sets several headers with one read and one write of the header table: every field, or
    /// with `onlyIfMissing` only those the request does not have yet (in any casing). A value
    /// is computed only for a header that is set.
    mutating func setHeaders(_ updates: some Sequence<(String, () -> String)>, onlyIfMissing: Bool) {
        #if canImport(FoundationNetworking)
            var fields = allHTTPHeaderFields ?? [:]
            var changed = false
            for (name, makeValue) in updates {
                let existing = fields[name] != nil ? name : fields.keys.first { $0.caseInsensitiveEquals(name) }
                if let existing {
                    if onlyIfMissing { continue }
                    fields[existing] = nil
                }
                fields[name] = makeValue()
                changed = true
            }
            if changed { allHTTPHeaderFields = fields }
        #else
            for (name, makeValue) in updates where !onlyIfMissing || value(forHTTPHeaderField: name) == nil {
                setValue(makeValue(), forHTTPHeaderField: name)
            }
        #endif
    }

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
