import Foundation
import NetworkModuleCore
import NetworkModuleTesting

/// The lines a sample printed.
///
/// Samples call `print`, as a reader's code would. In this target `print` is the function
/// below: inside `Transcript.recording { … }` it records each line for the test to check,
/// so a sample is shown exactly as it is written and its output is still verified.
final class Transcript: Sendable {
    @TaskLocal static var current: Transcript?

    private let storage = LockedLines()

    /// Every line printed so far, in order.
    var lines: [String] { storage.lines }

    fileprivate func append(_ line: String) { storage.append(line) }

    /// Runs `body` and returns what it printed.
    static func recording(_ body: () throws -> Void) rethrows -> [String] {
        let transcript = Transcript()
        try $current.withValue(transcript) { try body() }
        return transcript.lines
    }

    /// Runs `body` and returns what it printed.
    static func recording(_ body: () async throws -> Void) async rethrows -> [String] {
        let transcript = Transcript()
        try await $current.withValue(transcript) { try await body() }
        return transcript.lines
    }
}

/// Prints to the running test's transcript if it records one, to standard output otherwise.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    if let transcript = Transcript.current {
        transcript.append(line)
    } else {
        Swift.print(line, terminator: terminator)
    }
}

/// Lines behind a lock, appended from any thread.
final class LockedLines: @unchecked Sendable {
    // @unchecked Sendable is safe: `stored` is only touched while holding `lock`.
    private let lock = NSLock()
    private var stored: [String] = []

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func append(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        stored.append(line)
    }
}

/// The base URL every sample uses.
let sampleBaseURL = URL(string: "https://api.example.com/v2")!

/// A module as the samples run it: the samples' base URL, a fake session, completions
/// delivered at once on the calling thread, and a test clock for retry delays.
func makeSampleModule(
    session: FakeNetworkSession,
    actions: [any NetworkModuleAction] = [],
    delayScheduler: some DelayScheduler = ManualDelayScheduler()
) -> DefaultNetworkModule {
    DefaultNetworkModule(
        requestBuilder: DefaultRequestBuilder(baseURL: sampleBaseURL),
        session: session,
        actions: actions,
        completionExecutor: .immediate,
        delayScheduler: delayScheduler)
}
