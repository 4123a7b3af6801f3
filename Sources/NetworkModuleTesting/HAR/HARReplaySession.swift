import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `NetworkSession` that answers from a HAR archive instead of the network: what
/// ``HARRecordingSession`` wrote, or what a browser's developer tools saved.
///
/// ```swift
/// let replay = try HARReplaySession(contentsOf: URL(fileURLWithPath: "Fixtures/checkout.har"))
/// let module = DefaultNetworkModule(requestBuilder: builder, session: replay, completionExecutor: .immediate)
/// ```
///
/// - A request is answered by the recorded entries with the same method and URL (and the
///   same body, with `matchingBodies: true`), in the order they were
///   recorded; when they run out, the last one repeats. The URL is compared after masking
///   it with `redaction`, as it was masked when recorded, so pass the recorder's redaction.
/// - A recorded transport failure (status `0` with `_urlErrorCode`) fails again with the
///   same `URLError` code.
/// - A request with no recorded entry fails loudly, as an unmatched ``FakeNetworkSession``
///   request does: a `501` whose body names the request and the closest recorded entries,
///   the same message on standard error and to `onMiss`; the request is kept in
///   ``missedRequests``.
/// - Answers are delivered inside `resume()` (or when released, with `holdingResponses: true`),
///   with no delay: with the `.immediate` executor a replayed request completes inside
///   `perform`.
///
/// Thread-safe.
public final class HARReplaySession: NetworkSession, TransferringSession {
    private let session: FakeNetworkSession
    private let book: ReplayBook

    /// Creates a replay session from the HAR file at `fileURL`.
    ///
    /// - Parameters:
    ///   - fileURL: the HAR file to serve, as `HARRecordingSession` writes it or a browser saves it.
    ///   - matchingBodies: whether a request's body must equal the recorded one too, besides its
    ///     method and URL; `false` by default. JSON bodies are compared by value, whatever the
    ///     key order; other bodies byte for byte.
    ///   - redaction: masks the URL of each request before it is compared; use the one the
    ///     archive was recorded with.
    ///   - holdingResponses: whether answers are held until the test releases them; `false` by
    ///     default.
    ///   - onMiss: called with a message for each request that has no recorded entry.
    /// - Throws: an error whose description says what was wrong, if the file cannot be read or is not a HAR archive.
    public convenience init(
        contentsOf fileURL: URL, matchingBodies: Bool = false, redaction: Redaction = .default,
        holdingResponses: Bool = false, onMiss: (@Sendable (String) -> Void)? = nil
    ) throws {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw HARReadError(description: "cannot read \(fileURL.path): \(error)")
        }
        try self.init(
            harData: data, matchingBodies: matchingBodies, redaction: redaction, holdingResponses: holdingResponses,
            onMiss: onMiss)
    }

    /// Creates a replay session from HAR JSON, with the same options as
    /// ``init(contentsOf:matchingBodies:redaction:holdingResponses:onMiss:)``.
    ///
    /// - Throws: an error whose description says what was wrong, if `harData` is not a HAR
    ///   archive, or an entry's body is invalid base64.
    public init(
        harData: Data, matchingBodies: Bool = false, redaction: Redaction = .default,
        holdingResponses: Bool = false, onMiss: (@Sendable (String) -> Void)? = nil
    ) throws {
        let archive: HARArchive
        do {
            archive = try JSONDecoder().decode(HARArchive.self, from: harData)
        } catch {
            throw HARReadError(description: "not a HAR archive: \(error)")
        }
        book = try ReplayBook(archive: archive, matchingBodies: matchingBodies, redaction: redaction, onMiss: onMiss)
        session = FakeNetworkSession(holdingResponses: holdingResponses)
        session.stub(RequestMatcher("an entry of the HAR archive") { _ in true }) { [book] request in
            book.answer(for: request)
        }
    }

    /// How many entries the archive holds.
    public var entryCount: Int {
        book.entryCount
    }

    /// The requests that had no recorded entry, in order.
    public var missedRequests: [URLRequest] {
        book.missedRequests
    }

    /// Every request the session was asked to send, in order.
    public var recordedRequests: [URLRequest] {
        session.recordedRequests
    }

    /// How many answers are held, with `holdingResponses: true`.
    public var heldCount: Int {
        session.heldCount
    }

    /// Delivers the oldest held answer, with `holdingResponses: true`; returns `false` if none was held.
    @discardableResult
    public func releaseNext() -> Bool {
        session.releaseNext()
    }

    /// Delivers every held answer, oldest first.
    public func releaseAll() {
        session.releaseAll()
    }

    /// Answers `request` with the recorded response, whatever the transfer's redirect policy: a
    /// recording holds the response that ended each request (the end of followed redirects, or
    /// the `3xx` a policy stopped at), so record with the policy the request uses.
    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        var transfer = transfer
        transfer.redirectPolicy = .follow
        return session.transferTask(with: request, transfer: transfer, completionHandler: completionHandler)
    }
}

/// Why a HAR archive could not be loaded.
struct HARReadError: Error, CustomStringConvertible, Equatable {
    /// What was wrong.
    let description: String
}
