import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the transfer suites share: a folder of their own per test, the fault server's byte
/// pattern, and the module's transfer calls awaited.
enum TransferTestSupport {
    /// A new, empty folder under the temporary directory.
    static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("network-module-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The names in `folder`, hidden partial files included.
    static func contents(of folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// The partial files (`.download`) left in `folder`.
    static func leftovers(in folder: URL) -> [String] {
        contents(of: folder).filter { $0.hasSuffix(".download") }
    }

    /// Waits, without blocking a thread, until `condition` holds (`true`) or `seconds` pass
    /// (`false`), looking every 10 ms.
    static func waitUntil(within seconds: TimeInterval, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() >= deadline { return false }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return true
    }

    /// The fault server's pattern (byte i is i % 251), `length` bytes long.
    ///
    /// Made by doubling one period, so that megabytes cost a few copies: a loop or a `map` over
    /// each byte takes seconds in a debug build, on the cooperative threads every other test of
    /// the process needs, and their timeouts then fire late.
    static func pattern(length: Int) -> Data {
        var data = Data((0..<251).map { UInt8($0) })
        while data.count < length { data.append(data) }
        return Data(data.prefix(max(0, length)))
    }

    /// Whether `data` is the fault server's pattern (byte i is i % 251) of exactly `length` bytes.
    static func isPattern(_ data: Data, length: Int) -> Bool {
        data.count == length && data == pattern(length: length)
    }
}

/// Every progress report a handler heard, with when it came.
final class ProgressLog: Sendable {
    private let entries = LockedState([(report: TransferProgress, at: UInt64)]())

    var handler: @Sendable (TransferProgress) -> Void {
        { report in
            let now = DispatchTime.now().uptimeNanoseconds
            self.entries.withLock { $0.append((report, now)) }
        }
    }

    var reports: [TransferProgress] { entries.withLock { $0.map(\.report) } }
    var times: [UInt64] { entries.withLock { $0.map(\.at) } }

    func reports(isUpload: Bool) -> [TransferProgress] {
        reports.filter { $0.isUpload == isUpload }
    }
}

extension NetworkModule {
    /// Downloads `request` to `destination` and waits for its single result.
    func downloadOutcome(
        of request: any NetworkRequest, to destination: DownloadDestination,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async -> Result<DownloadResponse, NetworkError> {
        await withCheckedContinuation { continuation in
            download(request: request, to: destination, progress: progress) { continuation.resume(returning: $0) }
        }
    }
}
