import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Pages of a paginated list")
struct PagesTests {
    struct ListNotes: TypedRequest {
        typealias Response = [String]
        var path = "/notes"
    }

    struct NotesPage: Decodable, Sendable {
        let items: [String]
        let next: String?
    }

    struct CursorPage: TypedRequest {
        typealias Response = NotesPage
        let cursor: String?
        var path: String { "/feed" }
        var queryItems: [URLQueryItem] { cursor.map { [URLQueryItem(name: "cursor", value: $0)] } ?? [] }
    }

    @Test("when pages link to the next with a Link header, should follow them to the last")
    func followsLinkHeader() async throws {
        let session = FakeNetworkSession()
        // The newest matching stub answers: the general one first.
        session.stub(
            .path("/v2/notes"),
            with: .json(#"["a", "b"]"#, headers: ["Link": #"<https://api.example.com/v2/notes?page=2>; rel="next""#]))
        session.stub(
            .query("page", "2"), with: .json(#"["c"]"#, headers: ["Link": #"</v2/notes>; rel="first""#]))
        let module = makeModule(session: session)

        var pages: [[String]] = []
        for try await page in module.pages(
            startingWith: ListNotes(),
            next: { _, response in
                response.linkedURL(rel: "next").map { ListNotes(path: $0.absoluteString) }
            })
        {
            pages.append(page)
        }

        #expect(pages == [["a", "b"], ["c"]])
        #expect(session.recordedRequests.count == 2)
    }

    @Test("when pages carry a cursor in the body, should request each with the cursor of the one before")
    func followsCursor() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/feed"), with: .json(#"{"items": ["x", "y"], "next": "c2"}"#))
        session.stub(.query("cursor", "c2"), with: .json(#"{"items": ["z"], "next": null}"#))
        let module = makeModule(session: session)

        var items: [String] = []
        for try await page in module.pages(
            startingWith: CursorPage(cursor: nil),
            next: { page, _ in
                page.next.map { CursorPage(cursor: $0) }
            })
        {
            items += page.items
        }

        #expect(items == ["x", "y", "z"])
    }

    @Test("when the consumer stops after the first page, should not request the second")
    func fetchesOnDemand() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(#"{"items": ["x"], "next": "again"}"#))
        let module = makeModule(session: session)

        var first: NotesPage?
        for try await page in module.pages(
            startingWith: CursorPage(cursor: nil),
            next: { page, _ in
                page.next.map { CursorPage(cursor: $0) }
            })
        {
            first = page
            break
        }

        #expect(first?.items == ["x"])
        #expect(session.recordedRequests.count == 1)
    }

    @Test("when a page fails, should deliver the pages before it and then throw its error")
    func failureAfterPages() async {
        let session = FakeNetworkSession()
        session.stub(.path("/v2/feed"), with: .json(#"{"items": ["x"], "next": "c2"}"#))
        session.stub(.query("cursor", "c2"), with: .status(500))
        let module = makeModule(session: session)

        var items: [String] = []
        var failure: (any Error)?
        do {
            for try await page in module.pages(
                startingWith: CursorPage(cursor: nil),
                next: { page, _ in
                    page.next.map { CursorPage(cursor: $0) }
                })
            {
                items += page.items
            }
        } catch {
            failure = error
        }

        #expect(items == ["x"])
        #expect((failure as? NetworkError)?.statusCode == 500)
    }
}
