import Foundation

/// The query item names that carry secrets because an action writes secrets into them (a
/// signing action's `hash`, say): like ``CredentialHeaders``, one process-wide list, only ever
/// added to, that every ``Redaction`` masks, normalized as it compares field names.
enum CredentialFields {
    private struct Names {
        var normalized: Set<String> = []
        /// The same names as bytes; read whole (a copy of the array, not of its elements).
        var bytes: [[UInt8]] = []
    }

    // Grows when actions are created, read whenever a URL, JSON or form body is masked.
    private static let registered = LockedState(Names())

    /// Records that query items (and body fields) named `name` carry a secret, from now on.
    static func register(_ name: String) {
        let normalized = Redaction.normalized(name)
        guard !normalized.isEmpty else { return }
        registered.withLock { names in
            if names.normalized.insert(normalized).inserted { names.bytes.append(Array(normalized.utf8)) }
        }
    }

    /// Whether the normalized field name `normalized` was registered.
    static func contains(normalized: String) -> Bool {
        registered.withLock { $0.normalized.contains(normalized) }
    }

    /// The registered names, normalized, as bytes: for the scan of a URL's query.
    static var normalizedBytes: [[UInt8]] {
        registered.withLock { $0.bytes }
    }
}
