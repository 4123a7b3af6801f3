import Foundation

extension NetworkModule {
    /// The pages of a paginated list, one typed request after another, as an async sequence:
    /// `next` makes each page's successor from the page and its response, or returns `nil`
    /// after the last page.
    ///
    /// Follow a `Link: <…>; rel="next"` header, or a cursor in the body:
    ///
    /// ```swift
    /// let linked = module.pages(startingWith: ListNotes()) { _, response in
    ///     response.linkedURL(rel: "next").map { ListNotes(url: $0) }
    /// }
    /// let cursored = module.pages(startingWith: NotesPage(cursor: nil)) { page, _ in
    ///     page.nextCursor.map { NotesPage(cursor: $0) }
    /// }
    /// for try await page in cursored { show(page.items) }
    /// ```
    ///
    /// Pages are fetched on demand: the first when the iteration asks for it, each next one when
    /// the iteration asks again (then `next` runs, with the page before). Each is decoded as
    /// ``send(_:)`` decodes it. The sequence throws the first ``NetworkError``, or the error
    /// `next` throws, after the pages before it; cancelling the iterating `Task` cancels the page
    /// in flight, which throws ``NetworkError/cancelled``.
    public func pages<Request: TypedRequest>(
        startingWith first: Request,
        next: @escaping @Sendable (_ page: Request.Response, _ response: NetworkResponse) throws -> Request?
    ) -> AsyncThrowingStream<Request.Response, any Error> {
        let position = LockedState(PagePosition<Request>.first(first))
        return AsyncThrowingStream {
            let current = position.withLock { position in
                defer { position = .finished }
                return position
            }
            let request: Request
            switch current {
            case .first(let first): request = first
            case .after(let page, let response):
                guard let following = try next(page, response) else { return nil }
                request = following
            case .finished: return nil
            }
            let response = try await perform(request: request)
            let page = try request.decodeResponse(response, decoder: request.decoder ?? decoder)
            position.withLock { $0 = .after(page, response) }
            return page
        }
    }
}

/// Where a ``NetworkModule/pages(startingWith:next:)`` iteration stands.
private enum PagePosition<Request: TypedRequest> {
    /// Nothing fetched yet.
    case first(Request)
    /// `page` was delivered; its successor is not asked for yet.
    case after(Request.Response, NetworkResponse)
    /// The last page was delivered, or a page failed.
    case finished
}
