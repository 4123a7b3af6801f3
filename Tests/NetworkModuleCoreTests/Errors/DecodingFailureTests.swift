import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

@Suite("DecodingFailure")
struct DecodingFailureTests {
    struct Catalog: Decodable {
        var items: [Item]
    }

    struct Item: Decodable {
        enum Role: String, Decodable { case admin, member }
        var name: String
        var role: Role
    }

    struct Picky: Decodable {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "picky refuses" }
        }

        init(from decoder: any Decoder) throws { throw Refused() }
    }

    /// The failure of decoding `json` into `type`.
    func failure<T: Decodable>(decoding json: String, as type: T.Type) throws -> DecodingFailure {
        let response = try NetworkResponse.make(json: json)
        var failure: DecodingFailure?
        do {
            _ = try response.decode(type)
        } catch {
            if case .decodingFailed(let decodingFailure) = error { failure = decodingFailure }
        }
        return try #require(failure, "expected decodingFailed")
    }

    /// A catalog whose third item is `third`.
    func catalog(third: String) -> String {
        #"{"items":[{"name":"a","role":"admin"},{"name":"b","role":"member"},\#(third)]}"#
    }

    @Test("when a key is missing in a nested array element, should say which key and where")
    func keyNotFound() throws {
        let failure = try failure(decoding: catalog(third: #"{"role":"admin"}"#), as: Catalog.self)
        #expect(failure.typeName == "Catalog")
        #expect(failure.kind == .keyNotFound("name"))
        #expect(failure.codingPath == "items[2]")
        #expect(failure.description == #"Catalog: key "name" not found at "items[2]""#)
    }

    @Test("when a value is null, should say which type was expected and render the path as items[2].name")
    func valueNotFound() throws {
        let failure = try failure(decoding: catalog(third: #"{"name":null,"role":"admin"}"#), as: Catalog.self)
        #expect(failure.kind == .valueNotFound("String"))
        #expect(failure.codingPath == "items[2].name")
        #expect(failure.description == #"Catalog: expected a String value but found null at "items[2].name""#)
    }

    @Test("when a value has another type, should say which type was expected and where")
    func typeMismatch() throws {
        let failure = try failure(decoding: catalog(third: #"{"name":5,"role":"admin"}"#), as: Catalog.self)
        #expect(failure.kind == .typeMismatch("String"))
        #expect(failure.codingPath == "items[2].name")
        #expect(failure.description == #"Catalog: expected String at "items[2].name" (\#(failure.debugDescription))"#)
        #expect(!failure.debugDescription.isEmpty)
    }

    @Test("when a value is invalid for its type, should be dataCorrupted at its path")
    func dataCorruptedValue() throws {
        let failure = try failure(decoding: catalog(third: #"{"name":"c","role":"owner"}"#), as: Catalog.self)
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.codingPath == "items[2].role")
        #expect(failure.description == #"Catalog: invalid data at "items[2].role" (\#(failure.debugDescription))"#)
    }

    @Test("when the body is not JSON, should be dataCorrupted at the top level")
    func dataCorruptedJSON() throws {
        let failure = try failure(decoding: #"{"items": [}"#, as: Catalog.self)
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.codingPath == "")
        #expect(failure.description == "Catalog: invalid data (\(failure.debugDescription))")
    }

    @Test("when a type's init(from:) throws its own error, should be other with the error's description")
    func otherError() throws {
        let failure = try failure(decoding: "{}", as: Picky.self)
        #expect(
            failure
                == DecodingFailure(typeName: "Picky", kind: .other, codingPath: "", debugDescription: "picky refuses"))
        #expect(failure.description == "Picky: picky refuses")
    }

    @Test("when the top-level value is an array, should render the index path without a leading dot")
    func topLevelArrayPath() throws {
        let failure = try failure(
            decoding: #"[{"name":"a","role":"admin"},{"name":1,"role":"admin"}]"#, as: [Item].self)
        #expect(failure.typeName == "Array<Item>")
        #expect(failure.codingPath == "[1].name")
    }

    @Test(
        "when described, should give the type, what failed and where",
        arguments: [
            (DecodingFailure.Kind.keyNotFound("id"), "", #"User: key "id" not found"#),
            (.keyNotFound("id"), "a.b", #"User: key "id" not found at "a.b""#),
            (.valueNotFound("Int"), "", "User: expected a Int value but found null"),
            (.valueNotFound("Int"), "x[0]", #"User: expected a Int value but found null at "x[0]""#),
            (.typeMismatch("Int"), "age", #"User: expected Int at "age" (why)"#),
            (.typeMismatch("Int"), "", "User: expected Int (why)"),
            (.dataCorrupted, "", "User: invalid data (why)"),
            (.dataCorrupted, "when", #"User: invalid data at "when" (why)"#),
            (.invalidTextEncoding, "", "User: why"),
            (.other, "ignored", "User: why"),
        ])
    func description(kind: DecodingFailure.Kind, codingPath: String, expected: String) {
        let failure = DecodingFailure(typeName: "User", kind: kind, codingPath: codingPath, debugDescription: "why")
        #expect(failure.description == expected)
    }

    @Test("when two failures differ in any field, should not be equal")
    func equality() {
        let failure = DecodingFailure(
            typeName: "User", kind: .keyNotFound("id"), codingPath: "a", debugDescription: "d")
        #expect(
            failure
                == DecodingFailure(typeName: "User", kind: .keyNotFound("id"), codingPath: "a", debugDescription: "d"))
        #expect(
            failure
                != DecodingFailure(typeName: "Team", kind: .keyNotFound("id"), codingPath: "a", debugDescription: "d"))
        #expect(
            failure
                != DecodingFailure(typeName: "User", kind: .keyNotFound("name"), codingPath: "a", debugDescription: "d")
        )
        #expect(
            failure
                != DecodingFailure(typeName: "User", kind: .valueNotFound("id"), codingPath: "a", debugDescription: "d")
        )
        #expect(
            failure
                != DecodingFailure(typeName: "User", kind: .keyNotFound("id"), codingPath: "b", debugDescription: "d"))
        #expect(
            failure
                != DecodingFailure(typeName: "User", kind: .keyNotFound("id"), codingPath: "a", debugDescription: "e"))
    }
}
