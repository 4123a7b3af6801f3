import Foundation

/// Command-line options of `network-module-benchmarks`.
struct BenchmarkOptions {
    enum Mode: String, CaseIterable {
        case pipeline, loopback, soak
        case headOfLine = "head-of-line"
        case download
    }

    /// The modes run when none is named: download mode needs a 1 GB file, so only by name.
    var modes: [Mode] = Mode.allCases.filter { $0 != .download }
    var baseURL: URL?
    var json = false
    var pipelineIterations = 20_000
    var rounds = 7
    var loopbackRequests = 20_000
    var pairs = 5
    var soakRequests = 200_000
    var soakSampleEvery = 10_000
    /// Small requests timed in each head-of-line case.
    var headOfLineSamples = 1_000
    /// Runs only the pipeline cases whose name contains this text (for profiling one case).
    var caseFilter: String?
    /// Loopback mode: sends requests on this side only, measuring nothing (for a profiler).
    var profileSide: ProfileSide?
    /// The path `--profile` requests.
    var profilePath = "/users/42.json?fields=name%2Cemail"
    /// The requests `--profile` keeps in flight.
    var profileInFlight = 4
    /// Download mode: the file downloaded (scripts/bench.sh makes a 1 GB `/huge.bin`).
    var downloadPath = "/huge.bin"
    /// Download mode, in a child process the harness started: download once on this side.
    var downloadChild: DownloadSide?

    /// The sides of download mode.
    enum DownloadSide: String, CaseIterable, Codable {
        /// `URLSession.downloadTask`.
        case raw
        /// `DefaultNetworkModule.download` on `URLSessionTransport`.
        case module
    }

    /// The sides of loopback mode.
    enum ProfileSide: String, CaseIterable {
        /// Raw `URLSession`.
        case raw
        /// `DefaultNetworkModule` on a plain `URLSession`.
        case module
        /// `DefaultNetworkModule` on `URLSessionTransport`.
        case transport
    }

    static let usage = """
        usage: network-module-benchmarks [--mode pipeline|loopback|soak|head-of-line|download]... [--base-url URL] [--quick] [--json]
          --mode M          run only mode M (repeatable); default: every mode but download (all
                            but pipeline need --base-url)
          --base-url URL    the nginx started by scripts/bench.sh (serves benchmarks/nginx)
          --quick           tiny sizes: a smoke test that the harness works, not a measurement
          --json            print the results as JSON instead of tables
          --requests N      requests per loopback run (default 20000)
          --pairs N         alternating raw/module runs (default 5)
          --soak N          requests in the soak (default 200000)
          --samples N       small requests timed per head-of-line case (default 1000)
          --case TEXT       pipeline mode: only the cases whose name contains TEXT (for profiling)
          --iterations N    pipeline mode: requests per round (default 20000; profiling runs two
                            counts and subtracts, so one-time costs cancel out)
          --profile SIDE    loopback mode, for a profiler: --requests N requests on one side only
                            (raw, module or transport), nothing measured
          --path PATH       the path --profile requests (default the ~400-byte JSON)
          --in-flight N     the requests --profile keeps in flight (default 4)
          --download-path PATH
                            download mode: the file downloaded, --pairs times on each side, each
                            run in a child process (default /huge.bin, 1 GB from scripts/bench.sh)
        """

    static func parse(_ arguments: [String]) throws -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var chosenModes: [Mode] = []
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
            return value
        }
        func number(for flag: String) throws -> Int {
            guard let number = Int(try value(for: flag)), number > 0 else {
                throw UsageError("\(flag) needs a positive number")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--mode":
                let name = try value(for: argument)
                guard let mode = Mode(rawValue: name) else { throw UsageError("unknown mode \(name)") }
                chosenModes.append(mode)
            case "--base-url":
                let text = try value(for: argument)
                guard let url = URL(string: text), url.host != nil else {
                    throw UsageError("--base-url needs an absolute URL")
                }
                options.baseURL = url
            case "--quick":
                options.pipelineIterations = 500
                options.rounds = 3
                options.loopbackRequests = 200
                options.pairs = 1
                options.soakRequests = 2_000
                options.soakSampleEvery = 500
                options.headOfLineSamples = 50
            case "--json": options.json = true
            case "--requests": options.loopbackRequests = try number(for: argument)
            case "--pairs": options.pairs = try number(for: argument)
            case "--soak":
                options.soakRequests = try number(for: argument)
                options.soakSampleEvery = max(1, options.soakRequests / 20)
            case "--case": options.caseFilter = try value(for: argument)
            case "--iterations": options.pipelineIterations = try number(for: argument)
            case "--profile":
                let name = try value(for: argument)
                guard let side = ProfileSide(rawValue: name) else { throw UsageError("unknown side \(name)") }
                options.profileSide = side
            case "--path": options.profilePath = try value(for: argument)
            case "--in-flight": options.profileInFlight = try number(for: argument)
            case "--download-path": options.downloadPath = try value(for: argument)
            case "--download-child":
                let name = try value(for: argument)
                guard let side = DownloadSide(rawValue: name) else { throw UsageError("unknown side \(name)") }
                options.downloadChild = side
            case "--samples": options.headOfLineSamples = try number(for: argument)
            case "-h", "--help": throw UsageError(nil)
            default: throw UsageError("unknown argument \(argument)")
            }
        }
        if !chosenModes.isEmpty { options.modes = chosenModes }
        if options.baseURL == nil && options.modes.contains(where: { $0 != .pipeline }) {
            if chosenModes.isEmpty {
                options.modes = [.pipeline]
            } else {
                throw UsageError(
                    "loopback, soak, head-of-line and download modes need --base-url (scripts/bench.sh starts nginx)")
            }
        }
        return options
    }

    struct UsageError: Error {
        let message: String?
        init(_ message: String?) { self.message = message }
    }
}
