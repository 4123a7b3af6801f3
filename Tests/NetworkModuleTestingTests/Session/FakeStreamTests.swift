import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streams through the test kit: the fake session's chunked stubs, and `FakeNetworkModule`'s
/// default (the body as one chunk).
@Suite("Fake streams")
struct FakeStreamTests {
    private let body = Data((0..<25).map { UInt8($0) })

    @Test("when a stub is chunked, should hand a stream its body in chunks of that size, in order")
    func chunkedStub() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 10))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session, completionExecutor: .immediate
        )
        let chunks = LockedState<[Data]>([])
        let ends = LockedState(0)

        module.stream(
            request: GetUser(id: 1), onChunk: { chunk in chunks.withLock { $0.append(chunk) } },
            completion: { _ in ends.withLock { $0 += 1 } })

        #expect(chunks.withLock { $0.map(\.count) } == [10, 10, 5])
        #expect(chunks.withLock { $0.reduce(Data(), +) } == body)
        #expect(ends.withLock { $0 } == 1)
    }

    @Test("when a chunked stub answers a request that does not stream, should answer with the body whole")
    func chunkedStubWithoutStream() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200, body: body).inChunks(of: 10))
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session, completionExecutor: .immediate
        )
        let data = LockedState<Data?>(nil)

        module.perform(request: GetUser(id: 1)) { result in data.withLock { $0 = try? result.get().data } }

        #expect(data.withLock { $0 } == body)
    }

    @Test("when FakeNetworkModule streams, should hand the stubbed body over as one chunk, then the empty response")
    func fakeModuleStreamsOneChunk() async throws {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .status(200, body: body))
        var chunks: [Data] = []

        for try await chunk in module.stream(request: GetUser(id: 1)) { chunks.append(chunk) }

        #expect(chunks == [body])
    }
}
