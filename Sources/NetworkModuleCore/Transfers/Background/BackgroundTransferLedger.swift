import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The background transfers of one session and what the app has been told of them: the state
/// of a ``BackgroundTransfers``, one value behind its lock. Each event (the app asks, an action
/// prepares, the system reports, the app is told) is a method that changes the state and
/// returns the ``Step`` the caller performs outside the lock: files to write or remove, tasks
/// to send or cancel, results to deliver. So every (state, event) pair is a unit test without
/// a `URLSession`, a thread or a clock.
///
/// ## One transfer's life
/// | state | event | next state | step |
/// |---|---|---|---|
/// | (none) | ``begin(_:)`` | preparing | — (`false` if the ID is taken: nothing changes) |
/// | preparing | ``prepared(id:token:request:sentDate:)`` | sent | save, send |
/// | sent, this launch | ``notSaved(id:token:error:)`` (the save before sending failed) | (none) | deliver the error, unsent |
/// | preparing | ``preparationFailed(id:token:error:)``, ``cancel(id:)`` | (none) | deliver the error, unsaved |
/// | sent | ``bodyReceived(token:data:limit:)`` | sent | — (`false` past the limit: cancel the task) |
/// | sent | ``downloadFinished(token:)`` | placing | — (the caller places the file) |
/// | sent, placing | ``completed(token:_:resumeData:limit:)`` | finished (a download sent, not placed, with an accepted status: failed, no file) | resume data, save, deliver |
/// | sent | ``cancel(id:)`` | finished (`.cancelled`) | drop resume data, save, cancel the task, deliver |
/// | sent, from an earlier launch | ``listed(_:)`` without its task | finished (lost) | save, deliver |
/// | finished, from an earlier launch | ``launched()`` | finished | deliver |
/// | finished | ``reporting(id:token:)`` | (none) | save: the app is told now |
///
/// Any other pair changes nothing: an event for a token the ledger does not know (a transfer
/// reported already, or cancelled) is dropped, which is what makes the app's handler run once.
///
/// ## Exactly once, across relaunches
/// A transfer is written down (saved) when it is handed to the system, again when it ends
/// (with its outcome, before the delegate's callback returns, so the system never considers
/// an event delivered that the file does not hold), and removed just before the app's handler
/// runs. A crash before the removal reports it again after relaunch (``launched()``); a crash
/// after it does not. Each save is a snapshot of the whole ledger, numbered, so that the store
/// never lets an older one overwrite a newer one.
struct BackgroundTransferLedger {
    /// What is saved: the transfers handed to the system and not yet reported, and the IDs whose
    /// downloads left resume data.
    struct Persisted: Codable, Equatable, Sendable {
        var version = 1
        var transfers: [BackgroundTransferRecord] = []
        var resumeData: [String] = []
    }

    /// What a transfer is, known when the app asks for it.
    struct Start: Sendable {
        let id: String
        let token: String
        let kind: BackgroundTransferRecord.Kind
        let networkRequest: (any NetworkRequest)?
        let acceptableStatusCodes: [ClosedRange<Int>]
        let requestID: UUID
        let sequenceNumber: Int
        let startDate: Date
    }

    /// A task to hand to the system.
    struct Send {
        let id: String
        let token: String
        let request: URLRequest
        let kind: BackgroundTransferRecord.Kind
        /// Whether the ID has resume data to continue from (a download's).
        let resumes: Bool
    }

    /// What a download's finished file needs: where it goes, and which statuses put it there.
    struct DownloadTarget: Equatable {
        let destination: DownloadDestination
        let acceptableStatusCodes: AcceptableStatusCodes
    }

    /// A result for the app, with what the actions' context needs.
    struct Delivery {
        enum Ending {
            case outcome(BackgroundTransferOutcome)
            case failure(NetworkError)
        }

        let id: String
        /// The token to mark reported; `nil` for a transfer never written down (it ended in
        /// preparation), which is reported at once.
        let token: String?
        let ending: Ending
        let networkRequest: (any NetworkRequest)?
        /// The request as sent (after a relaunch: its URL and method); `nil` before it was.
        let request: URLRequest?
        let acceptableStatusCodes: [ClosedRange<Int>]
        let requestID: UUID
        let sequenceNumber: Int
        let startDate: Date
        let sentDate: Date?
        /// A download's destination.
        let destination: DownloadDestination?
    }

    /// A numbered copy of what is saved: the larger number is the newer.
    struct Snapshot {
        let number: Int
        let persisted: Persisted
    }

    /// What the caller does after an event, outside the lock, in this order.
    struct Step {
        /// Resume data to write for an ID, before the snapshot that names it is saved.
        var resumeDataToWrite: (id: String, data: Data)?
        var snapshot: Snapshot?
        /// IDs whose resume data to remove, after the snapshot is saved.
        var resumeDataToRemove: [String] = []
        /// The system's tasks to cancel, by token.
        var tokensToCancel: [String] = []
        var send: Send?
        var deliveries: [Delivery] = []
    }

    /// A transfer handed to the system.
    private struct Transfer {
        var record: BackgroundTransferRecord
        /// The request as sent: with its header fields in this launch, URL and method after a
        /// relaunch.
        var request: URLRequest
        var networkRequest: (any NetworkRequest)?
        /// An upload's reply, collected.
        var body = Data()
        var bodyTooLarge = false
        /// Started in this launch: the system's task list at launch cannot have it yet.
        let startedThisLaunch: Bool
    }

    private enum State {
        case preparing(Start)
        case sent(Transfer)
        /// A download's file is being placed; the result stands whatever comes next.
        case placing(Transfer)
        /// Ended; `queued` once its delivery has been handed out.
        case finished(Transfer, queued: Bool)
    }

    private struct Entry {
        let token: String
        var state: State
    }

    private var entries: [String: Entry] = [:]
    /// The ID of each token's transfer.
    private var ids: [String: String] = [:]
    /// The IDs whose resume data is on disk.
    private var resumeData: Set<String> = []
    private var snapshots = 0

    /// The ledger as it was saved. Records that repeat an ID or a token are dropped (a file
    /// written by hand, say): each ID and token names one transfer.
    init(_ persisted: Persisted = Persisted()) {
        for record in persisted.transfers where entries[record.id] == nil && ids[record.token] == nil {
            let transfer = Transfer(record: record, request: record.request, startedThisLaunch: false)
            let state: State = record.outcome == nil ? .sent(transfer) : .finished(transfer, queued: false)
            entries[record.id] = Entry(token: record.token, state: state)
            ids[record.token] = record.id
        }
        resumeData = Set(persisted.resumeData)
    }

    /// How many transfers are under way or waiting to be reported.
    var count: Int { entries.count }

    /// The app launched: the transfers that ended while it was away, and were not yet reported,
    /// are delivered.
    mutating func launched() -> Step {
        var step = Step()
        for (id, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard case .finished(let transfer, false) = entry.state else { continue }
            entries[id]?.state = .finished(transfer, queued: true)
            step.deliveries.append(delivery(of: transfer))
        }
        return step
    }

    /// The system listed the tasks it has, by token. A transfer of an earlier launch it does
    /// not have ended unseen: it is reported as lost. A task the ledger does not know (one
    /// whose transfer was cancelled or reported) is cancelled.
    mutating func listed(_ tokens: Set<String>) -> Step {
        var step = Step()
        for (id, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard case .sent(let transfer) = entry.state, !transfer.startedThisLaunch, !tokens.contains(entry.token)
            else { continue }
            step.deliveries.append(finish(id, transfer, with: .lost))
        }
        if !step.deliveries.isEmpty { step.snapshot = snapshot() }
        step.tokensToCancel = tokens.filter { ids[$0] == nil }.sorted()
        return step
    }

    /// The app asks for a transfer. Returns `false`, changing nothing, when its ID is taken: a
    /// transfer with that ID is under way or not yet reported.
    mutating func begin(_ start: Start) -> Bool {
        guard entries[start.id] == nil, ids[start.token] == nil else { return false }
        entries[start.id] = Entry(token: start.token, state: .preparing(start))
        ids[start.token] = start.id
        return true
    }

    /// The actions prepared `request`: it is written down and handed to the system. Nothing
    /// happens if the transfer is no longer preparing (cancelled meanwhile).
    mutating func prepared(id: String, token: String, request: URLRequest, sentDate: Date) -> Step {
        guard let entry = entries[id], entry.token == token, case .preparing(let start) = entry.state else {
            return Step()
        }
        let record = BackgroundTransferRecord(
            id: id, token: token, kind: start.kind, acceptableStatusCodes: start.acceptableStatusCodes,
            url: request.url, method: request.httpMethod ?? "GET", requestID: start.requestID,
            sequenceNumber: start.sequenceNumber, startDate: start.startDate, sentDate: sentDate, phase: .sent)
        let transfer = Transfer(
            record: record, request: request, networkRequest: start.networkRequest, startedThisLaunch: true)
        entries[id]?.state = .sent(transfer)
        var step = Step()
        step.snapshot = snapshot()
        step.send = Send(
            id: id, token: token, request: request, kind: start.kind,
            resumes: start.kind.isDownload && resumeData.contains(id))
        return step
    }

    /// An action failed the transfer before it was sent: the error is delivered, and nothing was
    /// written down.
    mutating func preparationFailed(id: String, token: String, error: NetworkError) -> Step {
        guard let entry = entries[id], entry.token == token, case .preparing(let start) = entry.state else {
            return Step()
        }
        remove(id, token: token)
        var step = Step()
        step.deliveries.append(failure(of: start, error))
        return step
    }

    /// The transfer could not be written down before it was sent (a full disk, a ledger file
    /// that cannot be read): it is not handed to the system, whose result could not reach the
    /// app after a relaunch, and the error is delivered instead.
    mutating func notSaved(id: String, token: String, error: NetworkError) -> Step {
        guard let entry = entries[id], entry.token == token, case .sent(let transfer) = entry.state,
            transfer.startedThisLaunch
        else { return Step() }
        remove(id, token: token)
        var step = Step()
        step.deliveries.append(delivery(of: transfer, unsentError: error))
        return step
    }

    /// Part of an upload's reply arrived. Returns `false` when the reply passes `limit` bytes:
    /// the caller cancels the task, which then ends as too large.
    mutating func bodyReceived(token: String, data: Data, limit: Int) -> Bool {
        guard let id = ids[token], case .sent(var transfer) = entries[id]?.state else { return true }
        guard !transfer.bodyTooLarge else { return false }
        if data.count > limit - transfer.body.count {
            transfer.bodyTooLarge = true
            transfer.body = Data()
        } else {
            transfer.body.append(data)
        }
        entries[id]?.state = .sent(transfer)
        return !transfer.bodyTooLarge
    }

    /// A download's file arrived: returns where it goes, and the transfer's result stands from
    /// now on (a cancel is too late). `nil` for a token the ledger does not expect a file for:
    /// the file is left for the system to remove.
    mutating func downloadFinished(token: String) -> DownloadTarget? {
        guard let id = ids[token], case .sent(let transfer) = entries[id]?.state,
            let destination = transfer.record.kind.destination
        else { return nil }
        entries[id]?.state = .placing(transfer)
        return DownloadTarget(
            destination: destination,
            acceptableStatusCodes: AcceptableStatusCodes(closedRanges: transfer.record.acceptableStatusCodes))
    }

    /// The system says how a task ended: the outcome is written down, with the resume data a
    /// download left (or without the resume data it used), and delivered.
    mutating func completed(
        token: String, _ completion: BackgroundTransferOutcome.SystemCompletion, resumeData data: Data? = nil,
        limit: Int
    ) -> Step {
        guard let id = ids[token], let state = entries[id]?.state else { return Step() }
        let transfer: Transfer
        var completion = completion
        switch state {
        case .sent(let sent):
            transfer = sent
            if sent.record.kind.isDownload, completion.error == nil,
                let status = (completion.response as? HTTPURLResponse)?.statusCode,
                AcceptableStatusCodes(closedRanges: sent.record.acceptableStatusCodes).contains(status)
            {
                // A download whose file never arrived: no success without the file.
                completion.error = Self.noFileError
            }
        case .placing(let placing): transfer = placing
        case .preparing, .finished: return Step()
        }
        let outcome = BackgroundTransferOutcome(
            completion, collected: transfer.body, bodyTooLarge: transfer.bodyTooLarge, limit: limit)
        var step = Step()
        if transfer.record.kind.isDownload {
            if let data {
                resumeData.insert(id)
                step.resumeDataToWrite = (id, data)
            } else if resumeData.remove(id) != nil {
                step.resumeDataToRemove.append(id)
            }
        }
        step.deliveries.append(finish(id, transfer, with: outcome))
        step.snapshot = snapshot()
        return step
    }

    /// The app cancels transfer `id`: one being prepared or sent ends as
    /// ``NetworkError/cancelled`` at once (a sent one's task is cancelled, and its resume data
    /// dropped); one that has ended keeps its result. With no transfer under way, the ID's resume
    /// data is dropped, so that its next download starts over.
    mutating func cancel(id: String) -> Step {
        var step = Step()
        switch entries[id]?.state {
        case .preparing(let start)?:
            remove(id, token: start.token)
            step.deliveries.append(failure(of: start, .cancelled))
            return step
        case .sent(let transfer)?:
            step.deliveries.append(finish(id, transfer, with: BackgroundTransferOutcome(.cancelled)))
            step.tokensToCancel.append(transfer.record.token)
        case .placing?, .finished?:
            return step
        case nil:
            break
        }
        if resumeData.remove(id) != nil { step.resumeDataToRemove.append(id) }
        if step.deliveries.isEmpty, step.resumeDataToRemove.isEmpty { return step }
        step.snapshot = snapshot()
        return step
    }

    /// The app is about to be told of transfer `id` with `token`: it is no longer written down.
    /// Returns the step that saves that, or `nil` if it was reported already (then the app must
    /// not be told again).
    mutating func reporting(id: String, token: String) -> Step? {
        guard let entry = entries[id], entry.token == token, case .finished = entry.state else { return nil }
        remove(id, token: token)
        var step = Step()
        step.snapshot = snapshot()
        return step
    }

    /// What is saved now.
    var persisted: Persisted {
        var transfers: [BackgroundTransferRecord] = []
        for (_, entry) in entries.sorted(by: { $0.key < $1.key }) {
            switch entry.state {
            case .preparing: continue
            case .sent(let transfer), .placing(let transfer), .finished(let transfer, _):
                transfers.append(transfer.record)
            }
        }
        return Persisted(transfers: transfers, resumeData: resumeData.sorted())
    }

    // MARK: - Helpers

    /// The error of a download the system ended well without handing over its file.
    static let noFileError = URLError(
        .cannotMoveFile,
        userInfo: [
            NSLocalizedDescriptionKey:
                "The system ended the background download without handing over its file, so nothing was placed at "
                + "the destination."
        ])

    private mutating func snapshot() -> Snapshot {
        snapshots += 1
        return Snapshot(number: snapshots, persisted: persisted)
    }

    private mutating func remove(_ id: String, token: String) {
        entries[id] = nil
        ids[token] = nil
    }

    /// Ends `transfer` with `outcome`, queued for delivery at once.
    private mutating func finish(_ id: String, _ transfer: Transfer, with outcome: BackgroundTransferOutcome)
        -> Delivery
    {
        var finished = transfer
        finished.record.phase = .finished(outcome)
        finished.body = Data()
        entries[id]?.state = .finished(finished, queued: true)
        return delivery(of: finished)
    }

    /// The delivery of `transfer`'s outcome; or, for one never handed to the system,
    /// `unsentError`, with neither a token to mark reported nor a request sent.
    private func delivery(of transfer: Transfer, unsentError: NetworkError? = nil) -> Delivery {
        let record = transfer.record
        let ending: Delivery.Ending =
            if let unsentError { .failure(unsentError) } else if let outcome = record.outcome {
                .outcome(outcome)
            } else { .failure(.invalidResponse) }
        let sent = unsentError == nil
        return Delivery(
            id: record.id, token: sent ? record.token : nil, ending: ending, networkRequest: transfer.networkRequest,
            request: sent ? transfer.request : nil, acceptableStatusCodes: record.acceptableStatusCodes,
            requestID: record.requestID, sequenceNumber: record.sequenceNumber, startDate: record.startDate,
            sentDate: sent ? record.sentDate : nil, destination: record.kind.destination)
    }

    private func failure(of start: Start, _ error: NetworkError) -> Delivery {
        Delivery(
            id: start.id, token: nil, ending: .failure(error), networkRequest: start.networkRequest, request: nil,
            acceptableStatusCodes: start.acceptableStatusCodes, requestID: start.requestID,
            sequenceNumber: start.sequenceNumber, startDate: start.startDate, sentDate: nil,
            destination: start.kind.destination)
    }
}
