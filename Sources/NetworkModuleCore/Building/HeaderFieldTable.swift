import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request's header fields, edited as a dictionary and written back to the request once:
/// every write to a `URLRequest` whose storage is shared copies the whole request (on Linux as
/// costly as building it), so the built-in header and authentication actions edit one table
/// (``HeaderFieldPreparing``). Names keep their casing; look-ups ignore case. The table checks
/// nothing: the module checks every field once, just before the session gets it.
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

    /// The fields `request` has now, taken out of it (``write(to:)`` must put them back before
    /// anyone reads the request): a dictionary the request still holds is shared, and the first
    /// change to it copies and rehashes every field; taken out, it is changed in place.
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

    /// Sets `name` to `value`, replacing every field of the same name in any casing.
    mutating func set(_ value: String, for name: String) {
        removeOtherCasings(of: name)
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

    /// The value of the field `name`, in any casing; `nil` without one.
    func value(for name: String) -> String? {
        storedName(for: name).flatMap { fields[$0] }
    }

    /// Removes every field `name`, in any casing.
    mutating func remove(_ name: String) {
        removeOtherCasings(of: name)
        guard fields.removeValue(forKey: name) != nil else { return }
        mustWrite = true
    }

    /// Removes the fields whose names are `name` in another casing: a dictionary the caller
    /// gave may hold one name in several.
    private mutating func removeOtherCasings(of name: String) {
        while let stored = fields.keys.first(where: { $0 != name && $0.caseInsensitiveEquals(name) }) {
            fields[stored] = nil
            mustWrite = true
        }
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
