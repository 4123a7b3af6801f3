import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 39, item 8 on Apple's path: `needNewBodyStream` for a task whose body is a later
/// attempt's stream (a retry of a caller's `URLRequest` that the request builder made).
@Suite("Transport body streams: retried URLRequests")
struct TransportBodyStreamAttackTests {
    @Test("when needNewBodyStream comes for a retry's fresh stream of a builder-made body, should hand a fresh stream")
    func needNewBodyStreamForRetriedStream() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("retry-\(UUID().uuidString)")
        try Data("the file's bytes".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var original = URLRequest(url: URL(string: "http://127.0.0.1:9/retried")!)
        original.httpMethod = "PUT"
        let builderStream = try BodyStreams.makeStream(from: BodyStreamSource.file(file))
        original.httpBodyStream = builderStream
        defer { BodyStreams.release(builderStream) }
        // Attempt 2 of perform(urlRequest:): RequestOperation gives the request a fresh stream.
        var retried = original
        retried.httpBodyStream = BodyStreams.freshStream(replacing: builderStream)
        #expect(retried.httpBodyStream != nil)
        let transport = URLSessionTransport()
        let task = transport.urlSession.dataTask(with: retried)
        let done = LockedState(0)
        transport.delegate.register(
            task, request: retried,
            completionHandler: { _, _, _ in done.withLock { $0 += 1 } })
        let stream = LockedState<InputStream??>(nil)

        // A 307, a 401 or a stale connection: URLSession asks for the body again.
        transport.delegate.urlSession(transport.urlSession, task: task) { given in stream.withLock { $0 = given } }

        let given = stream.withLock { $0 } ?? nil
        let fresh = try #require(given, "needNewBodyStream answered nil: requestBodyStreamExhausted")
        fresh.open()
        defer { fresh.close() }
        var buffer = [UInt8](repeating: 0, count: 64)
        let read = fresh.read(&buffer, maxLength: buffer.count)
        #expect(Data(buffer.prefix(max(read, 0))) == Data("the file's bytes".utf8))
        transport.delegate.urlSession(transport.urlSession, task: task, didCompleteWithError: URLError(.cancelled))
    }
}
