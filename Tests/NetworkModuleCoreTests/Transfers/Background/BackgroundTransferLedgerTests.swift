import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every (state, event) pair of the ledger behind `BackgroundTransfers`, with the system's
/// events made up as values: no `URLSession`, thread, file or clock. A "relaunch" is a new
/// ledger made from what the last one saved.
@Suite("BackgroundTransferLedger")
struct BackgroundTransferLedgerTests {
    typealias Ledger = BackgroundTransferLedger
    typealias Completion = BackgroundTransferOutcome.SystemCompletion

    let limit = 100
    let destination = URL(fileURLWithPath: "/tmp/videos/intro.mp4")
    let file = URL(fileURLWithPath: "/tmp/uploads/video.mov")

    func start(_ id: String, token: String? = nil, download: Bool = true) -> Ledger.Start {
        let kind: BackgroundTransferRecord.Kind =
            download
            ? .download(destination: destination, replacesExistingFile: true, createsFolders: true)
            : .upload(file: file)
        return Ledger.Start(
            id: id, token: token ?? "token-\(id)", kind: kind, networkRequest: nil,
            acceptableStatusCodes: AcceptableStatusCodes.successful.closedRanges, requestID: UUID(),
            sequenceNumber: 1, startDate: Date(timeIntervalSince1970: 1_000))
    }

    func request(_ path: String = "/file") -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com\(path)")!)
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        return request
    }

    func response(_ status: Int) -> Completion {
        Completion(
            response: HTTPURLResponse(
                url: URL(string: "https://api.example.com/file")!, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "text/plain"]))
    }

    /// A ledger with transfer `id` handed to the system.
    func sent(_ id: String = "a", download: Bool = true, in ledger: inout Ledger) {
        _ = ledger.begin(start(id, download: download))
        _ = ledger.prepared(
            id: id, token: "token-\(id)", request: request(), sentDate: Date(timeIntervalSince1970: 1_001))
    }

    /// The app is told of transfer `id`: its removal was saved.
    func report(_ id: String = "a", in ledger: inout Ledger) {
        _ = ledger.reporting(id: id, token: "token-\(id)")
        _ = ledger.reported(id: id, token: "token-\(id)", saved: true)
    }

    /// What the next launch reads: the ledger as saved.
    func relaunched(_ ledger: Ledger) -> Ledger {
        Ledger(ledger.persisted)
    }

    func statusCode(of delivery: Ledger.Delivery?) -> Int? {
        guard case .outcome(let outcome)? = delivery?.ending, case .response(let status, _, _, _) = outcome.ending
        else { return nil }
        return status
    }

    func error(of delivery: Ledger.Delivery?) -> NetworkError? {
        guard case .failure(let error)? = delivery?.ending else { return nil }
        return error
    }

    // MARK: - Beginning and preparing

    @Test("when the app asks for a transfer, should prepare it without writing it down")
    func begin() {
        var ledger = Ledger()

        let begun = ledger.begin(start("a"))

        #expect(begun == .begun)
        #expect(ledger.count == 1)
        #expect(ledger.persisted.transfers.isEmpty)
    }

    @Test("when an ID is under way or not yet reported, should refuse a second transfer with it")
    func beginTakenID() {
        var ledger = Ledger()
        _ = ledger.begin(start("preparing"))
        sent("sent", in: &ledger)
        sent("finished", in: &ledger)
        _ = ledger.completed(token: "token-finished", response(200), limit: limit)

        let again = ["preparing", "sent", "finished"].map { ledger.begin(start($0, token: "new-\($0)")) }

        #expect(again == [.idTaken, .idTaken, .idTaken])
        #expect(ledger.count == 3)
    }

    @Test("when the actions have prepared it, should write the transfer down and send it")
    func prepared() {
        var ledger = Ledger()
        _ = ledger.begin(start("a"))

        let step = ledger.prepared(id: "a", token: "token-a", request: request(), sentDate: Date())

        #expect(step.send?.token == "token-a")
        #expect(step.send?.request.value(forHTTPHeaderField: "Authorization") == "Bearer secret")
        #expect(step.send?.resumes == false)
        let saved = step.snapshot?.persisted.transfers
        #expect(saved?.map(\.id) == ["a"])
        #expect(saved?.first?.phase == .sent)
        #expect(saved?.first?.url == URL(string: "https://api.example.com/file"))
        #expect(step.deliveries.isEmpty)
    }

    @Test("when preparation ends for an unknown or cancelled transfer, or a wrong token, should do nothing")
    func preparedTooLate() {
        var ledger = Ledger()
        _ = ledger.begin(start("a"))
        _ = ledger.cancel(id: "a")
        _ = ledger.begin(start("b"))

        _ = ledger.preparationFailed(id: "a", token: "token-a", error: .cancelled)
        let cancelled = ledger.prepared(id: "a", token: "token-a", request: request(), sentDate: Date())
        let wrongToken = ledger.prepared(id: "b", token: "other", request: request(), sentDate: Date())

        #expect(cancelled.send == nil && cancelled.snapshot == nil)
        #expect(wrongToken.send == nil && wrongToken.snapshot == nil)
        #expect(ledger.persisted.transfers.isEmpty)
    }

    @Test("when an action fails the transfer, should deliver the error once, with nothing written down")
    func preparationFailed() {
        var ledger = Ledger()
        _ = ledger.begin(start("a"))

        let step = ledger.preparationFailed(id: "a", token: "token-a", error: .invalidRequest(.missingURL))
        let again = ledger.preparationFailed(id: "a", token: "token-a", error: .invalidRequest(.missingURL))

        #expect(step.deliveries.count == 1)
        #expect(error(of: step.deliveries.first) == .invalidRequest(.missingURL))
        #expect(step.deliveries.first?.token == nil)
        #expect(step.snapshot == nil)
        #expect(again.deliveries.isEmpty)
        #expect(ledger.count == 0)
    }

    @Test(
        "when cancelled while preparing, should cancel the preparation once and deliver .cancelled when it ends, sending nothing later"
    )
    func cancelWhilePreparing() {
        var ledger = Ledger()
        let preparation = PreparationStub()
        _ = ledger.begin(start("a"), preparation: preparation)

        let step = ledger.cancel(id: "a")
        let again = ledger.cancel(id: "a")
        let end = ledger.preparationFailed(id: "a", token: "token-a", error: .cancelled)
        let late = ledger.prepared(id: "a", token: "token-a", request: request(), sentDate: Date())

        #expect(step.preparationToCancel as? PreparationStub === preparation)
        #expect(step.deliveries.isEmpty && step.tokensToCancel.isEmpty && step.snapshot == nil)
        #expect(again.preparationToCancel == nil && again.deliveries.isEmpty)
        #expect(end.deliveries.count == 1 && error(of: end.deliveries.first) == .cancelled)
        #expect(late.send == nil && late.deliveries.isEmpty)
        #expect(ledger.count == 0)
    }

    @Test(
        "when cancelled after the preparation handed the request on, should deliver .cancelled instead of sending it"
    )
    func cancelAfterPreparationHandedOn() {
        var ledger = Ledger()
        _ = ledger.begin(start("a"))

        _ = ledger.cancel(id: "a")
        let step = ledger.prepared(id: "a", token: "token-a", request: request(), sentDate: Date())

        #expect(step.send == nil && step.snapshot == nil)
        #expect(step.deliveries.count == 1 && error(of: step.deliveries.first) == .cancelled)
        #expect(ledger.count == 0 && ledger.persisted.transfers.isEmpty)
    }

    @Test("when a sent transfer could not be written down, should deliver the error as unsent, reported as any result")
    func notSaved() {
        var ledger = Ledger()
        sent("a", in: &ledger)

        let step = ledger.notSaved(id: "a", token: "token-a", error: .transportError(.cannotWriteToFile))

        let delivery = step.deliveries.first
        #expect(step.deliveries.count == 1)
        #expect(error(of: delivery) == .transportError(.cannotWriteToFile))
        #expect(delivery?.token == "token-a" && delivery?.request == nil && delivery?.sentDate == nil)
        #expect(delivery?.start.kind.destination?.url == destination)
        #expect(step.snapshot == nil && step.send == nil)
        // Reported as any result: forgotten once a ledger without it is on disk.
        let reporting = ledger.reporting(id: "a", token: "token-a")
        #expect(reporting?.snapshot?.persisted.transfers.isEmpty == true)
        let told = ledger.reported(id: "a", token: "token-a", saved: true)
        #expect(told)
        #expect(ledger.count == 0)
        let again = ledger.begin(start("a", token: "again"))
        #expect(again == .begun)
    }

    @Test("when a save fails for a transfer of an earlier launch, an ended one or a wrong token, should do nothing")
    func notSavedIgnored() {
        var ledger = Ledger()
        sent("earlier", in: &ledger)
        var relaunched = relaunched(ledger)
        sent("ended", in: &relaunched)
        _ = relaunched.completed(token: "token-ended", response(200), limit: limit)
        sent("other", in: &relaunched)

        let steps = [
            relaunched.notSaved(id: "earlier", token: "token-earlier", error: .cancelled),
            relaunched.notSaved(id: "ended", token: "token-ended", error: .cancelled),
            relaunched.notSaved(id: "other", token: "token-wrong", error: .cancelled),
        ]

        #expect(steps.allSatisfy { $0.deliveries.isEmpty && $0.snapshot == nil })
        #expect(relaunched.count == 3)
    }

    // MARK: - The system's events

    @Test("when an upload succeeds, should write its outcome down and deliver its reply")
    func uploadCompleted() {
        var ledger = Ledger()
        sent(download: false, in: &ledger)
        _ = ledger.bodyReceived(token: "token-a", data: Data("{\"id\":".utf8), limit: limit)
        _ = ledger.bodyReceived(token: "token-a", data: Data("1}".utf8), limit: limit)

        let step = ledger.completed(token: "token-a", response(201), limit: limit)

        #expect(statusCode(of: step.deliveries.first) == 201)
        guard case .outcome(let outcome)? = step.deliveries.first?.ending,
            case .response(_, _, _, let body) = outcome.ending
        else { return #expect(Bool(false)) }
        #expect(body == Data("{\"id\":1}".utf8))
        #expect(step.snapshot?.persisted.transfers.first?.outcome == outcome)
        #expect(step.deliveries.first?.token == "token-a")
    }

    @Test("when an upload's reply passes the limit, should ask for a cancel and end as too large")
    func replyTooLarge() {
        var ledger = Ledger()
        sent(download: false, in: &ledger)

        let first = ledger.bodyReceived(token: "token-a", data: Data(count: 60), limit: limit)
        let second = ledger.bodyReceived(token: "token-a", data: Data(count: 60), limit: limit)
        let third = ledger.bodyReceived(token: "token-a", data: Data(count: 1), limit: limit)
        let step = ledger.completed(
            token: "token-a", Completion(error: URLError(.cancelled)), limit: limit)

        #expect(first && !second && !third)
        guard case .outcome(let outcome)? = step.deliveries.first?.ending else { return #expect(Bool(false)) }
        #expect(outcome.ending == .tooLarge(limit: limit))
    }

    @Test("when body bytes arrive for an unknown token, should neither keep them nor cancel")
    func bodyForUnknownToken() {
        var ledger = Ledger()

        let goesOn = ledger.bodyReceived(token: "nobody", data: Data(count: 1_000), limit: limit)

        #expect(goesOn)
        #expect(ledger.count == 0)
    }

    @Test("when a download's file arrives, should say where it goes; a cancel then is too late")
    func downloadFinished() {
        var ledger = Ledger()
        sent(in: &ledger)

        let target = ledger.downloadFinished(token: "token-a")
        let cancel = ledger.cancel(id: "a")
        let step = ledger.completed(token: "token-a", response(200), limit: limit)

        #expect(target?.destination == DownloadDestination(destination))
        #expect(target?.acceptableStatusCodes.contains(200) == true)
        #expect(cancel.deliveries.isEmpty && cancel.tokensToCancel.isEmpty)
        #expect(statusCode(of: step.deliveries.first) == 200)
    }

    @Test("when a download ends well but its file never arrived, should fail it rather than succeed without a file")
    func downloadWithoutFile() {
        var ledger = Ledger()
        sent(in: &ledger)
        sent("refused", in: &ledger)

        let accepted = ledger.completed(token: "token-a", response(200), limit: limit)
        let refused = ledger.completed(token: "token-refused", response(404), limit: limit)

        guard case .outcome(let outcome)? = accepted.deliveries.first?.ending else { return #expect(Bool(false)) }
        #expect(
            outcome.result(request: request(), acceptableStatusCodes: .successful, duration: 0).error
                == .transportError(.cannotMoveFile))
        #expect(statusCode(of: refused.deliveries.first) == 404)
    }

    @Test("when a file arrives for an upload, an unknown token or a second time, should expect no file")
    func downloadFinishedUnexpected() {
        var ledger = Ledger()
        sent("upload", download: false, in: &ledger)
        sent("download", in: &ledger)
        _ = ledger.downloadFinished(token: "token-download")

        let upload = ledger.downloadFinished(token: "token-upload")
        let unknown = ledger.downloadFinished(token: "nobody")
        let twice = ledger.downloadFinished(token: "token-download")

        #expect(upload == nil && unknown == nil && twice == nil)
    }

    @Test("when the system reports a transfer's end twice, should deliver it once")
    func completedTwice() {
        var ledger = Ledger()
        sent(in: &ledger)
        let first = ledger.completed(token: "token-a", response(200), limit: limit)

        let second = ledger.completed(token: "token-a", response(500), limit: limit)

        #expect(first.deliveries.count == 1)
        #expect(second.deliveries.isEmpty && second.snapshot == nil)
    }

    @Test("when an event names the token of an earlier transfer with a reused ID, should drop it")
    func staleToken() {
        var ledger = Ledger()
        sent(in: &ledger)
        let first = ledger.completed(token: "token-a", response(200), limit: limit)
        report(in: &ledger)
        _ = ledger.begin(start("a", token: "second"))
        _ = ledger.prepared(id: "a", token: "second", request: request(), sentDate: Date())

        let stale = ledger.completed(token: "token-a", response(500), limit: limit)

        #expect(first.deliveries.count == 1)
        #expect(stale.deliveries.isEmpty)
        #expect(ledger.persisted.transfers.map(\.token) == ["second"])
    }

    // MARK: - Resume data

    @Test("when an interrupted download leaves resume data, should write it before the ledger names it")
    func resumeDataKept() {
        var ledger = Ledger()
        sent(in: &ledger)

        let step = ledger.completed(
            token: "token-a", Completion(error: URLError(.networkConnectionLost)), resumeData: Data([1, 2, 3]),
            limit: limit)

        #expect(step.resumeDataToWrite.map(\.id) == ["a"])
        #expect(step.resumeDataToWrite.first?.data == Data([1, 2, 3]))
        #expect(step.snapshot?.persisted.resumeData == ["a"])
        #expect(error(of: step.deliveries.first) == nil)
        guard case .outcome(let outcome)? = step.deliveries.first?.ending else { return #expect(Bool(false)) }
        #expect(
            outcome.result(request: request(), acceptableStatusCodes: .successful, duration: 0).error
                == .networkConnectionLost)
    }

    @Test("when the next download of the ID starts, should continue from its resume data")
    func resumeDataUsed() {
        var ledger = Ledger()
        sent(in: &ledger)
        _ = ledger.completed(
            token: "token-a", Completion(error: URLError(.timedOut)), resumeData: Data([1]), limit: limit)
        report(in: &ledger)
        _ = ledger.begin(start("a", token: "second"))

        let step = ledger.prepared(id: "a", token: "second", request: request(), sentDate: Date())

        #expect(step.send?.resumes == true)
    }

    @Test("when a download ends without resume data, should drop what it had; an upload leaves none")
    func resumeDataDropped() {
        var ledger = Ledger(Ledger.Persisted(resumeData: ["a", "up"]))
        sent(in: &ledger)
        sent("up", download: false, in: &ledger)

        let download = ledger.completed(token: "token-a", response(200), limit: limit)
        let upload = ledger.completed(
            token: "token-up", Completion(error: URLError(.timedOut)), resumeData: Data([9]), limit: limit)

        #expect(download.resumeDataToRemove == ["a"])
        #expect(upload.resumeDataToWrite.isEmpty && upload.resumeDataToRemove.isEmpty)
        #expect(ledger.persisted.resumeData == ["up"])
    }

    // MARK: - Cancelling

    @Test("when a download sent with credentials is interrupted, should keep no resume data, across a relaunch too")
    func credentialedResumeData() {
        var ledger = Ledger(Ledger.Persisted(resumeData: ["a"]))
        _ = ledger.begin(start("a", download: true))
        _ = ledger.prepared(
            id: "a", token: "token-a", request: request(), sentDate: Date(timeIntervalSince1970: 1_001),
            carriesCredentials: true)
        var relaunched = relaunched(ledger)

        let step = relaunched.completed(
            token: "token-a", Completion(error: URLError(.networkConnectionLost)), resumeData: Data([1]), limit: limit)

        #expect(ledger.persisted.transfers.first?.carriesCredentials == true)
        #expect(step.resumeDataToWrite.isEmpty)
        #expect(step.resumeDataToRemove == ["a"], "the older resume data goes too")
        #expect(step.snapshot?.persisted.resumeData == [])
    }

    @Test("when a sent transfer is cancelled, should deliver .cancelled, cancel its task and drop its resume data")
    func cancelSent() {
        var ledger = Ledger(Ledger.Persisted(resumeData: ["a"]))
        sent(in: &ledger)

        let step = ledger.cancel(id: "a")
        let late = ledger.completed(token: "token-a", response(200), limit: limit)

        guard case .outcome(let outcome)? = step.deliveries.first?.ending else { return #expect(Bool(false)) }
        #expect(outcome.ending == .cancelled)
        #expect(step.tokensToCancel == ["token-a"])
        #expect(step.resumeDataToRemove == ["a"])
        #expect(step.snapshot?.persisted.transfers.first?.outcome?.ending == .cancelled)
        #expect(step.snapshot?.persisted.resumeData == [])
        #expect(late.deliveries.isEmpty)
    }

    @Test("when an ID with no transfer is cancelled, should drop its resume data, or do nothing")
    func cancelIdle() {
        var ledger = Ledger(Ledger.Persisted(resumeData: ["a"]))

        let withData = ledger.cancel(id: "a")
        let without = ledger.cancel(id: "b")

        #expect(withData.resumeDataToRemove == ["a"] && withData.snapshot?.persisted.resumeData == [])
        #expect(without.resumeDataToRemove.isEmpty && without.snapshot == nil && without.deliveries.isEmpty)
    }

    @Test("when a finished transfer is cancelled, should keep its result")
    func cancelFinished() {
        var ledger = Ledger()
        sent(in: &ledger)
        _ = ledger.completed(token: "token-a", response(200), limit: limit)

        let step = ledger.cancel(id: "a")

        #expect(step.deliveries.isEmpty && step.tokensToCancel.isEmpty && step.snapshot == nil)
        #expect(ledger.persisted.transfers.first?.outcome != nil)
    }

    // MARK: - Reporting, and relaunching

    @Test("when the app is told, should remove the transfer from what is saved, once")
    func reporting() {
        var ledger = Ledger()
        sent(in: &ledger)
        _ = ledger.completed(token: "token-a", response(200), limit: limit)

        let first = ledger.reporting(id: "a", token: "token-a")
        let second = ledger.reporting(id: "a", token: "token-a")
        let told = ledger.reported(id: "a", token: "token-a", saved: true)
        let again = ledger.reported(id: "a", token: "token-a", saved: true)

        #expect(first?.snapshot?.persisted.transfers == [])
        #expect(second == nil)
        #expect(told && !again)
        #expect(ledger.count == 0)
    }

    @Test("when a transfer still under way is about to be reported, should refuse")
    func reportingUnfinished() {
        var ledger = Ledger()
        sent(in: &ledger)

        let step = ledger.reporting(id: "a", token: "token-a")

        #expect(step == nil)
        #expect(ledger.count == 1)
    }

    @Test("when the app relaunches after a crash before reporting, should deliver the saved outcome once")
    func relaunchBeforeReporting() {
        var before = Ledger()
        sent(download: false, in: &before)
        _ = before.completed(token: "token-a", response(200), limit: limit)
        var after = relaunched(before)

        let first = after.launched()
        let second = after.launched()

        #expect(statusCode(of: first.deliveries.first) == 200)
        #expect(first.deliveries.count == 1 && second.deliveries.isEmpty)
        #expect(first.deliveries.first?.request?.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(first.deliveries.first?.request?.url == URL(string: "https://api.example.com/file"))
    }

    @Test("when the app relaunches after reporting, should deliver nothing again")
    func relaunchAfterReporting() {
        var before = Ledger()
        sent(in: &before)
        _ = before.completed(token: "token-a", response(200), limit: limit)
        report(in: &before)
        var after = relaunched(before)

        let step = after.launched()

        #expect(step.deliveries.isEmpty)
        #expect(after.count == 0)
    }

    @Test("when a transfer ends while the app is away, should deliver it when the relaunched session reports it")
    func endedWhileAway() {
        var before = Ledger()
        sent(download: false, in: &before)
        var after = relaunched(before)
        _ = after.launched()
        _ = after.listed(["token-a"])

        let step = after.completed(token: "token-a", response(204), limit: limit)

        #expect(statusCode(of: step.deliveries.first) == 204)
        #expect(step.deliveries.first?.start.networkRequest == nil)
    }

    @Test("when the events are drained and an unlisted transfer never ended, should report it lost once")
    func listedLost() {
        var before = Ledger()
        sent(in: &before)
        var after = relaunched(before)
        sent("new", in: &after)

        let listing = after.listed([])
        let step = after.eventsDrained()
        let again = after.eventsDrained()
        let late = after.completed(token: "token-a", response(200), limit: limit)

        #expect(listing.deliveries.isEmpty && listing.snapshot == nil)
        #expect(listing.timers == [.grace])
        #expect(step.deliveries.map(\.start.id) == ["a"])
        guard case .outcome(let outcome)? = step.deliveries.first?.ending else { return #expect(Bool(false)) }
        #expect(outcome == .lost)
        #expect(step.snapshot?.persisted.transfers.first { $0.id == "a" }?.outcome == .lost)
        #expect(again.deliveries.isEmpty && again.snapshot == nil)
        #expect(late.deliveries.isEmpty)
    }

    @Test("when the system lists a task the ledger does not know, should cancel it")
    func listedUnknown() {
        var before = Ledger()
        sent(in: &before)
        var after = relaunched(before)

        let step = after.listed(["token-a", "forgotten", ""])

        #expect(step.deliveries.isEmpty && step.snapshot == nil)
        #expect(step.tokensToCancel == ["", "forgotten"])
    }

    @Test("when the completion comes after a listing that lacks it, should deliver the completion, not lost")
    func completedAfterListing() {
        var before = Ledger()
        sent(download: false, in: &before)
        var after = relaunched(before)
        _ = after.launched()
        _ = after.listed([])

        let step = after.completed(token: "token-a", response(201), limit: limit)
        let drained = after.eventsDrained()

        #expect(statusCode(of: step.deliveries.first) == 201)
        #expect(step.snapshot?.persisted.transfers.first?.outcome != .lost)
        #expect(drained.deliveries.isEmpty && drained.snapshot == nil)
    }

    @Test("when the completion comes before the listing, should deliver it once")
    func completedBeforeListing() {
        var before = Ledger()
        sent(download: false, in: &before)
        var after = relaunched(before)
        _ = after.launched()

        let step = after.completed(token: "token-a", response(201), limit: limit)
        let listing = after.listed([])
        let drained = after.eventsDrained()

        #expect(statusCode(of: step.deliveries.first) == 201)
        #expect(listing.deliveries.isEmpty && listing.timers.isEmpty && listing.tokensToCancel.isEmpty)
        #expect(drained.deliveries.isEmpty)
    }

    @Test("when a late completion leaves resume data, should write it")
    func unlistedResumeData() {
        var before = Ledger()
        sent(in: &before)
        var after = relaunched(before)
        _ = after.listed([])

        let step = after.completed(
            token: "token-a", Completion(error: URLError(.networkConnectionLost)), resumeData: Data([4]), limit: limit)

        #expect(step.resumeDataToWrite.map(\.id) == ["a"])
        #expect(step.snapshot?.persisted.resumeData == ["a"])
        #expect(step.deliveries.map(\.start.id) == ["a"])
    }

    @Test("when an unlisted transfer is cancelled, or the grace timer fires twice, should deliver once")
    func unlistedCancelled() {
        var before = Ledger()
        sent(in: &before)
        var after = relaunched(before)
        let listing = after.listed([])
        let again = after.listed([])

        let cancelled = after.cancel(id: "a")
        let fired = after.timerFired(.grace)

        guard case .outcome(let outcome)? = cancelled.deliveries.first?.ending else { return #expect(Bool(false)) }
        #expect(outcome.ending == .cancelled)
        #expect(cancelled.tokensToCancel == ["token-a"])
        #expect(listing.timers == [.grace] && again.timers.isEmpty)
        #expect(fired.deliveries.isEmpty)
    }

    // MARK: - A ledger file that cannot be read

    @Test("when the ledger file cannot be read or is damaged, a listing should cancel nothing and report nothing")
    func blindListing() {
        var locked = Ledger(BackgroundTransferStore.LedgerLoad.blocked)
        var damaged = Ledger(BackgroundTransferStore.LedgerLoad.damaged)

        let launched = locked.launched()
        let lockedListing = locked.listed(["token-a", "stray"])
        let damagedListing = damaged.listed(["token-a", "stray"])

        #expect(launched.timers == [.reload])
        #expect(lockedListing.tokensToCancel.isEmpty && lockedListing.deliveries.isEmpty)
        #expect(damagedListing.tokensToCancel.isEmpty && damagedListing.deliveries.isEmpty)
    }

    @Test(
        "when a damaged ledger's launch finds tasks it cannot recognise, should save them, and later launches leave them running"
    )
    func damagedTasksNeverCancelled() throws {
        var damaged = Ledger(BackgroundTransferStore.LedgerLoad.damaged)
        let found = damaged.listed(["token-a", "token-b"])
        let again = damaged.listed(["token-a"])
        let saved = try #require(found.snapshot?.persisted)

        // The next launch reads the saved file cleanly.
        var next = Ledger(.loaded(saved))
        let listing = next.listed(["token-a", "token-b", "stray"])
        // Once the system no longer lists a task, it is forgotten.
        let ended = next.listed(["token-b"])

        #expect(saved.unrecognised == ["token-a", "token-b"] && found.tokensToCancel.isEmpty)
        #expect(again.snapshot == nil, "nothing new: nothing to save")
        #expect(listing.tokensToCancel == ["stray"] && listing.snapshot == nil)
        #expect(ended.snapshot?.persisted.unrecognised == ["token-b"] && ended.tokensToCancel.isEmpty)
        #expect(next.listed([]).snapshot?.persisted.unrecognised == nil)
    }

    @Test(
        "when a damaged ledger's launch saves before the system lists its tasks, the next launch's listing adopts them")
    func damagedSavedBeforeListing() throws {
        var damaged = Ledger(BackgroundTransferStore.LedgerLoad.damaged)
        sent("b", in: &damaged)  // the app goes on: a ledger is saved, with no listing yet
        let saved = damaged.persisted

        var next = Ledger(.loaded(saved))
        let listing = next.listed(["token-lost", "token-b"])
        var after = Ledger(.loaded(try #require(listing.snapshot?.persisted)))

        #expect(saved.adoptsNextListing == true)
        #expect(listing.tokensToCancel.isEmpty, "the damaged era's task is adopted, not cancelled")
        #expect(listing.snapshot?.persisted.unrecognised == ["token-lost"])
        #expect(listing.snapshot?.persisted.adoptsNextListing == nil)
        #expect(after.listed(["token-lost", "stray"]).tokensToCancel == ["stray"])
    }

    @Test("when a ledger file was written before unrecognised tokens were saved, should read it as before")
    func persistedWithoutUnrecognised() throws {
        let old = Data(#"{"resumeData":["a"],"transfers":[],"version":1}"#.utf8)
        let persisted = try JSONDecoder().decode(Ledger.Persisted.self, from: old)
        #expect(persisted == Ledger.Persisted(resumeData: ["a"]))
        let encoded = try JSONEncoder().encode(persisted)
        #expect(String(decoding: encoded, as: UTF8.self).contains("unrecognised") == false)
    }

    @Test("when a locked ledger hears of an end it does not know, should keep it and ask to read the file again")
    func blindCompleted() {
        var locked = Ledger(BackgroundTransferStore.LedgerLoad.blocked)
        var damaged = Ledger(BackgroundTransferStore.LedgerLoad.damaged)

        let kept = locked.completed(token: "token-a", response(201), limit: limit)
        let dropped = damaged.completed(token: "token-a", response(201), limit: limit)

        #expect(kept.deliveries.isEmpty && kept.snapshot == nil && kept.readsAgain)
        #expect(dropped.deliveries.isEmpty && !dropped.readsAgain)
        #expect(locked.wake().readsAgain && !damaged.wake().readsAgain)
    }

    @Test("when the locked file can be read, should deliver the kept ends once and replay the kept listing")
    func blindRead() {
        var before = Ledger()
        sent(in: &before)
        sent("b", download: false, in: &before)
        sent("c", download: false, in: &before)
        var after = Ledger(BackgroundTransferStore.LedgerLoad.blocked)
        _ = after.launched()
        _ = after.listed(["token-a", "token-b", "stray"])
        _ = after.completed(
            token: "token-a", Completion(error: URLError(.networkConnectionLost)), resumeData: Data([5]), limit: limit)
        _ = after.completed(token: "token-b", response(201), limit: limit)

        let armedAlready = after.read(.blocked)
        let fired = after.timerFired(.reload)
        let stillLocked = after.read(.blocked)
        let step = after.read(.loaded(before.persisted))
        let again = after.read(.loaded(before.persisted))
        let drained = after.eventsDrained()

        #expect(armedAlready.timers.isEmpty && fired.readsAgain && stillLocked.timers == [.reload])
        #expect(step.deliveries.map(\.start.id) == ["a", "b"])
        #expect(statusCode(of: step.deliveries.last) == 201)
        #expect(step.resumeDataToWrite.map(\.id) == ["a"])
        #expect(step.snapshot?.persisted.resumeData == ["a"])
        #expect(step.tokensToCancel == ["stray"])
        #expect(step.timers == [.grace])
        #expect(again.deliveries.isEmpty && again.snapshot == nil)
        #expect(drained.deliveries.map(\.start.id) == ["c"])
    }

    @Test("when the locked file turns out damaged, should drop the kept ends and stay blind")
    func blindDamaged() {
        var after = Ledger(BackgroundTransferStore.LedgerLoad.blocked)
        _ = after.completed(token: "token-a", response(201), limit: limit)

        let step = after.read(.damaged)
        let listing = after.listed(["stray"])

        #expect(step.deliveries.isEmpty && step.snapshot == nil)
        #expect(listing.tokensToCancel.isEmpty)
        #expect(!after.wake().readsAgain)
    }

    @Test("when the file cannot be read yet, should begin nothing, and begin again once it is read")
    func blindBegin() {
        var before = Ledger()
        sent(in: &before)
        var after = Ledger(BackgroundTransferStore.LedgerLoad.blocked)

        let whileLocked = after.begin(start("a", token: "new"))
        _ = after.read(.loaded(before.persisted))

        #expect(whileLocked == .ledgerUnreadable && after.count == 1)
        #expect(after.begin(start("a", token: "new")) == .idTaken, "the file's transfer holds the ID")
        #expect(after.begin(start("b")) == .begun)
        #expect(after.persisted.transfers.map(\.token) == ["token-a"])
    }

    @Test(
        "when the app cancels while the file cannot be read, should cancel once it is read, unless the end came first")
    func blindCancel() {
        var before = Ledger()
        sent(in: &before)
        sent("b", in: &before)
        var after = Ledger(BackgroundTransferStore.LedgerLoad.blocked)

        let whileLocked = after.cancel(id: "a")
        _ = after.cancel(id: "b")
        _ = after.completed(token: "token-b", response(201), limit: limit)
        let step = after.read(.loaded(before.persisted))

        #expect(whileLocked.deliveries.isEmpty && whileLocked.tokensToCancel.isEmpty)
        #expect(step.tokensToCancel == ["token-a"])
        let endings = step.deliveries.map { delivery -> String in
            guard case .outcome(let outcome) = delivery.ending else { return "\(delivery.start.id): failure" }
            return "\(delivery.start.id): \(outcome.ending == .cancelled ? "cancelled" : "its result")"
        }
        #expect(endings.sorted() == ["a: cancelled", "b: its result"], "b ended before the read")
    }

    // MARK: - A report that cannot be saved

    @Test("when the removal of a reported transfer is not saved, should not tell the app, and deliver it again once")
    func reportNotSaved() {
        var ledger = Ledger()
        sent(download: false, in: &ledger)
        _ = ledger.completed(token: "token-a", response(200), limit: limit)
        let removal = ledger.reporting(id: "a", token: "token-a")

        let told = ledger.reported(id: "a", token: "token-a", saved: false)
        let retried = ledger.retryReports()
        let twice = ledger.retryReports()

        #expect(removal?.snapshot?.persisted.transfers == [])
        #expect(!told)
        #expect(ledger.persisted.transfers.map(\.id) == ["a"])
        #expect(retried.deliveries.map(\.start.id) == ["a"] && twice.deliveries.isEmpty)
        #expect(statusCode(of: retried.deliveries.first) == 200)
    }

    @Test("when a saved ledger repeats an ID or a token, should keep the first")
    func duplicateRecords() {
        var ledger = Ledger()
        sent(in: &ledger)
        let record = ledger.persisted.transfers[0]
        var other = record
        other = BackgroundTransferRecord(
            id: "b", token: record.token, kind: record.kind, acceptableStatusCodes: [], url: nil, method: "GET",
            requestID: UUID(), sequenceNumber: 2, startDate: Date(), sentDate: Date(), phase: .sent)

        let loaded = Ledger(Ledger.Persisted(transfers: [record, record, other]))

        #expect(loaded.count == 1)
    }

    @Test("when the ledger changes, should number each snapshot above the last")
    func snapshotNumbers() {
        var ledger = Ledger()
        _ = ledger.begin(start("a"))

        let first = ledger.prepared(id: "a", token: "token-a", request: request(), sentDate: Date()).snapshot
        let second = ledger.completed(token: "token-a", response(200), limit: limit).snapshot
        let third = ledger.reporting(id: "a", token: "token-a")?.snapshot

        #expect(first?.number == 1 && second?.number == 2 && third?.number == 3)
    }
}

/// A preparation's handle, told apart by identity: the ledger hands it back to be cancelled.
final class PreparationStub: NetworkCancellable {
    func cancel() {}
}

extension BackgroundTransferLedger {
    /// Begins `start` with a preparation handle no test looks at.
    mutating func begin(_ start: Start) -> Begun {
        begin(start, preparation: PreparationStub())
    }
}
