import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One background transfer as the ledger writes it down once it is handed to the system: what
/// is needed to recognise its task after a relaunch, place its file, judge its response and
/// report it to the app. The request's header fields are not written down (they may hold
/// credentials): after a relaunch the actions see the request's URL and method only.
struct BackgroundTransferRecord: Codable, Equatable, Sendable {
    enum Kind: Codable, Equatable, Sendable {
        /// An upload of the file at this URL.
        case upload(file: URL)
        /// A download to ``DownloadDestination``'s URL, with its two choices.
        case download(destination: URL, replacesExistingFile: Bool, createsFolders: Bool)

        var isDownload: Bool {
            if case .download = self { true } else { false }
        }

        /// The destination of a download; `nil` for an upload.
        var destination: DownloadDestination? {
            guard case .download(let url, let replaces, let creates) = self else { return nil }
            return DownloadDestination(url, replacesExistingFile: replaces, createsFolders: creates)
        }
    }

    enum Phase: Codable, Equatable, Sendable {
        /// Handed to the system, which has not said how it ended.
        case sent
        /// Ended, and not yet reported to the app.
        case finished(BackgroundTransferOutcome)
    }

    /// The app's ID of the transfer.
    let id: String
    /// Names the system's task of this transfer (its `taskDescription`): new for every transfer,
    /// so that a late event of an earlier transfer with the same ID is not taken for this one's.
    let token: String
    let kind: Kind
    /// The request's acceptable status codes, as ``AcceptableStatusCodes/closedRanges``.
    let acceptableStatusCodes: [ClosedRange<Int>]
    /// The request's URL and method, as sent.
    let url: URL?
    let method: String
    /// The ``ActionContext/requestID`` and ``ActionContext/sequenceNumber`` of the transfer.
    let requestID: UUID
    let sequenceNumber: Int
    /// When the app asked for the transfer, and when it was handed to the system.
    let startDate: Date
    let sentDate: Date
    var phase: Phase
    /// Whether the request sent held credential header fields: its resume data would hold them
    /// too, so none is kept. Optional, so that a file without it reads as before.
    var carriesCredentials: Bool? = nil

    /// The request as the actions see it after a relaunch: URL and method.
    var request: URLRequest {
        var request = URLRequest(url: url ?? URL(fileURLWithPath: "/"))
        request.httpMethod = method
        return request
    }

    /// The outcome, once finished.
    var outcome: BackgroundTransferOutcome? {
        if case .finished(let outcome) = phase { outcome } else { nil }
    }
}
