import Foundation
import NetworkModuleCore
import Testing

@Suite("HTTPHeaderName")
struct HTTPHeaderNameTests {
    @Test("when used in HTTPHeaders, should name the field as RFC 9110 spells it and match any casing")
    func usableInHeaders() {
        let headers: HTTPHeaders = [HTTPHeaderName.accept: "application/json", "content-type": "text/plain"]

        #expect(headers["Accept"] == "application/json")
        #expect(headers[HTTPHeaderName.contentType] == "text/plain")
        #expect(
            [HTTPHeaderName.authorization, HTTPHeaderName.wwwAuthenticate, HTTPHeaderName.eTag]
                == ["Authorization", "WWW-Authenticate", "ETag"])
    }
}
