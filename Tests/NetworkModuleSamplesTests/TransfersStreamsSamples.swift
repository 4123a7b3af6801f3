import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples of docs/transfers.md, "Streaming a response".
@Suite("Transfers samples: streams")
struct TransfersStreamsSamples {
    typealias GetExport = TransfersSamples.GetExport

    static let export = Data((0..<10_000).map { UInt8($0 % 251) })

    static func module() -> (DefaultNetworkModule, FakeNetworkSession) {
        let session = FakeNetworkSession()
        // sample: transfers-stream-testing
        session.stub(.path("/v2/exports/7"), with: .status(200, body: export).inChunks(of: 1_000))
        // end-sample
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL), session: session,
            completionExecutor: .immediate)
        return (module, session)
    }

    @Test("when streamed with callbacks, should hand over every chunk, then the end")
    func callbacks() {
        let (module, _) = Self.module()
        let received = LockedState(Data())
        let outcome = LockedState<Result<NetworkResponse, NetworkError>?>(nil)

        // sample: transfers-stream-callbacks
        let task = module.stream(
            request: GetExport(id: 7),
            onChunk: { chunk in received.withLock { $0.append(chunk) } },  // on the completion executor
            completion: { result in outcome.withLock { $0 = result } })  // once, after the last chunk
        // end-sample
        _ = task

        #expect(received.withLock { $0 } == Self.export)
        #expect(outcome.withLock { $0 }.map { if case .success(let response) = $0 { response.data.isEmpty } else { false } } == true)
    }

    @Test("when streamed with for try await, should yield every chunk in order")
    func asyncSequence() async throws {
        let (module, _) = Self.module()

        let lines = try await Transcript.recording {
            // sample: transfers-stream-async
            let stream = module.stream(request: GetExport(id: 7), bufferSize: 64 * 1024)
            print("status", try await stream.response.statusCode)
            var total = 0
            for try await chunk in stream { total += chunk.count }  // a slow loop pauses the download at 64 KiB
            print("received", total, "bytes")
            // end-sample
        }

        #expect(lines == ["status 200", "received 10000 bytes"])
    }
}
