import Foundation
import NetworkModuleCore
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    /// The fields as `(name, value)` pairs, in order.
    func pairs(_ headers: HTTPHeaders) -> [[String]] {
        headers.map { [$0.name, $0.value] }
    }

    @Test(
        "when a field is looked up in any casing, should find it",
        arguments: ["Content-Type", "content-type", "CONTENT-TYPE", "cOnTeNt-TyPe"])
    func caseInsensitiveLookup(name: String) {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers[name] == "application/json")
    }

    @Test("when a missing field or a name differing by more than case is looked up, should return nil")
    func missingField() {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content_Type"] == nil)
        #expect(headers["Accept"] == nil)
    }

    @Test("when a field is set with other casing, should replace it in place with the new name and value")
    func setReplacesInPlace() {
        var headers: HTTPHeaders = ["Accept": "*/*", "content-type": "text/plain", "X-Id": "1"]
        headers["Content-Type"] = "application/json"
        #expect(pairs(headers) == [["Accept", "*/*"], ["Content-Type", "application/json"], ["X-Id", "1"]])
        #expect(headers.count == 3)
    }

    @Test("when a new field is set, should append it after the others")
    func setAppends() {
        var headers: HTTPHeaders = ["B": "2"]
        headers["A"] = "1"
        #expect(pairs(headers) == [["B", "2"], ["A", "1"]])
    }

    @Test("when nil is set in any casing, should remove the field; removing a missing one is harmless")
    func setNilRemoves() {
        var headers: HTTPHeaders = ["Accept": "*/*", "Authorization": "Bearer t"]
        headers["AUTHORIZATION"] = nil
        headers["Missing"] = nil
        #expect(pairs(headers) == [["Accept", "*/*"]])
        #expect(headers["Authorization"] == nil)
    }

    @Test(
        "when created from pairs with a repeated name, should keep one field at the first position with the last value")
    func pairsWithDuplicates() {
        let headers = HTTPHeaders([("X-A", "1"), ("B", "2"), ("x-a", "3")])
        #expect(pairs(headers) == [["x-a", "3"], ["B", "2"]])
        #expect(headers.count == 2)
    }

    @Test("when created empty, should be empty")
    func empty() {
        #expect(HTTPHeaders().isEmpty)
        #expect(HTTPHeaders().count == 0)
        let literal: HTTPHeaders = [:]
        #expect(literal.isEmpty)
        #expect(!HTTPHeaders([("A", "1")]).isEmpty)
    }

    @Test("when created from a response's dictionary, should skip non-string entries and sort by lowercased name")
    func fromDictionary() {
        let dictionary: [AnyHashable: Any] = ["b-header": "2", "A-Header": "1", "C": 3, 4: "four", "d": "4"]
        let headers = HTTPHeaders(dictionary)
        #expect(pairs(headers) == [["A-Header", "1"], ["b-header", "2"], ["d", "4"]])
        #expect(headers["B-HEADER"] == "2")
    }

    @Test(
        "when a dictionary holds one name in two casings, should make one field of both values, so count and equality agree"
    )
    func fromDictionaryWithTwoCasings() {
        let dictionary: [AnyHashable: Any] = ["accept": "text/html", "Accept": "application/json", "X-Id": "1"]

        let headers = HTTPHeaders(dictionary)

        #expect(pairs(headers) == [["Accept", "application/json, text/html"], ["X-Id", "1"]])
        #expect(headers.count == 2)
        #expect(headers == ["ACCEPT": "application/json, text/html", "x-id": "1"])
        #expect(headers.hashValue == HTTPHeaders(["accept": "application/json, text/html", "X-Id": "1"]).hashValue)
    }

    @Test("when merged, should override fields case-insensitively and keep the others in order")
    func merging() {
        let defaults: HTTPHeaders = ["Accept": "*/*", "content-type": "text/plain", "X-Client": "app"]
        let merged = defaults.merging(["Content-Type": "application/json", "X-New": "1"])
        #expect(
            pairs(merged) == [
                ["Accept", "*/*"], ["Content-Type", "application/json"], ["X-Client", "app"], ["X-New", "1"],
            ])
        #expect(pairs(defaults) == [["Accept", "*/*"], ["content-type", "text/plain"], ["X-Client", "app"]])
    }

    @Test("when read as a dictionary, should key it by the names as given")
    func dictionary() {
        let headers: HTTPHeaders = ["Accept": "*/*", "x-id": "1"]
        #expect(headers.dictionary == ["Accept": "*/*", "x-id": "1"])
    }

    @Test("when described, should list Name: value lines in order")
    func description() {
        let headers: HTTPHeaders = ["Accept": "*/*", "X-Id": "1"]
        #expect(headers.description == "Accept: */*\nX-Id: 1")
        #expect(HTTPHeaders().description == "")
    }

    @Test("when two lists have the same fields in other casing and order, should be equal and hash equally")
    func equalityIgnoresCaseAndOrder() {
        let lhs: HTTPHeaders = ["Accept": "*/*", "X-Id": "1"]
        let rhs: HTTPHeaders = ["x-id": "1", "ACCEPT": "*/*"]
        #expect(lhs == rhs)
        #expect(rhs == lhs)
        #expect(lhs.hashValue == rhs.hashValue)
        #expect(Set([lhs, rhs]).count == 1)
    }

    @Test("when two lists differ in a value's case, a field or their count, should not be equal")
    func inequality() {
        let headers: HTTPHeaders = ["Accept": "*/*", "X-Id": "abc"]
        #expect(headers != ["Accept": "*/*", "X-Id": "ABC"])
        #expect(headers != ["Accept": "*/*"])
        #expect(headers != ["Accept": "*/*", "X-Id": "abc", "X-More": "1"])
        #expect(headers != ["Accept": "*/*", "X-Other": "abc"])
    }

    @Test("when iterated, should give each field's name as given and value, by label or destructured")
    func iteration() {
        let headers = HTTPHeaders([("X-Id", "1"), ("accept", "*/*")])

        var labeled: [String] = []
        for field in headers { labeled.append("\(field.name)=\(field.value)") }
        var destructured: [String] = []
        for (name, value) in headers { destructured.append("\(name)=\(value)") }

        #expect(labeled == ["X-Id=1", "accept=*/*"])
        #expect(destructured == labeled)
    }
}
