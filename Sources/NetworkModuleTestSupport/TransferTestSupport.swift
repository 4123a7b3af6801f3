import Foundation
import NetworkModuleCore

/// A folder of its own under the temporary directory, for one test's files; the test removes it
/// when it ends (`defer`), so that runs leave nothing behind.
package func makeTemporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("NetworkModuleTransfers-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// The names in `folder`, hidden ones (partial files) included, sorted.
package func fileNames(in folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// What the transfer suites against servers share besides their folders: the fault server's byte
/// pattern, and a condition awaited.
package enum TransferTestSupport {
    /// The partial files (`.download`) left in `folder`.
    package static func leftovers(in folder: URL) -> [String] {
        fileNames(in: folder).filter { $0.hasSuffix(".download") }
    }

    /// Waits, without blocking a thread, until `condition` holds (`true`) or `seconds` pass
    /// (`false`), looking every 10 ms.
    package static func waitUntil(within seconds: TimeInterval, _ condition: @Sendable () -> Bool) async -> Bool {
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
    package static func pattern(length: Int) -> Data {
        var data = Data((0..<251).map { UInt8($0) })
        while data.count < length { data.append(data) }
        return Data(data.prefix(max(0, length)))
    }

    /// Whether `data` is the fault server's pattern (byte i is i % 251) of exactly `length` bytes.
    package static func isPattern(_ data: Data, length: Int) -> Bool {
        data.count == length && data == pattern(length: length)
    }
}

/// Every progress report a handler heard, with when it came.
package final class ProgressLog: Sendable {
    private let entries = LockedState([(report: TransferProgress, at: UInt64)]())

    package init() {}

    package var handler: @Sendable (TransferProgress) -> Void {
        { report in
            let now = DispatchTime.now().uptimeNanoseconds
            self.entries.withLock { $0.append((report, now)) }
        }
    }

    package var reports: [TransferProgress] { entries.withLock { $0.map(\.report) } }
    package var times: [UInt64] { entries.withLock { $0.map(\.at) } }

    package func reports(isUpload: Bool) -> [TransferProgress] {
        reports.filter { $0.isUpload == isUpload }
    }
}

extension NetworkModule {
    /// Downloads `request` to `destination` and waits for its single result.
    package func downloadOutcome(
        of request: any NetworkRequest, to destination: DownloadDestination,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async -> Result<DownloadResponse, NetworkError> {
        await withCheckedContinuation { continuation in
            download(request: request, to: destination, progress: progress) { continuation.resume(returning: $0) }
        }
    }
}
