import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Link header")
struct LinkHeaderTests {
    func response(link: String?, url: String = "https://api.example.com/v2/notes?page=1") -> NetworkResponse {
        let url = URL(string: url)!
        let fields = link.map { ["Link": $0] } ?? [:]
        return NetworkResponse(
            data: Data(),
            httpResponse: HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: fields)!,
            request: URLRequest(url: url))
    }

    @Test("when the header lists several links, should find each by its relation, ignoring case")
    func findsByRelation() {
        let response = response(
            link:
                #"<https://api.example.com/v2/notes?page=2>; rel="next", <https://api.example.com/v2/notes?page=9>; REL="Last""#
        )

        #expect(response.linkedURL(rel: "next")?.absoluteString == "https://api.example.com/v2/notes?page=2")
        #expect(response.linkedURL(rel: "last")?.absoluteString == "https://api.example.com/v2/notes?page=9")
        #expect(response.linkedURL(rel: "prev") == nil)
    }

    @Test("when a link is relative, has several relations, commas in its URL or an unquoted rel, should still read it")
    func variants() {
        #expect(
            response(link: "</v2/notes?page=3>; rel=next").linkedURL(rel: "next")?.absoluteString
                == "https://api.example.com/v2/notes?page=3")
        #expect(
            response(link: #"<?page=4>; title="a, b; c"; rel="next last""#).linkedURL(rel: "last")?.absoluteString
                == "https://api.example.com/v2/notes?page=4")
        #expect(
            response(link: #"<https://x.example/a,b>; rel="next""#).linkedURL(rel: "next")?.absoluteString
                == "https://x.example/a,b")
    }

    @Test(
        "when the header is malformed, should return what it can read and never trap",
        arguments: [
            "", "<", ">", "<<>>", "<https://a.example/x", "rel=next", ";;;,,,", #"<a>; rel="next"#, #"<a>; rel="\"#,
            "<a>; rel", "<a>; =next", "\u{0}<\u{FFFF}>;rel=\u{1F600}", String(repeating: "<a>;rel=x,", count: 1000),
        ])
    func malformedIsTotal(field: String) {
        _ = LinkHeader.links(in: field)
        _ = response(link: field).linkedURL(rel: "next")
    }

    @Test("when there is no Link header, should find no link")
    func noHeader() {
        #expect(response(link: nil).linkedURL(rel: "next") == nil)
    }
}
