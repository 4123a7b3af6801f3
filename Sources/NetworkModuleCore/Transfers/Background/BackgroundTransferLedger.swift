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
/// | (none) | ``begin(_:preparation:)`` | preparing | — (`false` if the ID is taken: nothing changes) |
/// | preparing | ``prepared(id:token:request:sentDate:carriesCredentials:)`` | sent (cancelled: none) | save, send (cancelled: deliver `.cancelled`, unsaved) |
/// | preparing | ``cancel(id:)`` | preparing, cancelled | drop resume data, cancel the preparation: its end comes as one of the events here |
/// | sent, this launch | ``notSaved(id:token:error:)`` (the save before sending failed) | finished (the error, unsent) | deliver |
/// | preparing | ``preparationFailed(id:token:error:)`` | (none) | deliver the error (cancelled: `.cancelled`), unsaved |
/// | sent, unlisted | ``bodyReceived(token:data:limit:)`` | same | — (`false` past the limit: cancel the task) |
/// | sent, unlisted | ``downloadFinished(token:)`` | placing | — (the caller places the file) |
/// | sent, unlisted, placing | ``completed(token:_:resumeData:limit:)`` | finished (a download sent, not placed, with an accepted status: failed, no file) | resume data, save, deliver |
/// | sent, unlisted | ``cancel(id:)`` | finished (`.cancelled`) | drop resume data, save, cancel the task, deliver |
/// | sent, from an earlier launch | ``listed(_:)`` without its task | unlisted | arm the grace timer (no delivery: its end may still come) |
/// | unlisted | ``eventsDrained()`` (the session delivered its events, or the grace timer fired) | finished (lost) | save, deliver |
/// | finished, not handed out | ``launched()``, ``retryReports()`` | finished | deliver |
/// | finished | ``reporting(id:token:)`` | reporting | save without it: the app is told once that is on disk |
/// | reporting | ``reported(id:token:saved:)`` | (none) if saved (call the handler); finished, not handed out, if not (do not) | — |
///
/// Any other pair changes nothing: an event for a token the ledger does not know (a transfer
/// reported already, or cancelled) is dropped, which is what makes the app's handler run once.
///
/// ## A ledger that cannot be read
/// The ledger starts from what the store read (``BackgroundTransferStore/LedgerLoad``). While it
/// is blind (a file there that cannot be read yet, locked by data protection before the first
/// unlock; or one that is damaged), it does not know which tasks are its own:
///
/// | mode | event | step |
/// |---|---|---|
/// | locked, damaged | ``listed(_:)`` | cancel nothing, report nothing (locked: the listing is kept; damaged: its unknown tokens are saved as unrecognised) |
/// | read, no listing seen since a damaged file was saved | ``listed(_:)`` | save its unknown tokens as unrecognised, cancel only what an earlier adoption no longer covers |
/// | locked | ``completed(token:_:resumeData:limit:)`` for an unknown token | keep the end and its resume data; read the file again |
/// | damaged | ``completed(token:_:resumeData:limit:)`` for an unknown token | drop it (its transfer cannot be recognised any more) |
/// | locked | ``begin(_:)`` | refuse it (``Begun/ledgerUnreadable``): its ID may be one the file names |
/// | locked | ``cancel(id:)`` | keep the ID; cancel it once the file is read |
/// | locked | ``read(_:)`` `.blocked` | arm the reload timer (30 s) |
/// | locked | ``read(_:)`` `.loaded`, `.none` | merge the file's transfers, apply the kept ends (each delivered once), then the kept cancels, replay the kept listing |
/// | locked | ``read(_:)`` `.damaged` | damaged for the life of the process: drop the kept ends and cancels |
/// | locked | ``wake()`` (the app delegate hands over the session's events), the reload timer | read the file again |
///
/// A listing cancels unknown tasks only once the file was read cleanly (or there was none), and
/// never one that a damaged ledger's launch found: those are written down as unrecognised, left
/// to run, and forgotten once the system no longer lists them.
///
/// ## Exactly once, across relaunches
/// A transfer is written down (saved) when it is handed to the system, again when it ends
/// (with its outcome, before the delegate's callback returns, so the system never considers
/// an event delivered that the file does not hold), and removed before the app's handler
/// runs: the handler runs only once the saved ledger no longer names the transfer. A crash, or
/// a failed save, before the removal reports it again (``launched()``, ``retryReports()``); a
/// crash after it does not. Each save is a snapshot of the whole ledger, numbered, so that the
/// store never lets an older one overwrite a newer one.
struct BackgroundTransferLedger {
    /// What is saved: the transfers handed to the system and not yet reported, and the IDs whose
    /// downloads left resume data.
    struct Persisted: Codable, Equatable, Sendable {
        var version = 1
        var transfers: [BackgroundTransferRecord] = []
        var resumeData: [String] = []
        /// The tokens of tasks that a damaged ledger's launch found under way: transfers the
        /// ledger lost, left to run (an upload may still reach its server) and never cancelled.
        /// Optional, so that a file without it reads as before.
        var unrecognised: [String]? = nil
        /// A damaged ledger's launch saved this file before the system listed its tasks: the
        /// next listing, in whichever launch, records the tasks it cannot recognise as
        /// ``unrecognised`` instead of cancelling them.
        var adoptsNextListing: Bool? = nil
    }

    /// What a transfer is, known when the app asks for it (after a relaunch: as its record keeps
    /// it, without the ``NetworkRequest``).
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

        /// The transfer as the app asked for it (after a relaunch: as its record keeps it).
        let start: Start
        /// The token to mark reported; `nil` for a transfer never in a snapshot (it ended in
        /// preparation), which is reported at once.
        let token: String?
        let ending: Ending
        /// The request as sent (after a relaunch: its URL and method); `nil` before it was.
        let request: URLRequest?
        let sentDate: Date?
    }

    /// A numbered copy of what is saved: the larger number is the newer.
    struct Snapshot {
        let number: Int
        let persisted: Persisted
    }

    /// A timer the caller arms on the module's delay scheduler; when it fires, the caller sends
    /// ``timerFired(_:)``.
    enum Timer: Hashable {
        /// Read a ledger file that could not be read again.
        case reload
        /// Give up on the transfers the system's listing lacked (``eventsDrained()``).
        case grace

        /// Seconds until it fires.
        var delay: TimeInterval {
            switch self {
            case .reload: 30
            case .grace: 60
            }
        }
    }

    /// What the caller does after an event, outside the lock, in this order: the file work, all
    /// in one call to the store (``BackgroundTransferStore/apply(_:)``), then the rest.
    struct Step {
        /// Resume data to write for an ID, before the snapshot that names it is saved.
        var resumeDataToWrite: [(id: String, data: Data)] = []
        var snapshot: Snapshot?
        /// IDs whose resume data this step drops: the store removes the file once the newest
        /// saved snapshot no longer names the ID (its sweep).
        var resumeDataToRemove: [String] = []
        /// Read the ledger file again (``BackgroundTransferStore/load()``) and send ``read(_:)``.
        var readsAgain = false
        var timers: [Timer] = []
        /// The system's tasks to cancel, by token.
        var tokensToCancel: [String] = []
        var send: Send?
        /// A transfer's preparation to cancel (``ActionPipeline/preparation(of:context:completion:)``).
        var preparationToCancel: (any NetworkCancellable)?
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
        /// Set when the save before sending failed: it was never handed to the system, and this
        /// is its result.
        var unsentError: NetworkError? = nil
    }

    private enum State {
        /// Its actions prepare it; `cancelled` once the app cancelled it, and the preparation's
        /// end is awaited (``prepared(id:token:request:sentDate:carriesCredentials:)`` or
        /// ``preparationFailed(id:token:error:)``).
        case preparing(Start, handle: any NetworkCancellable, cancelled: Bool)
        case sent(Transfer)
        /// Sent in an earlier launch and missing from the system's listing: ended unseen, or its
        /// end is still to be delivered (Apple does not document the order). Its end, if it
        /// comes, is delivered; ``eventsDrained()`` reports it lost.
        case unlisted(Transfer)
        /// A download's file is being placed; the result stands whatever comes next.
        case placing(Transfer)
        /// Ended; `queued` once its delivery has been handed out.
        case finished(Transfer, queued: Bool)
        /// Its delivery is about to reach the app, once a ledger without it is saved.
        case reporting(Transfer)
    }

    /// A task's end that a locked ledger keeps.
    private struct PendingEnd {
        let completion: BackgroundTransferOutcome.SystemCompletion
        let resumeData: Data?
        let limit: Int
    }

    /// How the saved ledger was read.
    private enum Mode {
        /// Read (or there was none): the ledger knows every transfer it handed to the system.
        case read
        /// A file is there that cannot be read yet: blind until it can.
        case locked
        /// The file was damaged (moved aside): blind for the life of the process.
        case damaged
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
    /// The tokens of the tasks a damaged ledger lost (``Persisted/unrecognised``).
    private var unrecognised: Set<String> = []
    /// No listing was seen since a damaged ledger: the next one adopts the tasks it cannot
    /// recognise (``Persisted/adoptsNextListing``).
    private var adoptsNextListing = false
    private var snapshots = 0
    private var mode = Mode.read
    /// While locked: the system's listing, replayed once the file is read.
    private var pendingListing: Set<String>?
    /// While locked: the ends of tasks the ledger does not know yet, by token, applied once the
    /// file is read.
    private var pendingEnds: [String: PendingEnd] = [:]
    /// While locked: the IDs the app cancelled, in order, cancelled once the file is read.
    private var pendingCancels: [String] = []
    /// The timers armed and not fired yet.
    private var armed: Set<Timer> = []

    /// The ledger as it was saved. Records that repeat an ID or a token are dropped (a file
    /// written by hand, say): each ID and token names one transfer.
    init(_ persisted: Persisted = Persisted()) {
        merge(persisted)
    }

    /// The ledger as the store read it: blind (see the type's table) when the file could not be
    /// read, or was damaged.
    init(_ load: BackgroundTransferStore.LedgerLoad) {
        switch load {
        case .loaded(let persisted): merge(persisted)
        case .none: break
        case .blocked: mode = .locked
        case .damaged:
            mode = .damaged
            adoptsNextListing = true
        }
    }

    /// How many transfers are under way or waiting to be reported.
    var count: Int { entries.count }

    /// The app launched: the transfers that ended while it was away, and were not yet reported,
    /// are delivered. A ledger file that cannot be read yet is read again later.
    mutating func launched() -> Step {
        var step = retryReports()
        if mode == .locked { arm(.reload, in: &step) }
        return step
    }

    /// A save reached the disk: the transfers whose report could not be saved before (or that
    /// ended in an earlier launch and were not reported) are delivered again.
    mutating func retryReports() -> Step {
        var step = Step()
        for (id, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard case .finished(let transfer, false) = entry.state else { continue }
            entries[id]?.state = .finished(transfer, queued: true)
            step.deliveries.append(delivery(of: transfer))
        }
        return step
    }

    /// The system listed the tasks it has, by token (the type's tables): a task the ledger does
    /// not know is cancelled only once the ledger file was read.
    mutating func listed(_ tokens: Set<String>) -> Step {
        var step = Step()
        if mode == .locked {
            pendingListing = tokens
            return step
        }
        if adoptsNextListing {
            // Tasks of transfers a damaged file named: never recognised again, never cancelled.
            adoptsNextListing = false
            unrecognised.formUnion(tokens.filter { ids[$0] == nil })
            step.snapshot = snapshot()
        }
        guard mode == .read else { return step }
        let stillListed = unrecognised.intersection(tokens)
        if stillListed != unrecognised {
            unrecognised = stillListed
            step.snapshot = snapshot()
        }
        var unlisted = false
        for (id, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard case .sent(let transfer) = entry.state, !transfer.startedThisLaunch, !tokens.contains(entry.token)
            else { continue }
            entries[id]?.state = .unlisted(transfer)
            unlisted = true
        }
        if unlisted { arm(.grace, in: &step) }
        step.tokensToCancel = tokens.filter { ids[$0] == nil && !unrecognised.contains($0) }.sorted()
        return step
    }

    /// The session has delivered the events it had (or the grace timer fired): a transfer the
    /// listing lacked, whose end never came, ended unseen, and is reported lost.
    mutating func eventsDrained() -> Step {
        var step = Step()
        for (id, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard case .unlisted(let transfer) = entry.state else { continue }
            step.deliveries.append(finish(id, transfer, with: .lost))
        }
        if !step.deliveries.isEmpty { step.snapshot = snapshot() }
        return step
    }

    /// A timer armed by an earlier step fired.
    mutating func timerFired(_ timer: Timer) -> Step {
        armed.remove(timer)
        switch timer {
        case .grace: return eventsDrained()
        case .reload: return wake()
        }
    }

    /// Something happened that may mean the ledger file can be read, or saved, now (the system
    /// delivers events, so the device may be unlocked): a locked ledger asks to read it again,
    /// and the reports that could not be saved are tried again.
    mutating func wake() -> Step {
        var step = retryReports()
        step.readsAgain = mode == .locked
        return step
    }

    /// The store read the ledger file again (the type's second table). No transfer of this
    /// launch can hold an ID the file names: none begins while the file cannot be read.
    mutating func read(_ load: BackgroundTransferStore.LedgerLoad) -> Step {
        var step = Step()
        guard mode == .locked else { return step }
        let persisted: Persisted
        switch load {
        case .blocked:
            arm(.reload, in: &step)
            return step
        case .damaged:
            mode = .damaged
            adoptsNextListing = true
            pendingEnds = [:]
            pendingCancels = []
            pendingListing = nil
            return step
        case .loaded(let loaded): persisted = loaded
        case .none: persisted = Persisted()
        }
        mode = .read
        merge(persisted)
        var changed = false
        for (token, end) in pendingEnds.sorted(by: { $0.key < $1.key }) {
            let ended = completed(token: token, end.completion, resumeData: end.resumeData, limit: end.limit)
            changed = changed || ended.snapshot != nil
            step.resumeDataToWrite += ended.resumeDataToWrite
            step.resumeDataToRemove += ended.resumeDataToRemove
            step.deliveries += ended.deliveries
        }
        pendingEnds = [:]
        // After the ends: a transfer that ended before the read keeps its result.
        for id in pendingCancels {
            let cancelled = cancel(id: id)
            changed = changed || cancelled.snapshot != nil
            step.resumeDataToRemove += cancelled.resumeDataToRemove
            step.tokensToCancel += cancelled.tokensToCancel
            step.deliveries += cancelled.deliveries
        }
        pendingCancels = []
        if let tokens = pendingListing {
            pendingListing = nil
            let listing = listed(tokens)
            step.tokensToCancel += listing.tokensToCancel
            step.timers += listing.timers
        }
        step.deliveries += retryReports().deliveries
        if changed { step.snapshot = snapshot() }
        return step
    }

    /// What becomes of a transfer the app asks for.
    enum Begun: Equatable {
        /// It is being prepared.
        case begun
        /// A transfer with its ID is under way or not yet reported: nothing changes.
        case idTaken
        /// The ledger file cannot be read yet (locked): which IDs are taken is unknown, and
        /// nothing could be written down, so nothing begins.
        case ledgerUnreadable
    }

    /// Whether transfer `id` with `token` is written down as handed to the system and not ended:
    /// a hand-off under way checks it last, as a cancel may have come since.
    func isSent(id: String, token: String) -> Bool {
        if case .sent = state(of: id, token: token) { true } else { false }
    }

    /// The app asks for a transfer, whose actions' preparation `preparation` cancels.
    mutating func begin(_ start: Start, preparation: any NetworkCancellable) -> Begun {
        guard mode != .locked else { return .ledgerUnreadable }
        guard entries[start.id] == nil, ids[start.token] == nil else { return .idTaken }
        entries[start.id] = Entry(token: start.token, state: .preparing(start, handle: preparation, cancelled: false))
        ids[start.token] = start.id
        return .begun
    }

    /// The actions prepared `request`: it is written down and handed to the system, unless the
    /// app cancelled it meanwhile (``NetworkError/cancelled`` is delivered).
    mutating func prepared(
        id: String, token: String, request: URLRequest, sentDate: Date, carriesCredentials: Bool = false
    ) -> Step {
        guard case .preparing(let start, _, let cancelled) = state(of: id, token: token) else { return Step() }
        guard !cancelled else { return preparationFailed(id: id, token: token, error: .cancelled) }
        let record = BackgroundTransferRecord(
            id: id, token: token, kind: start.kind, acceptableStatusCodes: start.acceptableStatusCodes,
            url: request.url, method: request.httpMethod ?? "GET", requestID: start.requestID,
            sequenceNumber: start.sequenceNumber, startDate: start.startDate, sentDate: sentDate, phase: .sent,
            carriesCredentials: carriesCredentials ? true : nil)
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

    /// An action failed the transfer before it was sent, or a check of the prepared request did:
    /// the error is delivered (``NetworkError/cancelled`` once the app cancelled it, as a
    /// module's request's cancel wins), and nothing was written down.
    mutating func preparationFailed(id: String, token: String, error: NetworkError) -> Step {
        guard case .preparing(let start, _, let cancelled) = state(of: id, token: token) else { return Step() }
        remove(id, token: token)
        return Step(deliveries: [failure(of: start, cancelled ? .cancelled : error)])
    }

    /// The transfer could not be written down before it was sent: it is not handed to the
    /// system (its result could not reach the app after a relaunch), and the error is delivered
    /// as any result is, once the ledger on disk does not name it (another transfer's snapshot
    /// may have).
    mutating func notSaved(id: String, token: String, error: NetworkError) -> Step {
        guard case .sent(var transfer) = state(of: id, token: token), transfer.startedThisLaunch else { return Step() }
        transfer.unsentError = error
        entries[id]?.state = .finished(transfer, queued: true)
        return Step(deliveries: [delivery(of: transfer)])
    }

    /// Part of an upload's reply arrived. Returns `false` when the reply passes `limit` bytes:
    /// the caller cancels the task, which then ends as too large.
    mutating func bodyReceived(token: String, data: Data, limit: Int) -> Bool {
        guard let id = ids[token], let state = entries[id]?.state else { return true }
        let unlisted: Bool
        var transfer: Transfer
        switch state {
        case .sent(let sent): (transfer, unlisted) = (sent, false)
        case .unlisted(let sent): (transfer, unlisted) = (sent, true)
        case .preparing, .placing, .finished, .reporting: return true
        }
        guard !transfer.bodyTooLarge else { return false }
        if data.count > limit - transfer.body.count {
            transfer.bodyTooLarge = true
            transfer.body = Data()
        } else {
            transfer.body.append(data)
        }
        entries[id]?.state = unlisted ? .unlisted(transfer) : .sent(transfer)
        return !transfer.bodyTooLarge
    }

    /// A download's file arrived: returns where it goes, and the transfer's result stands from
    /// now on (a cancel is too late). `nil` for a token the ledger does not expect a file for:
    /// the file is left for the system to remove.
    mutating func downloadFinished(token: String) -> DownloadTarget? {
        guard let id = ids[token], let state = entries[id]?.state else { return nil }
        let transfer: Transfer
        switch state {
        case .sent(let sent), .unlisted(let sent): transfer = sent
        case .preparing, .placing, .finished, .reporting: return nil
        }
        guard let destination = transfer.record.kind.destination else { return nil }
        entries[id]?.state = .placing(transfer)
        return DownloadTarget(
            destination: destination,
            acceptableStatusCodes: AcceptableStatusCodes(closedRanges: transfer.record.acceptableStatusCodes))
    }

    /// The system says how a task ended: the outcome is written down, with the resume data a
    /// download left (or without the resume data it used), and delivered. A locked ledger keeps
    /// the end of a task it does not know until it can read its file.
    mutating func completed(
        token: String, _ completion: BackgroundTransferOutcome.SystemCompletion, resumeData data: Data? = nil,
        limit: Int
    ) -> Step {
        guard let id = ids[token], let state = entries[id]?.state else {
            guard mode == .locked else { return Step() }
            pendingEnds[token] = PendingEnd(completion: completion, resumeData: data, limit: limit)
            var step = Step()
            step.readsAgain = true
            return step
        }
        let transfer: Transfer
        var completion = completion
        switch state {
        case .sent(let sent), .unlisted(let sent):
            transfer = sent
            if sent.record.kind.isDownload, completion.error == nil,
                let status = (completion.response as? HTTPURLResponse)?.statusCode,
                AcceptableStatusCodes(closedRanges: sent.record.acceptableStatusCodes).contains(status)
            {
                // A download whose file never arrived: no success without the file.
                completion.error = Self.noFileError
            }
        case .placing(let placing): transfer = placing
        case .preparing, .finished, .reporting: return Step()
        }
        let outcome = BackgroundTransferOutcome(
            completion, collected: transfer.body, bodyTooLarge: transfer.bodyTooLarge, limit: limit)
        var step = Step()
        if transfer.record.kind.isDownload {
            // Resume data holds the request's header fields: none is kept of a request with
            // credentials, which would rest on disk and be sent again unchanged.
            if let data, transfer.record.carriesCredentials != true {
                resumeData.insert(id)
                step.resumeDataToWrite.append((id, data))
            } else if resumeData.remove(id) != nil {
                step.resumeDataToRemove.append(id)
            }
        }
        step.deliveries.append(finish(id, transfer, with: outcome))
        step.snapshot = snapshot()
        return step
    }

    /// The app cancels transfer `id` (the type's table); the ID's resume data is dropped unless a
    /// file is being placed (its end decides), so its next download starts over.
    mutating func cancel(id: String) -> Step {
        var step = Step()
        if mode == .locked {
            if !pendingCancels.contains(id) { pendingCancels.append(id) }
            return step
        }
        switch entries[id]?.state {
        case .preparing(let start, let handle, cancelled: false)?:
            entries[id]?.state = .preparing(start, handle: handle, cancelled: true)
            step.preparationToCancel = handle
        case .preparing?:
            break
        case .sent(let transfer)?, .unlisted(let transfer)?:
            step.deliveries.append(finish(id, transfer, with: BackgroundTransferOutcome(.cancelled)))
            step.tokensToCancel.append(transfer.record.token)
        case .placing?:
            return step
        case .finished?, .reporting?, nil:
            break
        }
        if resumeData.remove(id) != nil { step.resumeDataToRemove.append(id) }
        if step.deliveries.isEmpty, step.resumeDataToRemove.isEmpty { return step }
        step.snapshot = snapshot()
        return step
    }

    /// The app is about to be told of transfer `id` with `token`: returns the step that saves
    /// the ledger without it, or `nil` if it was or is being reported (the app must not be told
    /// again). The app is told once that step is saved (``reported(id:token:saved:)``).
    mutating func reporting(id: String, token: String) -> Step? {
        guard case .finished(let transfer, _) = state(of: id, token: token) else { return nil }
        entries[id]?.state = .reporting(transfer)
        return Step(snapshot: snapshot())
    }

    /// The step of ``reporting(id:token:)`` was applied: returns `saved`, whether to call the
    /// app's handler (the type's table); an unsaved transfer is delivered again, once, by
    /// ``retryReports()`` or the next launch.
    mutating func reported(id: String, token: String, saved: Bool) -> Bool {
        guard case .reporting(let transfer) = state(of: id, token: token) else { return false }
        if saved {
            remove(id, token: token)
        } else {
            entries[id]?.state = .finished(transfer, queued: false)
        }
        return saved
    }

    /// What is saved now.
    var persisted: Persisted {
        var transfers: [BackgroundTransferRecord] = []
        for (_, entry) in entries.sorted(by: { $0.key < $1.key }) {
            switch entry.state {
            case .preparing, .reporting: continue
            case .sent(let transfer), .unlisted(let transfer), .placing(let transfer), .finished(let transfer, _):
                transfers.append(transfer.record)
            }
        }
        return Persisted(
            transfers: transfers, resumeData: resumeData.sorted(),
            unrecognised: unrecognised.isEmpty ? nil : unrecognised.sorted(),
            adoptsNextListing: adoptsNextListing ? true : nil)
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

    /// Adds the records of `persisted` whose ID and token are free, and its resume data.
    private mutating func merge(_ persisted: Persisted) {
        for record in persisted.transfers where entries[record.id] == nil && ids[record.token] == nil {
            let transfer = Transfer(record: record, request: record.request, startedThisLaunch: false)
            let state: State = record.outcome == nil ? .sent(transfer) : .finished(transfer, queued: false)
            entries[record.id] = Entry(token: record.token, state: state)
            ids[record.token] = record.id
        }
        resumeData.formUnion(persisted.resumeData)
        unrecognised.formUnion(persisted.unrecognised ?? [])
        adoptsNextListing = adoptsNextListing || persisted.adoptsNextListing == true
    }

    /// Asks for `timer` in `step`, unless it is armed already.
    private mutating func arm(_ timer: Timer, in step: inout Step) {
        guard armed.insert(timer).inserted else { return }
        step.timers.append(timer)
    }

    private mutating func snapshot() -> Snapshot {
        snapshots += 1
        return Snapshot(number: snapshots, persisted: persisted)
    }

    /// The state of transfer `id`, if `token` is its token.
    private func state(of id: String, token: String) -> State? {
        entries[id].flatMap { $0.token == token ? $0.state : nil }
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

    /// The delivery of `transfer`'s outcome; or, for one never handed to the system, its
    /// `unsentError`, without the request or a date sent.
    private func delivery(of transfer: Transfer) -> Delivery {
        let record = transfer.record
        let ending: Delivery.Ending =
            if let unsentError = transfer.unsentError { .failure(unsentError) } else if let outcome = record.outcome {
                .outcome(outcome)
            } else { .failure(.invalidResponse) }
        let sent = transfer.unsentError == nil
        let start = Start(
            id: record.id, token: record.token, kind: record.kind, networkRequest: transfer.networkRequest,
            acceptableStatusCodes: record.acceptableStatusCodes, requestID: record.requestID,
            sequenceNumber: record.sequenceNumber, startDate: record.startDate)
        return Delivery(
            start: start, token: record.token, ending: ending, request: sent ? transfer.request : nil,
            sentDate: sent ? record.sentDate : nil)
    }

    private func failure(of start: Start, _ error: NetworkError) -> Delivery {
        Delivery(start: start, token: nil, ending: .failure(error), request: nil, sentDate: nil)
    }
}
