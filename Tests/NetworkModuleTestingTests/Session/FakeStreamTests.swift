import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streams through the test kit: the fake session's chunked stubs, on a module and on
/// `FakeNetworkModule`.
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

    @Test("when FakeNetworkModule streams a chunked stub, should hand it over in those chunks, as the real module does")
    func fakeModuleStreamsChunks() async throws {
        let module = FakeNetworkModule()
        module.stub(GetUser.self, with: .status(200, body: body).inChunks(of: 10))
        let handed = LockedState<[Data]>([])
        let responses = LockedState<[Int]>([])
        var iterated: [Data] = []

        module.stream(
            request: GetUser(id: 1), onChunk: { chunk in handed.withLock { $0.append(chunk) } },
            completion: { result in responses.withLock { $0.append((try? result.get().data.count) ?? -1) } })
        for try await chunk in module.stream(request: GetUser(id: 2)) { iterated.append(chunk) }

        #expect(handed.withLock { $0.map(\.count) } == [10, 10, 5])
        #expect(responses.withLock { $0 } == [0])
        #expect(iterated.map(\.count) == [10, 10, 5])
        #expect(iterated.reduce(Data(), +) == body)
        #expect(module.performed(GetUser.self).map(\.id) == [1, 2])
    }
}
