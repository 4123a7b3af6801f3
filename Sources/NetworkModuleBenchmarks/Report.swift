import Foundation

/// Everything one run of the harness measured.
struct BenchmarkReport: Codable {
    var machine: String
    var pipeline: [PipelineBenchmarks.Case]?
    var loopback: [LoopbackBenchmarks.Comparison]?
    var soak: SoakBenchmark.Result?
    var headOfLine: [HeadOfLineBenchmark.Case]?
    var download: DownloadBenchmark.Result?

    func printTables() {
        print("Machine: \(machine)")
        if let pipeline {
            print("\nPipeline mode (no network; immediate executor; ns per request, median of rounds)")
            printTable(
                header: ["case", "ns/request", "spread", "overhead"],
                rows: pipeline.map { item in
                    [
                        item.name, format(item.nanosecondsPerRequest.median, decimals: 0),
                        "±" + format(item.nanosecondsPerRequest.spreadPercent, decimals: 1) + "%",
                        item.overheadNanoseconds.map { "\(format($0, decimals: 0)) ns vs \(item.baseline ?? "")" }
                            ?? "",
                    ]
                })
        }
        if let loopback {
            print(
                "\nLoopback mode (nginx on 127.0.0.1; medians of runs; ratio and \"over raw\" = median of per-pair differences;"
                    + " ctx sw = context switches of the process, voluntary + involuntary)"
            )
            var rows: [[String]] = []
            for comparison in loopback {
                let raw = comparison.raw
                rows.append(
                    [comparison.name, "\(comparison.inFlight)", "raw URLSession"] + sideCells(raw) + [
                        "", "", "", "\(raw.failures)",
                    ])
                for module in comparison.compared {
                    rows.append(
                        [comparison.name, "\(comparison.inFlight)", module.name]
                            + sideCells(module.side) + [
                                format(module.ratio.median, decimals: 3) + " ("
                                    + format(module.ratio.minimum, decimals: 3)
                                    + "–" + format(module.ratio.maximum, decimals: 3) + ")",
                                signed(module.cpuMicrosecondsOverRaw.median, decimals: 0),
                                signed(module.contextSwitchesOverRaw.median, decimals: 1),
                                "\(module.side.failures)",
                            ])
                }
            }
            printTable(
                header: [
                    "case", "in flight", "side", "req/s", "CPU µs/req", "ctx sw/req (vol)", "peak RSS MB",
                    "ratio (min–max)", "CPU µs over raw", "ctx sw over raw", "failures",
                ],
                rows: rows)
        }
        if let soak {
            print("\nSoak mode (\(soak.requests) requests through the module, \(soak.inFlight) in flight)")
            print("  \(format(Double(soak.requests) / soak.seconds, decimals: 0)) req/s, \(soak.failures) failures")
            print(
                "  resident MB every \(soak.sampleEvery) requests: "
                    + soak.residentMegabytes.map { format($0, decimals: 1) }.joined(separator: " "))
            print(
                "  growth after warm-up (last vs second sample): \(format(soak.growthAfterWarmUpPercent, decimals: 1))%"
            )
        }
        if let headOfLine { printHeadOfLine(headOfLine) }
        if let download { printDownload(download) }
    }

    private func printDownload(_ result: DownloadBenchmark.Result) {
        print(
            "\nDownload mode (\(result.path), \(result.bytes) bytes to a file, \(result.runsPerSide) runs a side, "
                + "each in a child process; MB/s median; ratio = median of per-pair module/raw throughput)")
        let rows = [
            ("raw URLSession.downloadTask", result.raw), ("module.download on URLSessionTransport", result.module),
        ]
        printTable(
            header: ["side", "MB/s", "min–max", "peak RSS growth MB", "failures"],
            rows: rows.map { name, side in
                [
                    name, format(side.megabytesPerSecond.median, decimals: 0),
                    format(side.megabytesPerSecond.minimum, decimals: 0) + "–"
                        + format(side.megabytesPerSecond.maximum, decimals: 0),
                    format(side.peakGrowthMegabytes, decimals: 1), "\(side.failures)",
                ]
            })
        print(
            "  throughput ratio module/raw: \(format(result.ratio.median, decimals: 3)) "
                + "(\(format(result.ratio.minimum, decimals: 3))–\(format(result.ratio.maximum, decimals: 3)))")
    }

    private func printHeadOfLine(_ cases: [HeadOfLineBenchmark.Case]) {
        print("\nHead-of-line mode (small requests one at a time on a module; latency in ms; ratio = over alone)")
        printTable(
            header: ["case", "samples", "p50 ms", "p99 ms", "p50 ratio", "p99 ratio", "busy requests done"],
            rows: cases.map { item in
                [
                    item.name, "\(item.samples)", format(item.p50Milliseconds, decimals: 2),
                    format(item.p99Milliseconds, decimals: 2), item.p50Ratio.map { format($0, decimals: 2) } ?? "",
                    item.p99Ratio.map { format($0, decimals: 2) } ?? "", "\(item.busyRequestsCompleted)",
                ]
            })
    }

    private func printTable(header: [String], rows: [[String]]) {
        let widths = header.indices.map { column in
            ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        print(line(header))
        print(line(widths.map { String(repeating: "-", count: $0) }))
        for row in rows { print(line(row)) }
    }

    private func format(_ value: Double, decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    private func signed(_ value: Double, decimals: Int) -> String {
        (value >= 0 ? "+" : "") + format(value, decimals: decimals)
    }

    /// A loopback side's throughput, CPU, context switches and memory.
    private func sideCells(_ side: LoopbackBenchmarks.Side) -> [String] {
        [
            format(side.requestsPerSecond.median, decimals: 0),
            format(side.cpuMicrosecondsPerRequest.median, decimals: 0),
            format(side.contextSwitchesPerRequest.median, decimals: 1) + " ("
                + format(side.voluntarySwitchesPerRequest.median, decimals: 1) + ")",
            format(side.peakResidentMegabytes, decimals: 1),
        ]
    }
}
