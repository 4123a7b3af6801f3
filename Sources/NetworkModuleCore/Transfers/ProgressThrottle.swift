import Foundation

/// Which progress reports a caller hears of: at most one per direction in each
/// ``minimumInterval``, in the order they were made, none after the final ones, and, at
/// completion, the last one of each direction.
///
/// A value with no clock and no threads: ``ProgressReporter`` keeps it behind its lock and
/// performs what its transitions return.
struct ProgressThrottle {
    /// A report to deliver, numbered in the order the session made them.
    struct Delivery: Equatable {
        let report: TransferProgress
        let number: Int
    }

    /// The shortest time between two reports of one direction: 1/60 s.
    static let minimumInterval: UInt64 = 1_000_000_000 / 60

    private struct Track {
        /// When the last report was let through; `nil` before the first.
        var lastLetThrough: UInt64?
        /// The newest report, delivered or not, and its number.
        var latest: TransferProgress?
        var latestNumber = 0
        /// The number of the last report of this direction the caller heard of.
        var deliveredNumber = 0

        /// Whether the caller heard of the newest report.
        var latestDelivered: Bool { latest != nil && deliveredNumber == latestNumber }
    }

    private var upload = Track()
    private var download = Track()
    private var made = 0
    /// The number of the last delivery the caller heard of.
    private var lastDelivered = 0
    private(set) var isFinished = false
    /// Deliveries handed to the caller's handler that have not returned yet: on a concurrent
    /// executor one may still run when the end is ready.
    private var deliveriesRunning = 0
    /// The end (the final reports, then the result) waits for the deliveries running.
    private var endIsWaiting = false

    /// The session made `report` at `now` (nanoseconds): the delivery to submit now, or `nil` if
    /// it comes too soon after the last one (it is kept, for the final report).
    mutating func received(_ report: TransferProgress, at now: UInt64) -> Delivery? {
        guard !isFinished else { return nil }
        made += 1
        let number = made
        return withTrack(isUpload: report.isUpload) { track in
            track.latest = report
            track.latestNumber = number
            if let last = track.lastLetThrough, now >= last, now - last < Self.minimumInterval {
                return nil
            }
            track.lastLetThrough = now
            return Delivery(report: report, number: number)
        }
    }

    /// Whether a delivery submitted earlier may still reach the caller: not after the final
    /// reports, and not after a newer one (an executor on a concurrent queue may run them out of
    /// order). Marks it delivered, and running until ``delivered()``, when it may.
    mutating func mayDeliver(_ delivery: Delivery) -> Bool {
        guard !isFinished, delivery.number > lastDelivered else { return false }
        lastDelivered = delivery.number
        withTrack(isUpload: delivery.report.isUpload) { $0.deliveredNumber = delivery.number }
        deliveriesRunning += 1
        return true
    }

    /// A delivery's handler returned. Whether the end, which waited for it, is to run now.
    mutating func delivered() -> Bool {
        deliveriesRunning -= 1
        guard endIsWaiting, deliveriesRunning == 0 else { return false }
        endIsWaiting = false
        return true
    }

    /// The end is ready to run, after ``finish(succeeded:)``. Whether it runs now; otherwise it
    /// waits for the deliveries still running, and the last of them to return runs it
    /// (``delivered()``), so that no report reaches the caller after the final ones or the result.
    mutating func endIsReady() -> Bool {
        guard deliveriesRunning > 0 else { return true }
        endIsWaiting = true
        return false
    }

    /// The request ended: the final reports, upload first. Each direction's newest report comes
    /// unless the caller heard of it already (one let through but not yet run is dropped now); on
    /// success the download always gets one, complete (its expected bytes are the bytes received,
    /// whatever the `Content-Length` said of an encoded body), and so does an upload that
    /// reported.
    mutating func finish(succeeded: Bool) -> [TransferProgress] {
        guard !isFinished else { return [] }
        isFinished = true
        var reports: [TransferProgress] = []
        for isUpload in [true, false] {
            let track = isUpload ? upload : download
            if succeeded {
                let completed = track.latest?.completedBytes ?? 0
                if track.latest != nil || !isUpload {
                    let final = TransferProgress(
                        isUpload: isUpload, completedBytes: completed, expectedBytes: completed)
                    if !(track.latestDelivered && track.latest == final) { reports.append(final) }
                }
            } else if let latest = track.latest, !track.latestDelivered {
                reports.append(latest)
            }
        }
        return reports
    }

    private mutating func withTrack<Result>(isUpload: Bool, _ body: (inout Track) -> Result) -> Result {
        isUpload ? body(&upload) : body(&download)
    }
}
