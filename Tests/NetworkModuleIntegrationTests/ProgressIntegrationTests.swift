import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Progress on the wire, through `DefaultNetworkModule` and `URLSessionTransport` (issue 16,
/// item 1): reports as the bytes move, bounded in rate, the last one complete.
@Suite("Integration: transfer progress", .integration)
struct ProgressIntegrationTests {
    /// 80 chunks of 50,000 bytes, 25 ms apart: 4 MB over about two seconds, long enough that a
    /// loaded machine holding the server or the client back for a few hundred milliseconds (one
    /// run of the suite got its body in three bursts over one second) still leaves several reports.
    static let trickle = Endpoint(
        path: "/trickle",
        queryItems: [
            URLQueryItem(name: "chunks", value: "80"), URLQueryItem(name: "interval_ms", value: "25"),
            URLQueryItem(name: "chunk_bytes", value: "50000"),
        ])

    @Test("when a download streams in, should report as it arrives, at most about 60 a second, the last complete")
    func downloadProgress() async throws {
        // Reports delivered where the transport makes them: on a loaded machine, a Dispatch pool
        // kept busy would hold back reports that the end then drops (none may follow the result).
        let module = IntegrationServers.module(baseURL: try IntegrationServers.faultServer(), executor: .immediate)
        let progress = ProgressLog()
        let start = DispatchTime.now().uptimeNanoseconds

        let (result, end) = await withCheckedContinuation { continuation in
            module.perform(request: Self.trickle, progress: progress.handler) { result in
                continuation.resume(returning: (result, DispatchTime.now().uptimeNanoseconds))
            }
        }

        #expect(try result.get().data.count == 4_000_000)
        let reports = progress.reports(isUpload: false)
        #expect(
            reports.last == TransferProgress(isUpload: false, completedBytes: 4_000_000, expectedBytes: 4_000_000))
        // Reported while the body arrived, not only once at the end (the in-memory default).
        let partial = reports.filter { $0.completedBytes > 0 && $0.completedBytes < 4_000_000 }
        #expect(partial.count >= 3, "\(reports)")
        #expect(partial.allSatisfy { $0.expectedBytes == 4_000_000 }, "\(reports)")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }, "\(reports)")
        let seconds = Double(end - start) / 1e9
        #expect(Double(reports.count) <= 60 * seconds + 3, "\(reports.count) reports in \(seconds) s")
    }

    @Test("when a POST sends a body, should report the upload up to the body's length")
    func uploadProgress() async throws {
        let module = IntegrationServers.module(baseURL: try IntegrationServers.httpbin())
        let body = Data(repeating: 0x61, count: 1_000_000)
        let progress = ProgressLog()
        let post = Endpoint(path: "/post", method: .post, body: .data(body, contentType: "application/octet-stream"))

        let result = await withCheckedContinuation { continuation in
            module.perform(request: post, progress: progress.handler) { continuation.resume(returning: $0) }
        }

        _ = try result.get()
        let uploads = progress.reports(isUpload: true)
        #expect(
            uploads.last == TransferProgress(isUpload: true, completedBytes: 1_000_000, expectedBytes: 1_000_000))
        #expect(uploads.allSatisfy { $0.expectedBytes == 1_000_000 }, "\(uploads)")
    }
}
