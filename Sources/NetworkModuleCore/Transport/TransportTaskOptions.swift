import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one ``URLSessionTransport`` task does for a ``TransferOptions`` besides collecting its
/// body: reports progress as the bytes move, and writes a `2xx` body to the transfer's file as
/// it arrives, never holding it in memory.
///
/// Only for a task with a file or a progress handler, and closed before its completion handler
/// runs. The file is opened, written and closed under one lock, never after the close: a late
/// callback neither creates again the file the module removed, nor writes into the file a later
/// attempt is resuming.
final class TransportTaskOptions: Sendable {
    private struct State {
        /// The file the body goes to, from the response head until the close.
        var file: TransferFile?
        var isClosed = false
        /// The bytes of the file this response continues (a `206`); counted in the progress.
        var keptBytes: Int64 = 0
        /// The download's expected total, the kept bytes included; `nil` when unknown.
        var expectedBytes: Int64?
    }

    /// Where a successful body goes.
    let destination: TransferOptions.Destination
    /// Told how far each direction has got; `nil` when nobody asked.
    let progress: (@Sendable (TransferProgress) -> Void)?
    /// The request body's length, when the request says it; the upload's expected total when
    /// `URLSession` does not know it.
    let uploadLength: Int64?
    /// The request as sent, whose `Range` a `206` must answer.
    private let request: URLRequest
    private let state = LockedState(State())

    /// The transfer of a task sending `request`; `nil` when `transfer` asks for nothing beyond a
    /// data task (the body in memory, no progress).
    init?(_ transfer: TransferOptions, request: URLRequest) {
        guard transfer.needsApplying else { return nil }
        self.destination = transfer.destination
        self.progress = transfer.progress
        self.request = request
        if let body = request.httpBody {
            uploadLength = Int64(body.count)
        } else {
            uploadLength = request.value(forHTTPHeaderField: "Content-Length").flatMap { HeaderNumber.decimal($0) }
        }
    }

    /// The response head arrived, for a request with `method`: opens the file for a `2xx` body
    /// when the destination is one (keeping the bytes a `206` continues), and reports where the
    /// download starts. Returns whether the body goes to the file; `false` as well once closed.
    ///
    /// Throws what opening the file throws, and `URLError.cannotParseResponse` for a `206` that
    /// does not answer the request's range, whole (see ``ContentRange/keptBytes(of:to:resumingAt:)``).
    func responseArrived(_ response: HTTPURLResponse, method: String?) throws(URLError) -> Bool {
        var kept: Int64 = 0
        var opensFile = false
        if case .file(_, let resumingAt) = destination, AcceptableStatusCodes.successful.contains(response.statusCode) {
            kept = try ContentRange.keptBytes(of: response, to: request, resumingAt: resumingAt)
            opensFile = true
        }
        var expected: Int64?
        if progress != nil, let declared = ResponseFraming.declaredBodyLength(of: response, method: method) {
            // The server's length: past Int64.max with the kept bytes, it is not a length to show.
            let (sum, overflowed) = kept.addingReportingOverflow(Int64(declared))
            expected = overflowed ? nil : sum
        }
        // Whether the body goes to the file; `nil` once closed.
        let opened = state.withLock { state -> Result<Bool?, URLError> in
            guard !state.isClosed else { return .success(nil) }
            state.keptBytes = kept
            state.expectedBytes = expected
            // A head that comes again starts the body over (the task's record refuses one once a
            // byte was written): the file a 2xx head before it opened takes no more of this body.
            state.file = nil
            guard opensFile, case .file(let url, _) = destination else { return .success(false) }
            do throws(URLError) {
                state.file = try TransferFile(url: url, keeping: kept)
            } catch {
                return .failure(error)
            }
            return .success(true)
        }
        guard let streams = try opened.get() else { return false }
        if let progress {
            progress(TransferProgress(isUpload: false, completedBytes: kept, expectedBytes: expected))
        }
        return streams
    }

    /// A chunk of the body arrived, the response's `totalReceived` bytes so far with it: writes it
    /// to the file when the body goes there, and reports the progress. Does nothing once closed.
    ///
    /// Throws `URLError.cannotWriteToFile` when the write fails; the task must then fail.
    func bodyReceived(_ data: Data, totalReceived: Int) throws(URLError) {
        let outcome = state.withLock { state -> Result<TransferProgress?, URLError> in
            guard !state.isClosed else { return .success(nil) }
            if let file = state.file {
                do throws(URLError) {
                    try file.write(data)
                } catch {
                    return .failure(error)
                }
            }
            guard progress != nil else { return .success(nil) }
            return .success(
                TransferProgress(
                    isUpload: false,
                    completedBytes: Self.clampedSum(state.keptBytes, Int64(clamping: totalReceived)),
                    expectedBytes: state.expectedBytes))
        }
        if let report = try outcome.get(), let progress {
            progress(report)
        }
    }

    /// `URLSession` sent `totalBytesSent` bytes of the request body, of
    /// `totalBytesExpectedToSend` (negative or zero when it does not know): reports the upload's
    /// progress, expected from the request's own length when `URLSession` does not know it.
    func bodySent(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        guard let progress, !state.withLock({ $0.isClosed }) else { return }
        let expected = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : uploadLength
        progress(TransferProgress(isUpload: true, completedBytes: totalBytesSent, expectedBytes: expected))
    }

    /// `a + b`, or the largest `Int64` when the sum is larger: a count never traps.
    private static func clampedSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflowed) = a.addingReportingOverflow(b)
        return overflowed ? .max : sum
    }

    /// Ends the transfer: closes the file (whatever was written stays) and ignores every later
    /// call. Waits for a write in progress.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.file = nil
        }
    }
}
