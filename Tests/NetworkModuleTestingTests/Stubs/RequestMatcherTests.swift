import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("RequestMatcher")
struct RequestMatcherTests {
    @Test("when matching any request, should match every method and path")
    func any() {
        #expect(RequestMatcher.any.matches(makeURLRequest("/a", method: "DELETE")))
        #expect(RequestMatcher.any.matches(makeURLRequest("/")))
    }

    @Test("when matching a method, should match only that method")
    func method() {
        let matcher = RequestMatcher.method(.post)

        #expect(matcher.matches(makeURLRequest("/users", method: "POST")))
        #expect(!matcher.matches(makeURLRequest("/users", method: "GET")))
        #expect(matcher.description == "POST")
    }

    @Test("when matching an exact path, should match the percent-decoded path and nothing longer")
    func path() {
        #expect(RequestMatcher.path("/users/1").matches(makeURLRequest("/users/1?x=1")))
        #expect(!RequestMatcher.path("/users/1").matches(makeURLRequest("/users/10")))
        #expect(RequestMatcher.path("/a b").matches(makeURLRequest("/a%20b")))
    }

    @Test("when matching a path prefix, should match the paths that start with it")
    func pathPrefix() {
        let matcher = RequestMatcher.pathPrefix("/users")

        #expect(matcher.matches(makeURLRequest("/users/1/posts")))
        #expect(!matcher.matches(makeURLRequest("/orders/1")))
    }

    @Test("when matching a path pattern, should match the whole path only, and an invalid pattern nothing")
    func pathPattern() {
        let matcher = RequestMatcher.pathPattern("/users/[0-9]+")

        #expect(matcher.matches(makeURLRequest("/users/42")))
        #expect(!matcher.matches(makeURLRequest("/users/42/posts")))
        #expect(!matcher.matches(makeURLRequest("/v2/users/42")))
        #expect(!RequestMatcher.pathPattern("/users/[").matches(makeURLRequest("/users/[")))
    }

    @Test("when matching a query item, should match by name, or by name and decoded value")
    func query() {
        let request = makeURLRequest("/search?q=a%20b&page=2&flag")

        #expect(RequestMatcher.query("page").matches(request))
        #expect(RequestMatcher.query("page", "2").matches(request))
        #expect(RequestMatcher.query("q", "a b").matches(request))
        #expect(RequestMatcher.query("flag").matches(request))
        #expect(!RequestMatcher.query("page", "3").matches(request))
        #expect(!RequestMatcher.query("sort").matches(request))
        #expect(!RequestMatcher.query("page").matches(makeURLRequest("/search")))
    }

    @Test("when matching a header, should ignore the name's case and compare the value exactly")
    func header() {
        let request = makeURLRequest("/", headers: ["X-Trace": "abc"])

        #expect(RequestMatcher.header("x-trace").matches(request))
        #expect(RequestMatcher.header("X-TRACE", "abc").matches(request))
        #expect(!RequestMatcher.header("X-Trace", "ABC").matches(request))
        #expect(!RequestMatcher.header("Authorization").matches(request))
    }

    @Test("when matching an exact body, should compare the bytes, an absent body being empty")
    func exactBody() {
        let matcher = RequestMatcher.body(Data("a=1".utf8))

        #expect(matcher.matches(makeURLRequest("/", method: "POST", body: Data("a=1".utf8))))
        #expect(!matcher.matches(makeURLRequest("/", method: "POST", body: Data("a=2".utf8))))
        #expect(!matcher.matches(makeURLRequest("/")))
        #expect(RequestMatcher.body(Data()).matches(makeURLRequest("/")))
    }

    @Test("when matching a JSON body, should compare values whatever the key order, spacing or number form")
    func jsonBodyText() {
        let matcher = RequestMatcher.jsonBody(#"{"name": "Ada", "tags": [1, 2], "admin": false}"#)

        #expect(matcher.matches(makeURLRequest("/", body: Data(#"{"admin":false,"tags":[1.0,2],"name":"Ada"}"#.utf8))))
        #expect(!matcher.matches(makeURLRequest("/", body: Data(#"{"admin":0,"tags":[1,2],"name":"Ada"}"#.utf8))))
        #expect(!matcher.matches(makeURLRequest("/", body: Data(#"{"tags":[2,1],"name":"Ada","admin":false}"#.utf8))))
        #expect(!matcher.matches(makeURLRequest("/", body: Data("not json".utf8))))
        #expect(!matcher.matches(makeURLRequest("/")))
    }

    @Test("when matching a JSON body against an Encodable, should encode it and compare values")
    func jsonBodyEncodable() {
        let matcher = RequestMatcher.jsonBody(User(id: 1, name: "Ada"))

        #expect(matcher.matches(makeURLRequest("/", body: Data(#"{"name":"Ada","id":1}"#.utf8))))
        #expect(!matcher.matches(makeURLRequest("/", body: Data(#"{"name":"Ada","id":2}"#.utf8))))
    }

    @Test("when the expected JSON is invalid or cannot be encoded, should match nothing")
    func jsonBodyInvalid() {
        let body = makeURLRequest("/", body: Data("{}".utf8))

        #expect(!RequestMatcher.jsonBody("{not json").matches(body))
        #expect(!RequestMatcher.jsonBody(Double.nan).matches(makeURLRequest("/", body: Data("0".utf8))))
    }

    @Test("when matching a body with a closure, should pass the body, or empty data without one")
    func bodyClosure() {
        let matcher = RequestMatcher.body("longer than 3 bytes") { $0.count > 3 }

        #expect(matcher.matches(makeURLRequest("/", body: Data("abcd".utf8))))
        #expect(!matcher.matches(makeURLRequest("/", body: Data("abc".utf8))))
        #expect(!matcher.matches(makeURLRequest("/")))
        #expect(matcher.description == "body longer than 3 bytes")
    }

    @Test("when matching with a custom closure, should use it and its description")
    func customClosure() {
        let matcher = RequestMatcher("has a timeout under 5 s") { $0.timeoutInterval < 5 }
        var request = makeURLRequest("/")
        request.timeoutInterval = 2

        #expect(matcher.matches(request))
        #expect(!matcher.matches(makeURLRequest("/")))
        #expect(matcher.description == "has a timeout under 5 s")
    }

    @Test("when matchers are combined with &&, should match only when both match, and describe both")
    func and() {
        let matcher = RequestMatcher.method(.post) && .path("/users")

        #expect(matcher.matches(makeURLRequest("/users", method: "POST")))
        #expect(!matcher.matches(makeURLRequest("/users", method: "GET")))
        #expect(!matcher.matches(makeURLRequest("/orders", method: "POST")))
        #expect(matcher.description == #"POST && path == "/users""#)
    }
}
