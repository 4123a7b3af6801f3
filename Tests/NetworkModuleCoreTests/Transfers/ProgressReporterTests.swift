import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

@Suite("Progress reporter")
struct ProgressReporterTests {
    private func download(_ done: Int64) -> TransferProgress {
        TransferProgress(isUpload: false, completedBytes: done, expectedBytes: nil)
    }

    @Test("when the session reports, should hand the report to the caller through the executor")
    func throughExecutor() {
        let executor = RecordingExecutor()
        let heard = LockedState([TransferProgress]())
        let reporter = ProgressReporter(executor: executor) { report in heard.withLock { $0.append(report) } }

        reporter.report(download(1))

        #expect(executor.deliveryCount == 1)
        #expect(heard.withLock { $0 } == [download(1)])
    }

    @Test(
        "when reports race the end on many threads and a concurrent executor, should deliver none after the final one (a race check for the thread sanitizer)"
    )
    func noReportAfterTheEnd() {
        let queue = DispatchQueue(label: "ProgressReporterTests", attributes: .concurrent)
        for _ in 0..<20 {
            // Each entry: the bytes reported, and whether the result had been delivered by then.
            let heard = LockedState([(bytes: Int64, afterEnd: Bool)]())
            let ended = LockedState(false)
            let reporter = ProgressReporter(executor: .queue(queue)) { report in
                let afterEnd = ended.withLock { $0 }
                heard.withLock { $0.append((report.completedBytes, afterEnd)) }
            }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in 0..<2_000 {
                    reporter.report(download(Int64(thread * 10_000 + index)))
                    if thread == 0, index == 1_000 {
                        let end = reporter.finish(after: Result<Int, NetworkError>.success(1))
                        queue.async {
                            end { ended.withLock { $0 = true } }
                        }
                    }
                }
            }
            queue.sync(flags: .barrier) {}

            let entries = heard.withLock { $0 }
            #expect(!entries.isEmpty)
            #expect(entries.allSatisfy { !$0.afterEnd }, "a report reached the caller after the final one")
            #expect(entries.last.map { $0.bytes } != nil)
        }
    }
}
