import Foundation

// network-module-benchmarks: what the framework costs next to the transport.
// Build in release: `swift run -c release network-module-benchmarks`; scripts/bench.sh starts
// nginx and passes --base-url. Nothing here asserts a time: it measures and reports.

let options: BenchmarkOptions
do {
    options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch let error as BenchmarkOptions.UsageError {
    if let message = error.message { FileHandle.standardError.write(Data("error: \(message)\n".utf8)) }
    print(BenchmarkOptions.usage)
    exit(error.message == nil ? 0 : 2)
}

#if DEBUG
    FileHandle.standardError.write(Data("warning: a debug build measures nothing useful; use -c release\n".utf8))
#endif

if let side = options.downloadChild, let baseURL = options.baseURL {
    DownloadBenchmark.runChild(side, baseURL: baseURL, path: options.downloadPath)
}

if let side = options.profileSide {
    guard let baseURL = options.baseURL else {
        FileHandle.standardError.write(Data("error: --profile needs --base-url\n".utf8))
        exit(2)
    }
    let failures = LoopbackBenchmarks(options: options, baseURL: baseURL).profile(side, path: options.profilePath)
    print("\(options.loopbackRequests) requests on \(side.rawValue), \(failures) failed")
    exit(failures == 0 ? 0 : 1)
}

var report = BenchmarkReport(
    machine: "\(ProcessInfo.processInfo.activeProcessorCount) cores, "
        + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
)
do {
    if options.modes.contains(.pipeline) { report.pipeline = try PipelineBenchmarks(options: options).run() }
    if let baseURL = options.baseURL {
        if options.modes.contains(.loopback) {
            report.loopback = LoopbackBenchmarks(options: options, baseURL: baseURL).run()
        }
        if options.modes.contains(.soak) { report.soak = SoakBenchmark(options: options, baseURL: baseURL).run() }
        if options.modes.contains(.headOfLine) {
            report.headOfLine = HeadOfLineBenchmark(options: options, baseURL: baseURL).run()
        }
        if options.modes.contains(.download) {
            report.download = try DownloadBenchmark(options: options, baseURL: baseURL).run()
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}

if options.json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: (try? encoder.encode(report)) ?? Data(), as: UTF8.self))
} else {
    report.printTables()
}
let failures =
    (report.loopback ?? []).flatMap { [$0.raw.failures] + $0.compared.map(\.side.failures) }.reduce(0, +)
    + (report.soak?.failures ?? 0)
    + (report.download.map { $0.raw.failures + $0.module.failures } ?? 0)
exit(failures == 0 ? 0 : 1)
