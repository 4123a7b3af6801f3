import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One transport task's record, event by event: where the body goes, the size limit, activity
/// for the idle timeout, redirects, refusals, and the one report each way of ending makes. No
/// session and no threads: the record is a value.
@Suite("Transport task record")
struct TransportTaskRecordTests {
    private static let url = URL(string: "http://127.0.0.1/body")!
    private static let request = URLRequest(url: url)

    private static func response(_ status: Int, headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    /// A record for a task whose transfer is `transfer` (none: a plain data task).
    private static func record(
        _ transfer: TransferOptions = TransferOptions(), redirectPolicy: RedirectPolicy = .follow
    ) -> TransportTaskRecord {
        TransportTaskRecord(
            request: request, completionHandler: { _, _, _ in }, redirectPolicy: redirectPolicy,
            timeout: 30, transfer: TransportTaskOptions(transfer, request: request))
    }

    private static let sink = TransferOptions.ChunkSink { _, _, _ in true }

    /// A plain task's record once `head` and then `body` have arrived.
    private static func record(collecting body: String, after head: HTTPURLResponse) -> TransportTaskRecord {
        var record = record()
        _ = record.headArrived(head, capacity: 0, at: 1)
        _ = record.chunkArrived(Data(body.utf8), limit: nil, at: 2)
        return record
    }

    // MARK: Where the body goes

    @Test(
        "when a plain task's chunks arrive, should collect them in the room its head declared, and count them",
        arguments: [0, 4, 1 << 20])
    func collects(capacity: Int) {
        var record = Self.record()
        _ = record.headArrived(Self.response(200), capacity: capacity, at: 1)

        guard case .collected = record.chunkArrived(Data("ab".utf8), limit: nil, at: 2),
            case .collected = record.chunkArrived(Data("cd".utf8), limit: nil, at: 3)
        else {
            Issue.record("chunks of a plain task should be collected")
            return
        }
        #expect(record.collected == Data("abcd".utf8))
        #expect(record.receivedBytes == 4)
        #expect(record.destination == .memory)
        #expect(record.activity(now: 99) == 3)
    }

    @Test("when a body arrives in one chunk, should collect exactly it, and an empty chunk changes nothing")
    func oneChunk() {
        var record = Self.record()
        _ = record.headArrived(Self.response(200, headers: ["Content-Length": "2"]), capacity: 2, at: 1)
        _ = record.chunkArrived(Data(), limit: nil, at: 2)
        _ = record.chunkArrived(Data("ok".utf8), limit: nil, at: 3)
        _ = record.chunkArrived(Data(), limit: nil, at: 4)

        #expect(record.collected == Data("ok".utf8))
        #expect(record.receivedBytes == 2)
    }

    @Test("when the first chunk is a slice of a larger buffer, should collect a body that starts at index 0")
    func sliceChunk() {
        var record = Self.record()
        _ = record.headArrived(Self.response(200), capacity: 0, at: 1)
        let buffer = Data("xxok".utf8)
        _ = record.chunkArrived(buffer[2...], limit: nil, at: 2)

        #expect(record.collected.startIndex == 0)
        #expect(record.collected.first == UInt8(ascii: "o"))
        #expect(record.collected == Data("ok".utf8))
    }

    @Test("when a stream's 2xx head arrives, should hand its chunks to the sink with that response, collecting none")
    func streams() {
        var record = Self.record(TransferOptions(destination: .chunks(Self.sink)))
        let head = Self.response(200)

        guard case .proceed(_?) = record.headArrived(head, capacity: 0, at: 1) else {
            Issue.record("a stream's head should hand on its transfer")
            return
        }
        guard
            case .streamed(let sink, let response, _) = record.chunkArrived(
                Data("ab".utf8), limit: nil, at: 2)
        else {
            Issue.record("a 2xx body of a stream should go to its sink")
            return
        }
        #expect(sink == Self.sink)
        #expect(response === head)
        #expect(record.collected.isEmpty)
        #expect(record.receivedBytes == 2)
    }

    @Test("when a stream's head is not 2xx, should collect its body to be read as an error")
    func streamErrorBodyCollected() {
        var record = Self.record(TransferOptions(destination: .chunks(Self.sink)))
        _ = record.headArrived(Self.response(503), capacity: 0, at: 1)

        guard case .transferred = record.chunkArrived(Data("busy".utf8), limit: nil, at: 2) else {
            Issue.record("a non-2xx body of a stream should be collected, and counted for the transfer")
            return
        }
        #expect(record.destination == .memory)
        #expect(record.collected == Data("busy".utf8))
    }

    @Test("when the transfer opened its file, should hand chunks to the transfer and collect none")
    func file() {
        var record = Self.record(TransferOptions(destination: .file(Self.url, resumingAt: 0)))
        _ = record.headArrived(Self.response(200), capacity: 0, at: 1)
        record.fileOpened()

        guard
            case .transferred(_, let received) = record.chunkArrived(Data("abc".utf8), limit: nil, at: 2)
        else {
            Issue.record("a file's chunks go to the transfer")
            return
        }
        #expect(received == 3)
        #expect(record.destination == .file)
        #expect(record.collected.isEmpty)
    }

    @Test("when a file is opened for a stream's body, should keep streaming: only a collected body moves to the file")
    func fileOpenedOnlyFromMemory() {
        var record = Self.record(TransferOptions(destination: .chunks(Self.sink)))
        let head = Self.response(200)
        _ = record.headArrived(head, capacity: 0, at: 1)

        record.fileOpened()

        #expect(record.destination == .stream(head))
    }

    // MARK: The size limit

    @Test("when a chunk passes the size limit, should fail once with the limit, drop the body and every later chunk")
    func overLimit() {
        var record = Self.record()
        _ = record.headArrived(Self.response(200), capacity: 0, at: 1)
        _ = record.chunkArrived(Data(count: 6), limit: 10, at: 2)

        guard case .overLimit(10) = record.chunkArrived(Data(count: 5), limit: 10, at: 3) else {
            Issue.record("11 bytes should pass a limit of 10")
            return
        }
        #expect(record.destination == .discarded)
        #expect(record.collected.isEmpty)
        guard case .dropped = record.chunkArrived(Data(count: 1), limit: 10, at: 4) else {
            Issue.record("a chunk after the limit should be dropped")
            return
        }
        #expect(record.activity(now: 99) == 2)
    }

    @Test("when a body reaches the limit exactly, should keep it")
    func atLimit() {
        var record = Self.record()
        _ = record.headArrived(Self.response(200), capacity: 0, at: 1)

        guard case .collected = record.chunkArrived(Data(count: 10), limit: 10, at: 2) else {
            Issue.record("10 bytes are within a limit of 10")
            return
        }
        #expect(record.receivedBytes == 10)
    }

    // MARK: Activity and redirects

    @Test("when a head, body bytes sent or a redirect come, should each count as activity")
    func activity() {
        var record = Self.record()
        #expect(record.activity(now: 99) == nil)

        _ = record.bodySent(at: 5)
        #expect(record.activity(now: 99) == 5)
        _ = record.redirected(at: 6)
        #expect(record.activity(now: 99) == 6)
        _ = record.headArrived(Self.response(200), capacity: 0, at: 7)
        #expect(record.activity(now: 99) == 7)
    }

    @Test("when redirects come, should number them in the record's chain and hand out the task's policy")
    func redirects() {
        var record = Self.record(redirectPolicy: .refuse)

        let first = record.redirected(at: 1)
        let second = record.redirected(at: 2)

        #expect(first.redirects.hops == 1)
        #expect(second.redirects.hops == 2)
        #expect(record.redirects.hops == 2)
        #expect(record.redirects.caller == Self.request)
        #expect(
            first.policy.nextRequest(after: Self.response(302), next: Self.request, hopNumber: 1)
                == nil)
    }

    // MARK: A second head

    @Test("when a second head arrives before any byte, should count from zero for the new response")
    func secondHeadBeforeBytes() {
        var record = Self.record(TransferOptions(destination: .chunks(Self.sink)))
        _ = record.headArrived(Self.response(200), capacity: 0, at: 1)
        let second = Self.response(200)

        guard case .proceed = record.headArrived(second, capacity: 0, at: 2) else {
            Issue.record("a head before any byte should start the body over")
            return
        }
        guard case .streamed(_, let response, _) = record.chunkArrived(Data("ab".utf8), limit: 2, at: 3)
        else {
            Issue.record("the second body should stream")
            return
        }
        #expect(response === second, "the sink gets the response the bytes belong to")
        #expect(record.receivedBytes == 2)
    }

    @Test("when a second head arrives after a collected body, should drop it and count from zero")
    func secondHeadAfterCollectedBody() {
        var record = Self.record(collecting: "first", after: Self.response(503))
        let second = Self.response(200, headers: ["Content-Length": "2"])

        guard case .proceed = record.headArrived(second, capacity: 0, at: 3) else {
            Issue.record("a collected body is the delegate's to drop")
            return
        }
        _ = record.chunkArrived(Data("ok".utf8), limit: 4, at: 4)

        #expect(record.receivedBytes == 2)
        #expect(record.report(error: nil, response: second, sent: Self.request).data == Data("ok".utf8))
    }

    @Test("when a second head arrives after bytes were streamed, should fail rather than repeat them")
    func secondHeadAfterStreamedBytes() {
        var streamed = Self.record(TransferOptions(destination: .chunks(Self.sink)))
        _ = streamed.headArrived(Self.response(200), capacity: 0, at: 1)
        _ = streamed.chunkArrived(Data("abc".utf8), limit: nil, at: 2)
        var file = Self.record(TransferOptions(destination: .file(Self.url, resumingAt: 0)))
        _ = file.headArrived(Self.response(200), capacity: 0, at: 1)
        file.fileOpened()
        _ = file.chunkArrived(Data("ab".utf8), limit: nil, at: 2)

        guard case .restartRefused(let count) = streamed.headArrived(Self.response(200), capacity: 0, at: 3),
            case .restartRefused(let written) = file.headArrived(Self.response(200), capacity: 0, at: 3)
        else {
            Issue.record("bytes handed on cannot be taken back: the task must fail")
            return
        }
        #expect(count == 3)
        #expect(written == 2)
    }

    // MARK: The report

    @Test("when the task ends without error, should report the collected body, or none for a file")
    func reportsSuccess() {
        let head = Self.response(200, headers: ["Content-Length": "2"])
        let memory = Self.record(collecting: "ok", after: head)
        var file = Self.record(TransferOptions(destination: .file(Self.url, resumingAt: 0)))
        _ = file.headArrived(head, capacity: 0, at: 1)
        file.fileOpened()
        _ = file.chunkArrived(Data("ok".utf8), limit: nil, at: 2)

        let fromMemory = memory.report(error: nil, response: head, sent: Self.request)
        let fromFile = file.report(error: nil, response: head, sent: Self.request)

        #expect(fromMemory.data == Data("ok".utf8))
        #expect(fromMemory.response === head)
        #expect(fromMemory.error == nil)
        #expect(fromFile.data == nil)
        #expect(fromFile.response === head)
        #expect(fromFile.error == nil)
    }

    @Test("when the body is shorter than its Content-Length, should report the connection lost, with the response")
    func reportsShortBody() {
        let head = Self.response(200, headers: ["Content-Length": "10"])
        let record = Self.record(collecting: "short", after: head)

        let report = record.report(error: nil, response: head, sent: Self.request)

        #expect((report.error as? URLError)?.code == .networkConnectionLost)
        #expect(report.response === head)
        #expect(report.data == nil)
    }

    @Test("when URLSession reports an error, should report it with the response and no body")
    func reportsError() {
        var record = Self.record()
        _ = record.chunkArrived(Data("ab".utf8), limit: nil, at: 2)

        let report = record.report(error: URLError(.timedOut), response: nil, sent: Self.request)

        #expect((report.error as? URLError)?.code == .timedOut)
        #expect(report.data == nil)
    }

    /// Counts how often the report reads the task's response and request (on Linux each read is
    /// a hop to the task's queue and a copy).
    private final class Reads {
        var response = 0
        var request = 0
        func response(_ value: URLResponse?) -> URLResponse? {
            response += 1
            return value
        }
        func request(_ value: URLRequest?) -> URLRequest? {
            request += 1
            return value
        }
    }

    @Test(
        "when the task ends without error after a head, should report that head and read neither the task's response nor its request"
    )
    func reportsHeadWithoutReadingTheTask() {
        let head = Self.response(200, headers: ["Content-Length": "2"])
        let record = Self.record(collecting: "ok", after: head)
        let reads = Reads()

        let report = record.report(
            error: nil, response: reads.response(Self.response(500)), sent: reads.request(Self.request))

        #expect(report.response === head)
        #expect(report.data == Data("ok".utf8))
        #expect(report.error == nil)
        #expect(reads.response == 0 && reads.request == 0)
    }

    @Test("when a body falls short of its head's Content-Length, should read the request (a HEAD has no body) and fail")
    func readsRequestOnlyForShortBody() {
        let head = Self.response(200, headers: ["Content-Length": "5"])
        let reads = Reads()
        var headRequest = Self.request
        headRequest.httpMethod = "HEAD"

        let short = Self.record(collecting: "ok", after: head).report(
            error: nil, response: nil, sent: reads.request(Self.request))
        let answeredHead = Self.record(collecting: "", after: head).report(
            error: nil, response: nil, sent: reads.request(headRequest))

        #expect((short.error as? URLError)?.code == .networkConnectionLost)
        #expect(answeredHead.error == nil)
        #expect(reads.request == 2)
    }

    @Test(
        "when the task ends with an error, or after a redirect or with no head, should report the task's own response")
    func reportsTaskResponseWhenTheHeadIsNotIt() {
        let head = Self.response(200)
        let taskResponse = Self.response(401)
        let redirect = Self.response(302, headers: ["Location": "/elsewhere"])

        let failed = Self.record(collecting: "o", after: head).report(
            error: URLError(.networkConnectionLost), response: taskResponse, sent: Self.request)
        var redirected = Self.record(collecting: "o", after: head)
        _ = redirected.redirected(at: 3)
        let refusedRedirect = redirected.report(error: nil, response: redirect, sent: Self.request)
        let headless = Self.record().report(error: nil, response: redirect, sent: Self.request)

        #expect(failed.response === taskResponse)
        #expect(refusedRedirect.response === redirect)
        #expect(headless.response === redirect)
    }

    @Test(
        "when an informational head was the last the delegate got, should report the response the task ended with",
        arguments: [100, 103])
    func reportsTaskResponseAfterInformationalHead(status: Int) {
        // Linux's URLSession hands the delegate a 1xx head, then ends the task with a 3xx it
        // could not follow (no Location) without handing that head on: task.response is the 3xx.
        var record = Self.record()
        _ = record.headArrived(Self.response(status, headers: ["Link": "</a.css>"]), capacity: 0, at: 1)
        let redirect = Self.response(302)

        let report = record.report(error: nil, response: redirect, sent: Self.request)

        #expect((report.response as? HTTPURLResponse)?.statusCode == 302)
        #expect(report.response === redirect)
        #expect(report.error == nil)
    }

    @Test("when the server was not trusted, should report an untrusted certificate whatever URLSession says")
    func reportsUntrustedServer() {
        var record = Self.record()
        record.refuse(.untrustedServer)

        let report = record.report(error: URLError(.cancelled), response: Self.response(200), sent: Self.request)

        #expect((report.error as? URLError)?.code == .serverCertificateUntrusted)
        #expect(report.response == nil)
        #expect(report.data == nil)
    }

    @Test("when a neighbour of a refused origin ends cancelled, should report untrusted")
    func reportsNeighbourOfRefusedOrigin() {
        let pinned = URLRequest(url: URL(string: "https://Example.test/neighbour")!)
        var refusals = TrustRefusals()
        refusals.refused(TrustRefusals.origin(host: "example.test", port: 443, scheme: "https"))

        let report = Self.record().report(
            error: URLError(.cancelled), response: nil, sent: pinned, refusals: refusals)

        #expect((report.error as? URLError)?.code == .serverCertificateUntrusted)
        #expect(
            NetworkError(report.error ?? URLError(.unknown)) == .secureConnectionFailed(.serverCertificateUntrusted))
    }

    @Test("when a task of a refused origin was answered, or ends otherwise, or goes elsewhere, should keep its outcome")
    func keepsOutcomeBesideRefusedOrigin() {
        let pinned = URLRequest(url: URL(string: "https://example.test/neighbour")!)
        let elsewhere = URLRequest(url: URL(string: "https://example.test:8443/other")!)
        var refusals = TrustRefusals()
        refusals.refused(TrustRefusals.origin(of: pinned.url))
        let head = Self.response(200)

        let answered = Self.record(collecting: "ok", after: head).report(
            error: URLError(.cancelled), response: head, sent: pinned, refusals: refusals)
        let timedOut = Self.record().report(
            error: URLError(.timedOut), response: nil, sent: pinned, refusals: refusals)
        let otherPort = Self.record().report(
            error: URLError(.cancelled), response: nil, sent: elsewhere, refusals: refusals)

        #expect((answered.error as? URLError)?.code == .cancelled)
        #expect((timedOut.error as? URLError)?.code == .timedOut)
        #expect((otherPort.error as? URLError)?.code == .cancelled)
    }

    @Test("when the record is made, should keep the source of the body stream the builder made, and none otherwise")
    func keepsBodySource() throws {
        var request = Self.request
        request.httpBodyStream = try BodyStreams.makeStream(
            from: BodyStreamSource(length: 4, makeStream: { InputStream(data: Data("body".utf8)) }))
        var other = Self.request
        other.httpBodyStream = InputStream(data: Data("unknown".utf8))

        let record = TransportTaskRecord(
            request: request, completionHandler: { _, _, _ in }, redirectPolicy: .follow,
            timeout: nil, transfer: nil)
        let unknown = TransportTaskRecord(
            request: other, completionHandler: { _, _, _ in }, redirectPolicy: .follow,
            timeout: nil, transfer: nil)

        #expect(record.bodySource?.length == 4)
        #expect(unknown.bodySource == nil)
    }

    @Test("when a redirect policy chose another body of the builder's, should make fresh streams of that one")
    func bodySourceFollowsPolicyChoice() throws {
        func source(_ text: String) -> BodyStreamSource {
            BodyStreamSource(length: Int64(text.utf8.count), makeStream: { InputStream(data: Data(text.utf8)) })
        }
        var request = Self.request
        request.httpBodyStream = try BodyStreams.makeStream(from: source("first"))
        var record = TransportTaskRecord(
            request: request, completionHandler: { _, _, _ in }, redirectPolicy: .follow,
            timeout: nil, transfer: nil)
        var chosen = Self.request
        chosen.httpBodyStream = try BodyStreams.makeStream(from: source("second body"))
        var copied = chosen
        copied.httpBodyStream = InputStream(data: Data("URLSession's copy".utf8))
        defer {
            for sent in [request, chosen] { sent.httpBodyStream.map(BodyStreams.release) }
        }

        record.followed(chosen, as: record.redirects.proposal(after: 307, proposed: chosen))
        let afterChoice = record.bodySource?.length
        record.followed(copied, as: record.redirects.proposal(after: 307, proposed: copied))

        #expect(afterChoice == 11)
        #expect(record.bodySource?.length == 11, "a stream the framework does not know keeps the source")
    }

    @Test("when a challenge was declined after a 401, should report the 401 and its body instead of the cancel")
    func reportsDeclinedChallenge() {
        let head = Self.response(401)
        var record = Self.record(collecting: "denied", after: head)
        record.refuse(.declinedChallenge)

        let report = record.report(error: URLError(.cancelled), response: head, sent: Self.request)

        #expect(report.error == nil)
        #expect(report.response === head)
        #expect(report.data == Data("denied".utf8))
    }

    @Test("when a challenge was declined before any response, should report what URLSession says")
    func reportsDeclinedChallengeWithoutResponse() {
        var record = Self.record()
        record.refuse(.declinedChallenge)

        let report = record.report(error: URLError(.cancelled), response: nil, sent: Self.request)

        #expect((report.error as? URLError)?.code == .cancelled)
    }

    // MARK: Phases: (phase, event) in the delegate's table

    /// Tasks of a session that is never resumed: nothing is sent, the table only reads their
    /// identifiers.
    private static let session = URLSession(configuration: .ephemeral)
    private static func dataTask() -> URLSessionDataTask { session.dataTask(with: request) }

    /// A table holding one record brought to `phase`: created, resumed, running (in the task
    /// returned) or finished (taken out).
    private static func table(in phase: String) -> (table: TransportTaskTable, key: Int, task: URLSessionDataTask) {
        var table = TransportTaskTable()
        let key = table.add(record())
        let task = dataTask()
        if phase != "created" { _ = table.resume(key) }
        if phase == "running" || phase == "finished" { #expect(table.start(key, in: task) != nil) }
        if phase == "finished" { #expect(table.remove(key: key) != nil) }
        return (table, key, task)
    }

    @Test("when a task is created, should resume once with the caller's request, not start, and report on cancel")
    func created() {
        var (table, key, task) = Self.table(in: "created")
        #expect(table.start(key, in: task) == nil, "a task not resumed never runs")
        #expect(table.resume(key)?.url == Self.url)
        #expect(table.resume(key) == nil, "resumed once")

        var cancelled = Self.table(in: "created")
        guard case .created? = cancelled.table.remove(key: cancelled.key)?.phase else {
            Issue.record("a created task's cancel should take its record")
            return
        }
        #expect(cancelled.table.resume(cancelled.key) == nil, "a cancelled task is never resumed")
    }

    @Test("when a task is resumed, should start in its data task once, and be found by its identifier")
    func resumed() {
        var (table, key, task) = Self.table(in: "resumed")
        #expect(table.resume(key) == nil)
        #expect(table.modify(task: task.taskIdentifier) { $0.phase } == nil, "no task runs it yet")
        #expect(table.start(key, in: task) != nil)
        guard case .running(let running)? = table.modify(task: task.taskIdentifier, { $0.phase }), running === task
        else {
            Issue.record("a resumed task should run in its data task")
            return
        }
        #expect(table.modify(task: task.taskIdentifier) { $0.phase } != nil)
        #expect(table.start(key, in: Self.dataTask()) == nil, "started once")
    }

    @Test("when a running task is sent again after a 307, should move to the new task, and the old one find nothing")
    func movedAfterRedirect() {
        var (table, key, task) = Self.table(in: "running")
        let replacement = Self.dataTask()
        var next = URLRequest(url: URL(string: "http://127.0.0.1/next")!)
        next.httpMethod = "PUT"
        let proposal = RedirectChain(caller: Self.request).proposal(after: 307, proposed: next)

        let moved = table.move(from: task.taskIdentifier, to: replacement, sending: next, as: proposal)

        #expect(moved != nil)
        guard case .running(let running)? = table.modify(task: replacement.taskIdentifier, { $0.phase }),
            running === replacement
        else {
            Issue.record("the record should run in the replacement")
            return
        }
        #expect(table.modify(task: replacement.taskIdentifier) { $0.redirects.answered.url } == next.url)
        #expect(table.modify(task: task.taskIdentifier) { $0.phase } == nil, "the old task finds no record")
        guard case .running(let cancelled)? = table.remove(key: key)?.phase, cancelled === replacement else {
            Issue.record("a cancel after the move should stop the replacement")
            return
        }
        #expect(table.modify(task: replacement.taskIdentifier) { $0.phase } == nil)
    }

    @Test("when a running task finishes either way, should hand its record out once, found by neither key nor task")
    func finishedOnce() {
        for byKey in [true, false] {
            var (table, key, task) = Self.table(in: "running")
            let first = byKey ? table.remove(key: key) : table.remove(task: task.taskIdentifier)
            #expect(first != nil)
            #expect(table.remove(key: key) == nil)
            #expect(table.remove(task: task.taskIdentifier) == nil)
            #expect(table.modify(task: task.taskIdentifier) { $0.phase } == nil)
        }
    }

    @Test("when a task has finished, should answer no event")
    func finished() {
        var (table, key, task) = Self.table(in: "finished")
        let proposal = RedirectChain(caller: Self.request).proposal(after: 307, proposed: Self.request)

        #expect(table.resume(key) == nil)
        #expect(table.start(key, in: Self.dataTask()) == nil)
        #expect(table.move(from: task.taskIdentifier, to: Self.dataTask(), sending: Self.request, as: proposal) == nil)
        #expect(table.modify(task: task.taskIdentifier) { _ in true } == nil)
        #expect(table.remove(key: key) == nil)
        #expect(table.remove(task: task.taskIdentifier) == nil)
    }

    @Test("when the caller's task is released, should drop its record only if it was never resumed")
    func discarded() {
        for phase in ["created", "resumed", "running"] {
            var (table, key, _) = Self.table(in: phase)
            table.discard(key)
            #expect((table.remove(key: key) == nil) == (phase == "created"), "\(phase)")
        }
    }
}
