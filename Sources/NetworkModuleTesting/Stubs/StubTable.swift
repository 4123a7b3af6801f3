import Foundation

/// The stubs of a fake, in registration order, with where each sequence has got to: shared
/// by ``FakeNetworkSession`` (requests are `URLRequest`s) and ``FakeNetworkModule``
/// (requests are ``PerformedRequest``s).
///
/// Matchers are the test's code, so they never run under the fake's lock: the fake takes a
/// ``candidates`` snapshot inside the lock, picks with ``pick(for:among:)`` outside it, and
/// takes the answer with ``answer(forStub:)`` inside the lock again.
struct StubTable<Request> {
    /// What a matching stub answers with.
    enum Answer {
        /// The next response of a sequence.
        case fixed(StubbedResponse)
        /// A response the test computes from the request (outside the lock).
        case computed(@Sendable (Request) -> StubbedResponse)
    }

    /// One stub's matcher, for picking outside the lock.
    struct Candidate: Sendable {
        let id: Int
        let description: String
        let matches: @Sendable (Request) -> Bool
    }

    private struct Stub {
        let candidate: Candidate
        let responses: [StubbedResponse]
        let responder: (@Sendable (Request) -> StubbedResponse)?
        var served = 0
    }

    private var stubs: [Stub] = []
    private var nextID = 0

    /// Adds a stub answering `responses` in turn (the last repeats), or computing its answer
    /// with `responder`.
    mutating func add(
        _ description: String, matches: @escaping @Sendable (Request) -> Bool,
        responses: [StubbedResponse], responder: (@Sendable (Request) -> StubbedResponse)? = nil
    ) {
        nextID += 1
        stubs.append(
            Stub(
                candidate: Candidate(id: nextID, description: description, matches: matches),
                responses: responses, responder: responder))
    }

    mutating func removeAll() {
        stubs.removeAll()
    }

    /// Every stub's matcher, oldest first.
    var candidates: [Candidate] {
        stubs.map(\.candidate)
    }

    /// The newest candidate that matches `request`; run it outside the lock.
    static func pick(for request: Request, among candidates: [Candidate]) -> Candidate? {
        candidates.last { $0.matches(request) }
    }

    /// The answer of stub `id`, moving its sequence on; `nil` if the stub was removed since.
    mutating func answer(forStub id: Int) -> Answer? {
        guard let index = stubs.firstIndex(where: { $0.candidate.id == id }) else { return nil }
        if let responder = stubs[index].responder { return .computed(responder) }
        let responses = stubs[index].responses
        guard !responses.isEmpty else { return nil }
        defer { stubs[index].served += 1 }
        return .fixed(responses[min(stubs[index].served, responses.count - 1)])
    }

    /// The message for a request no stub matched: the request, then each stub on a line.
    func unmatchedMessage(source: String, request: String) -> String {
        let list =
            stubs.isEmpty
            ? "\n  (none)"
            : stubs.enumerated().map { "\n  \($0.offset + 1). \($0.element.candidate.description)" }.joined()
        return "\(source): no stub matches \(request).\nRegistered stubs (oldest first; the newest match answers):"
            + list
    }
}
