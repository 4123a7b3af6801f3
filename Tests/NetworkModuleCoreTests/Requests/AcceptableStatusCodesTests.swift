import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("AcceptableStatusCodes")
struct AcceptableStatusCodesTests {
    @Test(
        "when the codes are .successful, should accept exactly 200 to 299",
        arguments: [
            (199, false), (200, true), (204, true), (299, true), (300, false), (304, false), (404, false), (0, false),
        ])
    func successful(status: Int, accepted: Bool) {
        #expect(AcceptableStatusCodes.successful.contains(status) == accepted)
    }

    @Test(
        "when the codes are several ranges, should accept any code in any of them and nothing between",
        arguments: [(199, false), (200, true), (299, true), (300, false), (303, false), (304, true), (305, false)])
    func ranges(status: Int, accepted: Bool) {
        #expect(AcceptableStatusCodes(200..<300, 304..<305).contains(status) == accepted)
    }

    @Test(
        "when the codes are an array literal, should accept exactly those codes",
        arguments: [(200, true), (201, false), (303, false), (304, true), (305, false)])
    func arrayLiteral(status: Int, accepted: Bool) {
        let codes: AcceptableStatusCodes = [200, 304]
        #expect(codes.contains(status) == accepted)
    }

    @Test("when the codes are empty, should accept nothing")
    func empty() {
        let literal: AcceptableStatusCodes = []
        #expect(!literal.contains(200))
    }

    @Test("when the codes are the same ranges, should be equal; other ranges should not")
    func equality() {
        let single: AcceptableStatusCodes = [200]
        #expect(AcceptableStatusCodes.successful == AcceptableStatusCodes(200..<300))
        #expect(single == AcceptableStatusCodes(200..<201))
        #expect(AcceptableStatusCodes.successful != AcceptableStatusCodes(200..<400))
    }

    @Test("when the codes include Int.max or Int.min, should build without trapping and accept exactly those")
    func extremeCodes() {
        let codes: AcceptableStatusCodes = [Int.max, Int.min, 200]

        let accepted = [Int.max, Int.min, 200, Int.max - 1, Int.min + 1, 201].map(codes.contains)

        #expect(accepted == [true, true, true, false, false, false])
    }

    @Test("when a range is empty, should add nothing; when a range is huge, should accept all of it")
    func emptyAndHugeRanges() {
        let codes = AcceptableStatusCodes(500..<500, Int.min..<0, 0..<Int.max)

        #expect(!AcceptableStatusCodes(500..<500).contains(500))
        #expect(codes.contains(Int.min) && codes.contains(-1) && codes.contains(Int.max - 1))
        #expect(!codes.contains(Int.max))
        #expect(codes == AcceptableStatusCodes(Int.min..<Int.max))
    }

    @Test("when the same codes are written differently, should be equal and hash alike")
    func equalityBySet() {
        let literal: AcceptableStatusCodes = [201, 200, 200, 202]
        let empty: AcceptableStatusCodes = []

        #expect(literal == AcceptableStatusCodes(200..<203))
        #expect(literal.hashValue == AcceptableStatusCodes(200..<203).hashValue)
        #expect(AcceptableStatusCodes(300..<400, 200..<300) == AcceptableStatusCodes(200..<400))
        #expect(empty == AcceptableStatusCodes(7..<7))
        #expect(literal != AcceptableStatusCodes(200..<204))
    }

    // MARK: - The module's default

    @Test("when a request keeps the default codes, should be .moduleDefault, which alone accepts like .successful")
    func moduleDefault() {
        struct Plain: NetworkRequest { var path: String { "/" } }

        let codes = Plain().acceptableStatusCodes

        #expect(codes == .moduleDefault)
        #expect(codes != .successful)
        #expect(codes.contains(200) && codes.contains(299))
        #expect(!codes.contains(199) && !codes.contains(300))
    }

    @Test("when a module is created with acceptable codes, should apply them to requests that keep the default")
    func moduleWideCodes() {
        struct Plain: NetworkRequest { var path: String { "/redirect" } }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(302))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: URL(string: "https://api.example.com")!), session: session,
            completionExecutor: .immediate, acceptableStatusCodes: AcceptableStatusCodes(200..<400))
        let described = ResultCollector<NetworkResponse>()
        let built = ResultCollector<NetworkResponse>()
        let strict = ResultCollector<NetworkResponse>()

        module.perform(request: Plain(), completion: described.completion)
        module.perform(
            urlRequest: URLRequest(url: URL(string: "https://api.example.com/redirect")!), completion: built.completion)
        module.perform(request: TestRequest(acceptableStatusCodes: .successful), completion: strict.completion)

        #expect(described.singleValue?.statusCode == 302)
        #expect(built.singleValue?.statusCode == 302)
        #expect(strict.singleError?.statusCode == 302)
    }

    @Test(
        "when a module is created without acceptable codes, should accept only 2xx for requests that keep the default")
    func moduleDefaultIsSuccessful() {
        struct Plain: NetworkRequest { var path: String { "/redirect" } }
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(302))
        let results = ResultCollector<NetworkResponse>()

        makeModule(session: session).perform(request: Plain(), completion: results.completion)

        #expect(results.singleError?.statusCode == 302)
    }
}
