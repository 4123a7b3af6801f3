import Foundation

/// An ordered list of HTTP header fields whose names are compared case-insensitively.
///
/// HTTP field names are case-insensitive (RFC 9110, section 5.1), and servers and
/// `URLSession` implementations differ in the casing they deliver. Look-ups here ignore
/// case on every platform: `headers["content-type"]` finds `Content-Type`.
///
/// It holds at most one field per name, ignoring case. Setting a value replaces any field
/// with the same name, whatever its casing, so a request's `content-type` overrides a
/// module-wide `Content-Type` instead of duplicating it, and so does a later pair given to
/// `init(_ pairs:)`. Only `init(_ dictionary:)`, whose dictionary has no order, combines the
/// values of one name instead.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers["X-Request-ID"] = UUID().uuidString
/// ```
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence,
    CustomStringConvertible
{
    /// One header field: a name as it was given (with its casing) and its value. The element a
    /// `for` loop over the headers gets, so both `field.name` and `for (name, value) in` read it.
    typealias Field = (name: String, value: String)

    private var fields: [Field]

    /// Creates an empty list of headers.
    public init() {
        fields = []
    }

    /// Creates headers from name-value pairs; a later pair replaces an earlier one with the
    /// same name (ignoring case).
    public init(_ pairs: [(String, String)]) {
        fields = []
        fields.reserveCapacity(pairs.count)
        for (name, value) in pairs { self[name] = value }
    }

    /// Creates headers from a dictionary literal: `["Accept": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Creates headers from a dictionary, such as `URLRequest.allHTTPHeaderFields` or
    /// `HTTPURLResponse.allHeaderFields`. Names and values that are not strings are skipped.
    ///
    /// The fields are sorted by name. A dictionary can hold the same name in two casings
    /// (`Accept` and `accept`); they become one field, as every name does here: its values
    /// joined with `", "` (which RFC 9110, section 5.3, makes equivalent to separate field
    /// lines), in the order of the names as spelled, under the first of them.
    public init(_ dictionary: [AnyHashable: Any]) {
        var pairs: [(name: String, lowercased: String, value: String)] = []
        pairs.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            guard let name = key.base as? String, let value = value as? String else { continue }
            pairs.append((name, name.lowercased(), value))
        }
        pairs.sort { ($0.lowercased, $0.name) < ($1.lowercased, $1.name) }
        fields = []
        fields.reserveCapacity(pairs.count)
        var previousLowercased: String?
        for pair in pairs {
            if pair.lowercased == previousLowercased, let last = fields.indices.last {
                fields[last].value += ", " + pair.value
            } else {
                fields.append((name: pair.name, value: pair.value))
            }
            previousLowercased = pair.lowercased
        }
    }

    /// The value of the field named `name`, ignoring case; `nil` if there is none.
    /// Setting `nil` removes the field.
    public subscript(name: String) -> String? {
        get {
            fields.first { $0.name.caseInsensitiveEquals(name) }?.value
        }
        set {
            if let index = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
                if let newValue {
                    fields[index] = (name: name, value: newValue)
                } else {
                    fields.remove(at: index)
                }
            } else if let newValue {
                fields.append((name: name, value: newValue))
            }
        }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The fields as a dictionary keyed by name as given.
    public var dictionary: [String: String] {
        dictionary(spareCapacity: 0)
    }

    /// The fields as a dictionary keyed by name as given, with room for `spareCapacity` more.
    func dictionary(spareCapacity: Int) -> [String: String] {
        var dictionary = [String: String](minimumCapacity: fields.count + spareCapacity)
        for field in fields { dictionary[field.name] = field.value }
        return dictionary
    }

    /// Returns these headers with every field of `other` set on top of them.
    public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        for field in other.fields { merged[field.name] = field.value }
        return merged
    }

    /// Iterates over the fields in order, each a `(name: String, value: String)` pair with the
    /// name as it was given: `for field in headers { field.name }` and
    /// `for (name, value) in headers` both read them.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// `Name: value` lines, in order.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Two header lists are equal when they hold the same names (ignoring case) with the
    /// same values, in any order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.fields.allSatisfy { rhs[$0.name] == $0.value }
    }

    /// Hashes the names (lowercased) and values, independently of order.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for field in fields {
            var fieldHasher = Hasher()
            fieldHasher.combine(field.name.lowercased())
            fieldHasher.combine(field.value)
            combined ^= fieldHasher.finalize()
        }
        hasher.combine(combined)
    }
}

extension String {
    /// ASCII case-insensitive comparison, which is what HTTP field names need.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }
}

@inline(__always)
private func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
}
