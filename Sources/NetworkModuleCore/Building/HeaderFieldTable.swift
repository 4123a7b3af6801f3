import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request's header fields, edited as a dictionary and written back to the request once.
///
/// Every write to a `URLRequest` whose storage is shared copies the whole request first, and
/// on Linux that copy costs about as much as building the request. The built-in header and
/// authentication actions therefore edit one table, which the pipeline writes back once for
/// all of them (see ``HeaderFieldPreparing``).
///
/// Names keep the casing they were set with; look-ups ignore case, as HTTP does. The table does
/// not check names and values: the module checks every header field of a request once, just
/// before the session gets it (`HeaderValidation`), whoever set it.
struct HeaderFieldTable {
    /// Room for the fields that actions add, so that adding them never grows the table on the
    /// way: the request builder makes its dictionary with this much room to spare.
    static let spareCapacity = 4

    private var fields: [String: String]
    /// Whether ``write(to:)`` must write the table: something was set, or the fields were
    /// taken out of the request.
    private var mustWrite = false

    /// The fields `request` has now.
    init(of request: borrowing URLRequest) {
        fields = request.allHTTPHeaderFields ?? [:]
        fields.reserveCapacity(fields.count + Self.spareCapacity)
    }

    /// The fields `request` has now, taken out of it: `request` holds none until ``write(to:)``
    /// puts the table back, which it must before anyone else reads the request.
    ///
    /// A dictionary that the request still holds is shared, and the first change to it copies
    /// and rehashes every field; taken out, it has one owner and is changed in place, when it
    /// has room (see ``spareCapacity``).
    init(takingFieldsOf request: inout URLRequest) {
        guard var taken = request.allHTTPHeaderFields else {
            fields = [:]
            fields.reserveCapacity(Self.spareCapacity)
            return
        }
        request.allHTTPHeaderFields = nil
        taken.reserveCapacity(taken.count + Self.spareCapacity)
        fields = consume taken
        mustWrite = true
    }

    /// Sets `name` to `value`, replacing a field of the same name in any casing.
    mutating func set(_ value: String, for name: String) {
        if let stored = storedName(for: name), stored != name { fields[stored] = nil }
        fields[name] = value
        mustWrite = true
    }

    /// Sets `name` to the value `makeValue` gives, unless the table has a field of that name
    /// in any casing; then `makeValue` is not called.
    mutating func setIfMissing(_ name: String, to makeValue: () -> String) {
        guard storedName(for: name) == nil else { return }
        fields[name] = makeValue()
        mustWrite = true
    }

    /// `request` with the fields `edit` sets in its table, written in one go; or the error
    /// `edit` throws. What an action's own `prepare` does with the shared-table step.
    static func editing(
        _ request: URLRequest, _ edit: (inout HeaderFieldTable) throws(NetworkError) -> Void
    ) -> Result<URLRequest, any Error> {
        var headers = HeaderFieldTable(of: request)
        do throws(NetworkError) {
            try edit(&headers)
        } catch {
            return .failure(error)
        }
        var edited = request
        headers.write(to: &edited)
        return .success(edited)
    }

    /// Writes the table into `request`, if anything was set or the fields were taken out of it.
    consuming func write(to request: inout URLRequest) {
        if mustWrite { request.allHTTPHeaderFields = fields }
    }

    /// The name under which the table holds `name`, in any casing. A request has few fields,
    /// so a scan is cheaper than hashing the name to look it up first.
    private func storedName(for name: String) -> String? {
        fields.keys.first { $0.caseInsensitiveEquals(name) }
    }
}
