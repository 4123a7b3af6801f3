import Foundation
import NetworkModuleCore

/// Runs one test of this test binary again, in a child process, so that a case that may
/// crash the process (a trap inside Foundation, say) fails one test instead of ending the
/// whole run.
///
/// The child runs only the probe test named by `filter`, with `NETWORK_MODULE_CHILD_PROBE`
/// set; probe tests are enabled only then (see ``isProbe(_:)``), and are skipped in a normal
/// run. Linux only: the binary re-runs itself through `/proc/self/exe`.
package enum ChildProcess {
    package static let probeVariable = "NETWORK_MODULE_CHILD_PROBE"

    /// Whether this process is a child started to run the probe `name`.
    package static func isProbe(_ name: String) -> Bool {
        ProcessInfo.processInfo.environment[probeVariable] == name
    }

    // Linux only: the child is this binary again, through /proc/self/exe (and iOS has no
    // `Process`).
    #if os(Linux)
        package struct Outcome: Sendable {
            /// The exit status, or the signal that ended the child.
            package var status: Int32
            package var wasSignalled: Bool
            package var timedOut: Bool
            /// What the child wrote to standard output and error (its start and end, where a trap's
            /// message and the test's verdict are), for the failure message.
            package var output: String

            package var succeeded: Bool { status == 0 && !wasSignalled && !timedOut }
        }

        /// Runs the probe `name` (the test matching `filter`) in a child process and waits for
        /// it, at most `timeout` seconds, without blocking a thread of the cooperative pool.
        package static func run(probe name: String, filter: String, timeout: TimeInterval) async throws -> Outcome {
            let outputURL = FileManager.default.temporaryDirectory
                .appendingPathComponent("network-module-child-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: outputURL) }
            let output = try FileHandle(forWritingTo: outputURL)
            defer { try? output.close() }

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
            var environment = ProcessInfo.processInfo.environment
            environment[probeVariable] = name
            process.environment = environment
            process.standardOutput = output
            process.standardError = output
            let timedOut = LockedState(false)

            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                process.terminationHandler = { _ in continuation.resume() }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    continuation.resume()
                    return
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    if process.isRunning {
                        timedOut.withLock { $0 = true }
                        process.terminate()  // this test's own child, by its handle
                    }
                }
            }
            let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
            guard process.processIdentifier != 0, !process.isRunning else {
                return Outcome(
                    status: -1, wasSignalled: false, timedOut: false, output: "could not start the child\n" + text)
            }
            return Outcome(
                status: process.terminationStatus, wasSignalled: process.terminationReason == .uncaughtSignal,
                timedOut: timedOut.withLock { $0 },
                output: text.count > 6_000 ? text.prefix(2_000) + "\n…\n" + text.suffix(4_000) : text)
        }
    #endif
}
