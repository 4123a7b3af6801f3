import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How what the background session's delegate reports becomes an outcome, is written down, and
/// becomes the app's result: the same errors and messages as the pipeline's.
@Suite("BackgroundTransferOutcome")
struct BackgroundTransferOutcomeTests {
    typealias Outcome = BackgroundTransferOutcome
    typealias Completion = BackgroundTransferOutcome.SystemCompletion

    let url = URL(string: "https://api.example.com/v2/uploads")!
    var request: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        return request
    }

    func response(_ status: Int, headers: [String: String] = ["Content-Type": "application/json"]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    func result(_ outcome: Outcome, accepting codes: AcceptableStatusCodes = .successful)
        -> Result<NetworkResponse, NetworkError>
    {
        outcome.result(request: request, acceptableStatusCodes: codes, duration: 2)
    }

    /// The outcome after it was written to disk and read back.
    func saved(_ outcome: Outcome) throws -> Outcome {
        try JSONDecoder().decode(Outcome.self, from: JSONEncoder().encode(outcome))
    }

    @Test("when an upload is answered with an accepted status, should give the response with its reply")
    func acceptedReply() throws {
        let completion = Completion(response: response(201), bytesSent: 10, bytesReceived: 8)

        let outcome = try saved(Outcome(completion, collected: Data("{\"id\":1}".utf8), bodyTooLarge: false, limit: 5))

        let answer = try result(outcome).get()
        #expect(answer.statusCode == 201)
        #expect(answer.data == Data("{\"id\":1}".utf8))
        #expect(answer.headers["content-type"] == "application/json")
        #expect(answer.request.httpMethod == "POST")
        #expect(answer.duration == 2)
        #expect(outcome.bytesSent == 10 && outcome.bytesReceived == 8)
    }

    @Test("when the status is not accepted, should give the status error with the body the completion brings")
    func refusedStatus() throws {
        let completion = Completion(response: response(404), body: Data("missing".utf8))

        let outcome = try saved(Outcome(completion, collected: Data("ignored".utf8), bodyTooLarge: false, limit: 5))

        let error = result(outcome).error
        #expect(error?.statusCode == 404)
        #expect(error?.httpErrorResponse?.body == Data("missing".utf8))
    }

    @Test("when the request accepts another status, should judge by its codes")
    func requestsOwnCodes() throws {
        let outcome = Outcome(Completion(response: response(304)), bodyTooLarge: false, limit: 5)

        let accepted = result(outcome, accepting: [200, 304])
        let refused = result(outcome)

        #expect((try? accepted.get())?.statusCode == 304)
        #expect(refused.error?.statusCode == 304)
    }

    @Test("when the session fails, should keep its code, failing URL and message")
    func transportError() throws {
        let error = URLError(
            .timedOut,
            userInfo: [NSLocalizedDescriptionKey: "The request timed out.", NSURLErrorFailingURLErrorKey: url])

        let outcome = try saved(
            Outcome(Completion(response: response(200), error: error), bodyTooLarge: false, limit: 5))

        guard case .timedOut(let failure)? = result(outcome).error else { return #expect(Bool(false)) }
        #expect(failure.message == "The request timed out.")
        #expect(failure.failingURL == url)
    }

    @Test("when the system cancels a transfer, should say why, as a transport error rather than .cancelled")
    func systemCancelled() throws {
        let outcome = try saved(
            Outcome(Completion(error: URLError(.cancelled), cancelReason: 0), bodyTooLarge: false, limit: 5))

        let error = result(outcome).error

        #expect(error == .transportError(.cancelled))
        #expect(error != .cancelled)
        guard case .transportError(let failure)? = error else { return #expect(Bool(false)) }
        #expect(failure.message?.contains("force-quit") == true)
    }

    @Test("when the app cancelled, should give .cancelled")
    func appCancelled() throws {
        #expect(result(try saved(Outcome(.cancelled))).error == .cancelled)
    }

    @Test("when the body passed the limit, should give responseTooLarge whatever the task's error")
    func tooLarge() throws {
        let cancelled = Outcome(Completion(error: URLError(.cancelled)), bodyTooLarge: true, limit: 64)
        let reported = Outcome(
            Completion(error: NetworkError.responseTooLarge(limit: 32)), bodyTooLarge: false, limit: 64)

        #expect(result(try saved(cancelled)).error == .responseTooLarge(limit: 64))
        #expect(result(try saved(reported)).error == .responseTooLarge(limit: 32))
    }

    @Test("when there is neither a response nor an error, should give invalidResponse")
    func noResponse() throws {
        let outcome = try saved(Outcome(Completion(), bodyTooLarge: false, limit: 5))

        #expect(result(outcome).error == .invalidResponse)
    }

    @Test("when the error is another domain's, should keep its domain and code")
    func otherDomain() throws {
        let error = NSError(domain: "com.example.vpn", code: 42, userInfo: [NSLocalizedDescriptionKey: "VPN down"])

        let outcome = try saved(Outcome(Completion(error: error), bodyTooLarge: false, limit: 5))

        #expect(result(outcome).error == .underlying(NSError(domain: "com.example.vpn", code: 42)))
    }

    @Test("when a placed file cannot be moved, should give the file error with its message")
    func fileError() throws {
        let error = URLError(.cannotMoveFile, userInfo: [NSLocalizedDescriptionKey: "cannot move"])

        let outcome = try saved(
            Outcome(Completion(response: response(200), error: error), bodyTooLarge: false, limit: 5))

        #expect(result(outcome).error == .transportError(.cannotMoveFile))
    }

    @Test("when a transfer is lost, should say so with backgroundSessionWasDisconnected")
    func lost() throws {
        let error = result(try saved(.lost)).error

        #expect(error == .transportError(.backgroundSessionWasDisconnected))
        #expect(error?.transportFailure?.message?.contains("no longer had") == true)
    }

    @Test("when the system's cancel reason is known, should name it; otherwise say it gave none")
    func cancelReasons() {
        #expect(Outcome.cancelledMessage(reason: 1).contains("background updating is off"))
        #expect(Outcome.cancelledMessage(reason: 2).contains("lacked the resources"))
        #expect(Outcome.cancelledMessage(reason: nil).contains("did not give"))
    }
}
