import Foundation

/// A parsed JSON value, compared by meaning rather than by bytes: object keys in any order,
/// `1` equal to `1.0`, whitespace ignored. Used by the JSON body matcher and by replay's
/// body matching, because `JSONEncoder` does not promise a key order.
enum JSONValue: Equatable, Sendable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// `data` parsed as JSON, or `nil` if it is not JSON (an empty body is not JSON).
    init?(parsing data: Data) {
        guard !data.isEmpty, let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        self = value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
