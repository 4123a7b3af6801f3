import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Download mode: a large file served by nginx on loopback (1 GB from scripts/bench.sh),
/// downloaded to a file by `DefaultNetworkModule.download` on `URLSessionTransport` and by a raw
/// `URLSession.downloadTask`, in alternating runs. Each run is a child process of its own, so
/// that its resident memory starts from the same place and no run inherits another's peak:
/// the child downloads the 1 MB file once on its side, reads its start, then samples its
/// resident memory every 5 ms through the large download and reports the peak above the start.
struct DownloadBenchmark {
    let options: BenchmarkOptions
    let baseURL: URL

    /// One download, as a child reports it.
    struct Run: Codable {
        let seconds: Double
        let bytes: Int64
        let peakGrowthMegabytes: Double
        let failed: Bool
    }

    struct Side: Codable {
        let megabytesPerSecond: Summary
        /// The largest peak resident growth of the side's runs, in MB.
        let peakGrowthMegabytes: Double
        let failures: Int
    }

    struct Result: Codable {
        let path: String
        let bytes: Int64
        let runsPerSide: Int
        let raw: Side
        let module: Side
        /// Module throughput over raw throughput, per pair of neighbouring runs.
        let ratio: Summary
    }

    func run() throws -> Result {
        var raw: [Run] = []
        var module: [Run] = []
        var ratios: [Double] = []
        for pair in 0..<options.pairs {
            // A B, then B A: neither side always runs on a cache the other warmed.
            let order: [BenchmarkOptions.DownloadSide] = pair % 2 == 0 ? [.raw, .module] : [.module, .raw]
            var runs: [BenchmarkOptions.DownloadSide: Run] = [:]
            for side in order {
                let run = try child(side)
                runs[side] = run
                FileHandle.standardError.write(
                    Data(
                        ("download \(side.rawValue): \(run.bytes) bytes in \(String(format: "%.2f", run.seconds)) s, "
                            + "peak +\(String(format: "%.1f", run.peakGrowthMegabytes)) MB\(run.failed ? ", FAILED" : "")\n")
                            .utf8))
            }
            if let rawRun = runs[.raw], let moduleRun = runs[.module] {
                raw.append(rawRun)
                module.append(moduleRun)
                if !rawRun.failed, !moduleRun.failed { ratios.append(rawRun.seconds / moduleRun.seconds) }
            }
        }
        func side(_ runs: [Run]) -> Side {
            let succeeded = runs.filter { !$0.failed }
            return Side(
                megabytesPerSecond: Summary(succeeded.map { Double($0.bytes) / 1e6 / $0.seconds }),
                peakGrowthMegabytes: runs.map(\.peakGrowthMegabytes).max() ?? 0,
                failures: runs.count - succeeded.count)
        }
        return Result(
            path: options.downloadPath, bytes: raw.first?.bytes ?? 0, runsPerSide: raw.count, raw: side(raw),
            module: side(module), ratio: Summary(ratios))
    }

    /// Runs one download of `side` in a child process and reads its report.
    private func child(_ side: BenchmarkOptions.DownloadSide) throws -> Run {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            // No child processes there; the download mode runs on Linux or a Mac.
            throw CocoaError(.featureUnsupported)
        #else
            return try childProcessRun(side)
        #endif
    }

    #if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
        private func childProcessRun(_ side: BenchmarkOptions.DownloadSide) throws -> Run {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = [
                "--base-url", baseURL.absoluteString, "--download-path", options.downloadPath, "--download-child",
                side.rawValue,
            ]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return try JSONDecoder().decode(Run.self, from: data)
        }
    #endif

    /// In the child: downloads the file once on `side` and prints its ``Run`` as JSON.
    static func runChild(_ side: BenchmarkOptions.DownloadSide, baseURL: URL, path: String) -> Never {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nm-bench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("download.bin")
        let configuration = URLSessionConfiguration.ephemeral

        // Everything is set up before the start is read: the sessions, the module, the folder.
        let rawSession = URLSession(configuration: configuration)
        let transport = URLSessionTransport(configuration: configuration, maximumResponseSize: nil)
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: baseURL), session: transport, completionExecutor: .immediate)
        // One small download first on the same side, then the measured one: the start is read
        // after the first request has loaded what any first request loads (libcurl's state, code
        // pages, threads), so the growth is what the large download adds, not one-time set-up.
        let warmedUp = download(
            side, path: "/large.bin", baseURL: baseURL, to: destination, module: module, rawSession: rawSession)
        try? FileManager.default.removeItem(at: destination)
        let start = ResourceUsage.residentBytes()
        let sampler = PeakMemorySampler()
        let began = nowNanoseconds()
        let failed =
            !warmedUp
            || !download(
                side, path: path, baseURL: baseURL, to: destination, module: module, rawSession: rawSession)
        let seconds = Double(nowNanoseconds() - began) / 1e9
        let peak = sampler.stop()
        let attributes = try? FileManager.default.attributesOfItem(atPath: destination.path)
        let run = Run(
            seconds: seconds, bytes: (attributes?[.size] as? NSNumber)?.int64Value ?? 0,
            peakGrowthMegabytes: Double(max(0, peak - start)) / 1e6, failed: failed)
        print(String(decoding: (try? JSONEncoder().encode(run)) ?? Data(), as: UTF8.self))
        try? FileManager.default.removeItem(at: folder)
        exit(run.failed ? 1 : 0)
    }
}

extension DownloadBenchmark {
    /// Downloads `path` to `destination` on `side` and waits: `true` when the file is in place.
    fileprivate static func download(
        _ side: BenchmarkOptions.DownloadSide, path: String, baseURL: URL, to destination: URL,
        module: DefaultNetworkModule,
        rawSession: URLSession
    ) -> Bool {
        let url = URL(string: baseURL.absoluteString + path) ?? baseURL
        let done = DispatchSemaphore(value: 0)
        let failed = LockedState(false)
        switch side {
        case .raw:
            rawSession.downloadTask(with: url) { location, response, error in
                // The file is deleted when this returns: moved into place, as the module does.
                if let location, error == nil, (response as? HTTPURLResponse)?.statusCode == 200 {
                    do {
                        try FileManager.default.moveItem(at: location, to: destination)
                    } catch {
                        failed.withLock { $0 = true }
                    }
                } else {
                    failed.withLock { $0 = true }
                }
                done.signal()
            }.resume()
        case .module:
            module.download(request: DownloadPath(path: path), to: DownloadDestination(destination)) { result in
                if case .failure = result { failed.withLock { $0 = true } }
                done.signal()
            }
        }
        done.wait()
        return !failed.withLock { $0 }
    }
}

/// A `GET` of a path on the benchmark's server.
private struct DownloadPath: NetworkRequest {
    let path: String
}
