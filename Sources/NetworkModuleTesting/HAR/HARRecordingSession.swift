import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `NetworkSession` that sends every request through another session and writes the
/// traffic down as a HAR 1.2 archive, the format browsers' developer tools open, so a team
/// can record once against a real backend and replay in CI with ``HARReplaySession``.
///
/// ```swift
/// let recorder = HARRecordingSession(wrapping: URLSessionTransport.shared,
///                                    redaction: .default.adding(headers: ["X-API-Key"]))
/// let module = DefaultNetworkModule(requestBuilder: builder, session: recorder)
/// // … run the scenario …
/// try recorder.write(to: URL(fileURLWithPath: "Fixtures/checkout.har"))
/// ```
///
/// - Secrets are masked with `redaction`, as the logging action masks them: header values
///   (`Authorization`, cookies, API-key headers, the authentication actions' headers and the
///   names you add), query item values (in the URL and in `queryString` alike), and the
///   secret fields of JSON and form bodies, in requests and responses (a token endpoint's
///   `access_token`, a login's `password`). Other bodies are written as they are: record with
///   test accounts. With `matchingBodies: true`, replay masks a request's body the same
///   way before comparing it.
/// - Bodies that are not UTF-8 text are written in base64 (`content.encoding` for
///   responses, `postData._encoding` for requests). A body given as a stream (a file, a stream,
///   a large multipart form) is not read (a stream can be read once only): its `postData` has
///   its type and a `comment` saying it was skipped, and `bodySize` its length when known.
/// - A request that fails without a response is written with status `0` and the error in
///   `_error` and `_urlErrorCode`, so replay fails it the same way. Cancelled requests are
///   not written.
/// - Entries are in the order the requests were made; a request still in flight when the
///   archive is written is left out.
///
/// Thread-safe.
public final class HARRecordingSession: NetworkSession, TransferringSession {
    private struct Recorded {
        let order: Int
        let entry: HARArchive.Entry
    }

    private struct State {
        var nextOrder = 0
        var recorded: [Recorded] = []
    }

    /// The session that sends the requests.
    let wrappedSession: any NetworkSession
    /// Which header, query and body values are masked in the archive.
    let redaction: Redaction
    /// ``wrappedSession``, as the recorder sends on it.
    private let transferring: any TransferringSession

    private let state = LockedState(State())

    /// Creates a recorder in front of `session`.
    ///
    /// - Parameters:
    ///   - session: sends the requests; its answers are passed on unchanged.
    ///   - redaction: masks secrets in what is written; `Redaction.default` masks credential
    ///     headers, and secret query items and body fields (see `Redaction`).
    public init(wrapping session: some NetworkSession, redaction: Redaction = .default) {
        self.wrappedSession = session
        self.transferring = session.transferring
        self.redaction = redaction
    }

    /// How many exchanges are recorded so far.
    public var entryCount: Int {
        state.withLock { $0.recorded.count }
    }

    /// The archive so far, as HAR 1.2 JSON (pretty-printed, keys sorted).
    ///
    /// - Throws: an `EncodingError` if the archive cannot be encoded.
    public func harData() throws -> Data {
        let entries = state.withLock { $0.recorded }.sorted { $0.order < $1.order }.map(\.entry)
        let archive = HARArchive(
            log: HARArchive.Log(
                version: "1.2", creator: HARArchive.Creator(name: "NetworkModuleTesting", version: "1.0"),
                entries: entries))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(archive)
    }

    /// Writes the archive so far to `fileURL`, replacing the file if there is one.
    ///
    /// - Throws: the error of encoding or of writing the file.
    public func write(to fileURL: URL) throws {
        try harData().write(to: fileURL, options: .atomic)
    }

    /// Sends `request` through the wrapped session, records the exchange when it completes, then
    /// passes the answer on unchanged, with the transfer's redirect policy passed on to the
    /// wrapped session. The entry records the request as sent and the response that ended it (the
    /// final one of followed redirects, or the `3xx` a policy stopped at), with its whole body;
    /// the transfer's destination and progress are applied to that body once recorded.
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        let completionHandler = transfer.appliedToWholeBody(of: request, completionHandler: completionHandler)
        let order = state.withLock { state in
            defer { state.nextOrder += 1 }
            return state.nextOrder
        }
        let startedAt = Date()
        let started = DispatchTime.now().uptimeNanoseconds
        return transferring.transferTask(
            with: request,
            transfer: TransferOptions(redirectPolicy: transfer.redirectPolicy, recorder: transfer.recorder)
        ) {
            [redaction, state] data, response, error in
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            if !Self.isCancellation(error) {
                let entry = HAREntryWriter(redaction: redaction).entry(
                    request: request, data: data, response: response, error: error, startedAt: startedAt,
                    milliseconds: milliseconds)
                state.withLock { $0.recorded.append(Recorded(order: order, entry: entry)) }
            }
            completionHandler(data, response, error)
        }
    }

    /// Forwards to the wrapped session: the recorder shares no calls.
    package func stopSharingCallsInFlight() {
        transferring.stopSharingCallsInFlight()
    }

    /// The wrapped session's: the recorder sends on it unchanged, so background transfers made on a
    /// recorded module keep the transport's pins.
    package var underlyingTransport: URLSessionTransport? { transferring.underlyingTransport }

    private static func isCancellation(_ error: (any Error)?) -> Bool {
        guard let error else { return false }
        return (error as? NetworkError) == .cancelled || isURLCancellation(error as NSError)
    }
}
