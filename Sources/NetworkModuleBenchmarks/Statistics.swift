import Foundation

/// Summary statistics of repeated measurements.
struct Summary: Codable {
    let median: Double
    let minimum: Double
    let maximum: Double
    let samples: Int

    init(_ values: [Double]) {
        let sorted = values.sorted()
        samples = sorted.count
        minimum = sorted.first ?? 0
        maximum = sorted.last ?? 0
        if sorted.isEmpty {
            median = 0
        } else if sorted.count % 2 == 1 {
            median = sorted[sorted.count / 2]
        } else {
            median = (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
    }

    /// Half the range, relative to the median, in percent: how much the rounds disagreed.
    var spreadPercent: Double {
        median == 0 ? 0 : (maximum - minimum) / 2 / median * 100
    }
}

/// A monotonic clock in nanoseconds.
@inline(__always)
func nowNanoseconds() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// Process resource readings from /proc and getrusage.
enum ResourceUsage {
    /// Resident memory in bytes (Linux: /proc/self/statm; elsewhere 0).
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// User plus system CPU time of the process, in seconds.
    static func cpuSeconds() -> Double {
        Snapshot().cpuSeconds
    }

    /// What `getrusage(RUSAGE_SELF)` reports for the whole process (every thread) at one moment.
    struct Snapshot {
        /// User plus system CPU time, in seconds.
        let cpuSeconds: Double
        /// Times a thread gave up the CPU to wait (a futex, a socket, a sleep): each is a thread
        /// hand-off or a wait that a later event ends with a wake-up.
        let voluntarySwitches: Int
        /// Times the scheduler took the CPU from a thread that could have run on.
        let involuntarySwitches: Int

        init() {
            var usage = rusage()
            #if os(Linux)
                getrusage(RUSAGE_SELF.rawValue, &usage)
            #else
                getrusage(RUSAGE_SELF, &usage)
            #endif
            let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
            cpuSeconds = user + system
            voluntarySwitches = Int(usage.ru_nvcsw)
            involuntarySwitches = Int(usage.ru_nivcsw)
        }
    }
}

/// Samples resident memory on a background thread and keeps the peak.
final class PeakMemorySampler: @unchecked Sendable {
    // @unchecked Sendable is safe: `peak` and `running` are only touched under `lock`.
    private let lock = NSLock()
    private var peak = 0
    private var running = true

    init(interval: TimeInterval = 0.005) {
        Thread.detachNewThread { [self] in
            while true {
                let current = ResourceUsage.residentBytes()
                lock.lock()
                peak = max(peak, current)
                let keepGoing = running
                lock.unlock()
                if !keepGoing { return }
                Thread.sleep(forTimeInterval: interval)
            }
        }
    }

    /// Stops sampling and returns the peak resident bytes seen.
    func stop() -> Int {
        lock.lock()
        defer { lock.unlock() }
        running = false
        return max(peak, ResourceUsage.residentBytes())
    }
}
