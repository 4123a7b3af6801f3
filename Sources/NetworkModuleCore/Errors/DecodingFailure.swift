import Foundation

/// Which part of a response body failed to decode, and why.
///
/// ```swift
/// if case .failure(.decodingFailed(let failure)) = result {
///     print(failure)  // "User: key "email" not found at "profile""
/// }
/// ```
public struct DecodingFailure: Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        /// A required key is missing. Carries the key.
        case keyNotFound(String)
        /// A value is `null` or missing where a value of the named type was expected.
        case valueNotFound(String)
        /// A value has another type than the named one.
        case typeMismatch(String)
        /// The data is not valid JSON, or a value is invalid for its type.
        case dataCorrupted
        /// The body is not valid text in the expected encoding (for example, not UTF-8).
        case invalidTextEncoding
        /// Another error thrown by the decoder or by a type's `init(from:)`.
        case other
    }

    /// The type that was being decoded, for example `"User"`.
    public let typeName: String
    /// What went wrong.
    public let kind: Kind
    /// The coding path to the failing value, for example `"items[2].name"`; empty at the top level.
    public let codingPath: String
    /// The decoder's own explanation.
    public let debugDescription: String

    /// Creates a decoding failure.
    public init(typeName: String, kind: Kind, codingPath: String, debugDescription: String) {
        self.typeName = typeName
        self.kind = kind
        self.codingPath = codingPath
        self.debugDescription = debugDescription
    }

    /// Describes the failure of decoding `type` with `error`.
    init(decoding type: Any.Type, error: any Error) {
        let typeName = String(describing: type)
        guard let decodingError = error as? DecodingError else {
            self.init(typeName: typeName, kind: .other, codingPath: "", debugDescription: String(describing: error))
            return
        }
        switch decodingError {
        case .keyNotFound(let key, let context):
            self.init(typeName: typeName, kind: .keyNotFound(key.stringValue), context: context)
        case .valueNotFound(let valueType, let context):
            self.init(typeName: typeName, kind: .valueNotFound(String(describing: valueType)), context: context)
        case .typeMismatch(let valueType, let context):
            self.init(typeName: typeName, kind: .typeMismatch(String(describing: valueType)), context: context)
        case .dataCorrupted(let context):
            self.init(typeName: typeName, kind: .dataCorrupted, context: context)
        @unknown default:
            self.init(typeName: typeName, kind: .other, codingPath: "", debugDescription: String(describing: error))
        }
    }

    private init(typeName: String, kind: Kind, context: DecodingError.Context) {
        self.init(
            typeName: typeName, kind: kind, codingPath: Self.render(context.codingPath),
            debugDescription: context.debugDescription)
    }

    /// Renders a coding path as `items[2].name`.
    private static func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    /// One line: the type, what failed and where.
    public var description: String {
        let location = codingPath.isEmpty ? "" : " at \"\(codingPath)\""
        switch kind {
        case .keyNotFound(let key): return "\(typeName): key \"\(key)\" not found\(location)"
        case .valueNotFound(let type): return "\(typeName): expected a \(type) value but found null\(location)"
        case .typeMismatch(let type): return "\(typeName): expected \(type)\(location) (\(debugDescription))"
        case .dataCorrupted: return "\(typeName): invalid data\(location) (\(debugDescription))"
        case .invalidTextEncoding: return "\(typeName): \(debugDescription)"
        case .other: return "\(typeName): \(debugDescription)"
        }
    }
}
