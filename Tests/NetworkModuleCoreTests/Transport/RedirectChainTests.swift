import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request's redirect chain, hop by hop, as the transport's delegate drives it: what each hop
/// proposes, how what the policy chose is sent, the hop limit and the caller's origin. No session:
/// `sendsBodiesItself` is Linux's behaviour (`true`) or Apple's (`false`), whichever the tests run on.
@Suite("Redirect chain")
struct RedirectChainTests {
    private static let a = URL(string: "http://127.0.0.1:8001/login")!
    private static let b = URL(string: "http://127.0.0.1:8002/next")!
    private static let c = URL(string: "http://127.0.0.1:8002/last")!
    private static let form = Data("user=ada&password=hunter2".utf8)

    private static func post(_ url: URL, body: Data = form) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        return request
    }

    /// What Linux's `URLSession` proposes after `status`: the answered request (`current`) at
    /// `url`, its method a `GET` for a 303 (or a POST's 301, 302), its `httpBody` kept.
    private static func foundationProposal(after status: Int, from current: URLRequest, to url: URL) -> URLRequest {
        var next = current
        next.url = url
        if status == 303 || (status < 303 && current.httpMethod == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        return next
    }

    /// Follows one hop as the delegate does, with the policy returning `chosen` (the proposal
    /// when `nil`): counts it, proposes, decides how to send, records what was sent.
    @discardableResult
    private static func hop(
        _ chain: inout RedirectChain, _ status: Int, to url: URL, current: URLRequest,
        choosing choose: (URLRequest) -> URLRequest = { $0 }
    ) -> RedirectChain.Sending {
        chain.redirected()
        let proposal = chain.proposal(
            after: status, proposed: foundationProposal(after: status, from: current, to: url))
        let sending = chain.sending(choose(proposal.request), as: proposal)
        switch sending {
        case .followed(let next), .sentAgain(let next): chain.followed(next, as: proposal)
        case .failed: break
        }
        return sending
    }

    private static func sent(_ sending: RedirectChain.Sending) -> (again: Bool, request: URLRequest)? {
        switch sending {
        case .followed(let request): (false, request)
        case .sentAgain(let request): (true, request)
        case .failed: nil
        }
    }

    // MARK: What a 307 or 308 repeats

    @Test("when a POST is answered 307 or 308, should send it again with its method and body", arguments: [307, 308])
    func repeatsThePost(status: Int) throws {
        var chain = RedirectChain(caller: Self.post(Self.a), sendsBodiesItself: true)

        let next = try #require(Self.sent(Self.hop(&chain, status, to: Self.b, current: Self.post(Self.a))))

        #expect(next.again, "Linux's URLSession would drop the body: the transport sends it")
        #expect(next.request.httpMethod == "POST")
        #expect(next.request.httpBody == Self.form)
        #expect(next.request.url == Self.b)
    }

    @Test(
        "when a redirect made a POST a GET, a 307 after it should repeat the GET without a body",
        arguments: [301, 302, 303])
    func repeatsTheRequestItAnswers(firstStatus: Int) throws {
        var chain = RedirectChain(caller: Self.post(Self.a), sendsBodiesItself: true)
        let first = try #require(Self.sent(Self.hop(&chain, firstStatus, to: Self.b, current: Self.post(Self.a))))
        #expect(!first.again)
        #expect(first.request.httpMethod == "GET")

        // Foundation's proposal keeps whatever body its current request held; the chain decides.
        var current = first.request
        current.httpBody = Self.form
        let second = try #require(Self.sent(Self.hop(&chain, 307, to: Self.c, current: current)))

        #expect(!second.again, "a GET has no body to send again")
        #expect(second.request.httpMethod == "GET")
        #expect(second.request.httpBody == nil)
        #expect(chain.answered.httpMethod == "GET")
    }

    @Test("when a 302 answers a request with a body, should propose no body, as Linux sends none")
    func otherRedirectsSendNoBody() throws {
        var put = Self.post(Self.a)
        put.httpMethod = "PUT"
        var chain = RedirectChain(caller: put, sendsBodiesItself: true)

        let next = try #require(Self.sent(Self.hop(&chain, 302, to: Self.b, current: put)))

        #expect(!next.again)
        #expect(next.request.httpMethod == "PUT")
        #expect(next.request.httpBody == nil)
    }

    @Test("when 307s follow each other, should read a builder's stream again for each")
    func streamReadAgainAtEachHop() throws {
        let original = try BodyStreams.makeStream(
            from: BodyStreamSource(length: 4, makeStream: { InputStream(data: Data("body".utf8)) }))
        var caller = URLRequest(url: Self.a)
        caller.httpMethod = "POST"
        caller.httpBodyStream = original
        var chain = RedirectChain(caller: caller, sendsBodiesItself: true)

        let first = try #require(Self.sent(Self.hop(&chain, 307, to: Self.b, current: caller)))
        let second = try #require(Self.sent(Self.hop(&chain, 308, to: Self.c, current: first.request)))

        #expect(first.again && second.again)
        let firstStream = try #require(first.request.httpBodyStream)
        let secondStream = try #require(second.request.httpBodyStream)
        #expect(firstStream !== original && secondStream !== original && secondStream !== firstStream)
        #expect(chain.answered.httpBodyStream === original, "the next hop reads the builder's stream again")
        withExtendedLifetime(original) {}
    }

    @Test("when the body of a 307 is a stream read once, should fail, unless the policy sends something else")
    func oneShotStream() throws {
        var caller = URLRequest(url: Self.a)
        caller.httpMethod = "POST"
        caller.httpBodyStream = InputStream(data: Self.form)
        var chain = RedirectChain(caller: caller, sendsBodiesItself: true)
        var other = chain

        let failed = Self.hop(&chain, 307, to: Self.b, current: caller)
        let changed = Self.hop(&other, 307, to: Self.b, current: caller) { next in
            var get = next
            get.httpMethod = "GET"
            return get
        }

        guard case .failed(let error) = failed else {
            Issue.record("expected a failure, got \(failed)")
            return
        }
        #expect(error.code == .requestBodyStreamExhausted)
        let sent = try #require(Self.sent(changed))
        #expect(!sent.again && sent.request.httpMethod == "GET")
    }

    // MARK: What a policy returns

    @Test("when a policy changes the method and the body of a 307, should send what it returned")
    func policyChangesAreSent() throws {
        var chain = RedirectChain(caller: Self.post(Self.a), sendsBodiesItself: true)
        var other = chain

        let put = Self.hop(&chain, 307, to: Self.b, current: Self.post(Self.a)) { next in
            var changed = next
            changed.httpMethod = "PUT"
            changed.httpBody = Data("changed".utf8)
            return changed
        }
        let get = Self.hop(&other, 307, to: Self.b, current: Self.post(Self.a)) { next in
            var changed = next
            changed.httpMethod = "GET"
            changed.httpBody = nil
            return changed
        }

        let sentPut = try #require(Self.sent(put))
        let sentGet = try #require(Self.sent(get))
        #expect(sentPut.again && sentPut.request.httpMethod == "PUT")
        #expect(sentPut.request.httpBody == Data("changed".utf8))
        #expect(!sentGet.again && sentGet.request.httpMethod == "GET" && sentGet.request.httpBody == nil)
        #expect(other.answered.httpMethod == "GET")
    }

    // MARK: One limit, one origin

    @Test(
        "when a request is redirected again and again, should be past the limit at the 21st hop, however each was sent")
    func oneLimit() {
        var chain = RedirectChain(caller: Self.post(Self.a), sendsBodiesItself: true)

        for number in 1...RedirectChain.maximumHops {
            Self.hop(&chain, number.isMultiple(of: 2) ? 307 : 302, to: Self.a, current: chain.answered)
            #expect(!chain.isPastLimit, "hop \(number)")
        }
        chain.redirected()

        #expect(chain.hops == 21)
        #expect(chain.isPastLimit)
        #expect(RedirectChain.tooManyRedirects(url: Self.a).code == .httpTooManyRedirects)
    }

    @Test("when redirects are sent again in new tasks, should keep the caller's origin for the credential rules")
    func callersOrigin() throws {
        var chain = RedirectChain(caller: Self.post(Self.a), sendsBodiesItself: true)
        Self.hop(&chain, 307, to: Self.b, current: Self.post(Self.a))
        chain.redirected()
        var withToken = chain.proposal(after: 307, proposed: Self.post(Self.c)).request
        withToken.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")

        let stripped = CredentialHeaders.strippedForRedirect(withToken, from: chain.callerURL)

        #expect(chain.callerURL == Self.a)
        #expect(stripped.value(forHTTPHeaderField: "Authorization") == nil, "B to B is still away from A")
    }

    @Test("when the caller's URL has an uppercase scheme, should compare origins with it as sent, in lowercase")
    func callersOriginLowercased() {
        let chain = RedirectChain(caller: URLRequest(url: URL(string: "HTTP://127.0.0.1:8001/a")!))

        #expect(chain.callerURL?.absoluteString == "http://127.0.0.1:8001/a")
    }

    // MARK: Apple platforms

    @Test("when URLSession sends redirects itself (Apple), should leave its proposal and its limit alone")
    func appleUnchanged() throws {
        var chain = RedirectChain(caller: Self.post(Self.a), sendsBodiesItself: false)
        let foundation = Self.foundationProposal(after: 307, from: Self.post(Self.a), to: Self.b)

        let next = try #require(Self.sent(Self.hop(&chain, 307, to: Self.b, current: Self.post(Self.a))))
        for _ in 0..<100 { chain.redirected() }

        #expect(!next.again)
        #expect(next.request == foundation)
        #expect(!chain.isPastLimit)
    }
}
