import NetworkModuleCore
import Testing

@Suite("HTTPMethod")
struct HTTPMethodTests {
    @Test(
        "when a standard method is used, should have its uppercase wire value and description",
        arguments: [
            (HTTPMethod.get, "GET"), (.head, "HEAD"), (.post, "POST"), (.put, "PUT"), (.patch, "PATCH"),
            (.delete, "DELETE"), (.options, "OPTIONS"), (.trace, "TRACE"), (HTTPMethod(rawValue: "CONNECT"), "CONNECT"),
        ])
    func wireValues(method: HTTPMethod, wire: String) {
        #expect(method.rawValue == wire)
        #expect(method.description == wire)
        #expect(HTTPMethod(rawValue: wire) == method)
    }

    @Test(
        "when asked whether a standard method is idempotent, should follow RFC 9110",
        arguments: [
            (HTTPMethod.get, true), (.head, true), (.put, true), (.delete, true), (.options, true), (.trace, true),
            (.post, false), (.patch, false), (HTTPMethod(rawValue: "CONNECT"), false),
        ])
    func idempotence(method: HTTPMethod, isIdempotent: Bool) {
        #expect(method.isIdempotent == isIdempotent)
    }

    @Test("when a custom method is created from a literal or a raw value, should keep it exactly and not be idempotent")
    func customMethod() {
        let literal: HTTPMethod = "PURGE"
        #expect(literal.rawValue == "PURGE")
        #expect(literal == HTTPMethod(rawValue: "PURGE"))
        #expect(!literal.isIdempotent)
    }

    @Test("when a method differs only in case, should be a different method that is not idempotent")
    func caseSensitive() {
        let lowercase: HTTPMethod = "get"
        #expect(lowercase != .get)
        #expect(lowercase.rawValue == "get")
        #expect(!lowercase.isIdempotent)
    }
}
