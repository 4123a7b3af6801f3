import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The file of one download over all its attempts: a hidden partial file beside the
/// destination, which each attempt writes to (resuming what the last one left when the server
/// said how to check it), moved to the destination on success and removed otherwise.
///
/// Its state is one value behind one lock: the operation's attempts and the caller's cancel
/// reach it from any thread.
final class DownloadFile: Sendable {
    /// What the next attempt sends and writes.
    struct Attempt: Equatable {
        /// Where the session writes the body.
        let partialURL: URL
        /// The bytes kept from earlier attempts; `0` to start over.
        let resumingAt: Int64
        /// The `If-Range` validator that goes with a `Range` request; `nil` when starting over.
        let validator: String?
    }

    private struct State {
        /// Set by the first attempt, once the destination is checked.
        var partialURL: URL?
        /// The validator of the last response that wrote to the partial file.
        var validator: String?
        /// The download has ended: the partial file is gone or moved.
        var isFinished = false
        /// Where the attempt in flight resumes.
        var resumingAt: Int64 = 0
    }

    let destination: DownloadDestination
    private let state = LockedState(State())

    init(destination: DownloadDestination) {
        self.destination = destination
    }

    /// Checks the destination on the first attempt, and says what this attempt sends and writes.
    /// An attempt that may not resume (its request asks for a range of its own, which a resume
    /// would replace) starts the file over.
    func beginAttempt(resumable: Bool = true) throws(URLError) -> Attempt {
        let known = state.withLock { ($0.partialURL, $0.validator) }
        let attempt: Attempt
        if let partialURL = known.0 {
            let kept = known.1 == nil || !resumable ? 0 : Self.size(of: partialURL)
            attempt = Attempt(partialURL: partialURL, resumingAt: kept, validator: kept > 0 ? known.1 : nil)
        } else {
            attempt = Attempt(partialURL: try preparedPartialURL(), resumingAt: 0, validator: nil)
        }
        state.withLock { state in
            state.partialURL = attempt.partialURL
            state.resumingAt = attempt.resumingAt
        }
        return attempt
    }

    /// An attempt ended with `response` (if any): remembers how the next one may resume, and
    /// removes the partial file if the download ended meanwhile (a session that completes after
    /// a cancel may have written it). Returns the body bytes the attempt wrote to the file.
    func attemptEnded(response: URLResponse?) -> Int64 {
        let response = response as? HTTPURLResponse
        let validator = response.flatMap(Self.validator(of:))
        let wroteFile = response.map { AcceptableStatusCodes.successful.contains($0.statusCode) } ?? false
        let partialURL = state.withLock { $0.partialURL }
        let size = wroteFile ? partialURL.map(Self.size(of:)) ?? 0 : 0
        let (written, removeNow) = state.withLock { state -> (Int64, URL?) in
            var written: Int64 = 0
            if wroteFile {
                state.validator = validator
                let kept = response?.statusCode == 206 ? state.resumingAt : 0
                written = max(0, size - kept)
            }
            return (written, state.isFinished ? state.partialURL : nil)
        }
        if let removeNow { Self.remove(removeNow) }
        return written
    }

    /// Moves the body of `response` to the destination and returns the download's result.
    func place(_ response: NetworkResponse) -> Result<DownloadResponse, NetworkError> {
        guard let partialURL = finish() else {
            return .failure(
                NetworkError(
                    TransferFile.error(
                        .cannotMoveFile, "the download has no file to move", url: destination.url, errno: nil)))
        }
        do throws(URLError) {
            let status = response.statusCode
            if !AcceptableStatusCodes.successful.contains(status)
                || !FileManager.default.fileExists(atPath: partialURL.path)
            {
                // The session wrote no file (a status outside 2xx made acceptable, or a session
                // that ignored the destination): the body in memory is the download.
                try TransferFile(url: partialURL, keeping: 0).write(response.data)
            }
            try checkWhole(partialURL, for: response.httpResponse)
            try move(partialURL, to: destination.url)
        } catch {
            Self.remove(partialURL)
            return .failure(NetworkError(error))
        }
        let emptied = NetworkResponse(
            data: Data(), httpResponse: response.httpResponse, request: response.request, duration: response.duration)
        return .success(DownloadResponse(fileURL: destination.url, response: emptied))
    }

    /// Moves `file`, a whole body that another session downloaded (a background download's), to
    /// the destination: checked, its folders created, and an existing file replaced, as for any
    /// download; the file goes beside the destination first, so the last step is a rename on one
    /// volume. On failure nothing is left at or beside the destination, and `file` may be gone.
    func adopt(_ file: URL) throws(URLError) {
        let attempt = try beginAttempt()
        do {
            try FileManager.default.moveItem(at: file, to: attempt.partialURL)
        } catch {
            discard()
            throw TransferFile.error(
                .cannotMoveFile,
                "cannot move the downloaded file beside the destination (\(error.localizedDescription))",
                url: destination.url, errno: nil)
        }
        guard let partialURL = finish() else {
            throw TransferFile.error(
                .cannotMoveFile, "the download has no file to move", url: destination.url, errno: nil)
        }
        do throws(URLError) {
            try move(partialURL, to: destination.url)
        } catch {
            Self.remove(partialURL)
            throw error
        }
    }

    /// Checks that the file of a `206` holds what its `Content-Range` says: the bytes it kept and
    /// the range's, no fewer (a body cut short) and no more.
    private func checkWhole(_ partialURL: URL, for response: HTTPURLResponse) throws(URLError) {
        guard response.statusCode == 206, let range = ContentRange(of: response) else { return }
        let kept = state.withLock { $0.resumingAt }
        let (expected, overflowed) = kept.addingReportingOverflow(range.length)
        let size = Self.size(of: partialURL)
        guard overflowed || size != expected else { return }
        let total = overflowed ? "more than \(Int64.max)" : "\(expected)"
        throw ContentRange.partialContentError(
            "The file holds \(size) bytes, but the server's Content-Range bytes \(range.start)-\(range.end) after "
                + "the \(kept) bytes kept makes \(total).", response)
    }

    /// Ends the download without a file: removes whatever the attempts wrote.
    func discard() {
        if let partialURL = finish() { Self.remove(partialURL) }
    }

    /// Marks the download ended and returns its partial file, once: `nil` when it had ended
    /// already, or no attempt made one.
    private func finish() -> URL? {
        state.withLock { state in
            defer { state.isFinished = true }
            return state.isFinished ? nil : state.partialURL
        }
    }

    // MARK: - Files

    /// Checks the destination and creates its folders as it says; returns the partial file's URL.
    private func preparedPartialURL() throws(URLError) -> URL {
        let url = destination.url
        guard url.isFileURL, !url.lastPathComponent.isEmpty, url.lastPathComponent != "/" else {
            throw TransferFile.error(.cannotCreateFile, "the destination is not a file URL", url: url, errno: nil)
        }
        let folder = url.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
            if isFolder.boolValue {
                throw TransferFile.error(
                    .cannotCreateFile, "a folder is in the destination's place", url: url, errno: nil)
            }
            if !destination.replacesExistingFile {
                throw TransferFile.error(
                    .cannotCreateFile, "a file is already at the destination, which does not replace it", url: url,
                    errno: nil)
            }
        }
        if !destination.createsFolders {
            var folderIsFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &folderIsFolder),
                folderIsFolder.boolValue
            else {
                throw TransferFile.error(
                    .cannotCreateFile, "the destination's folder is missing, and the destination does not create it",
                    url: folder, errno: nil)
            }
        } else {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw TransferFile.error(
                    .cannotCreateFile, "cannot create the destination's folder (\(error.localizedDescription))",
                    url: folder, errno: nil)
            }
        }
        return folder.appendingPathComponent(Self.partialName(for: url.lastPathComponent))
    }

    /// The name of the partial file of a destination named `name`: hidden, unique (`unique`, a
    /// UUID by default), and never longer than `NAME_MAX` (255 bytes on every file system the
    /// platforms use) whatever the destination's length: the destination's name is cut, at a
    /// character boundary, to leave room for the rest.
    static func partialName(for name: String, unique: String = UUID().uuidString) -> String {
        let suffix = ".\(unique).download"
        let room = max(0, 255 - 1 - suffix.utf8.count)
        var kept = Substring(name)
        while kept.utf8.count > room { kept = kept.dropLast() }
        return "." + kept + suffix
    }

    /// Renames the partial file to the destination, in one step on one volume.
    private func move(_ partialURL: URL, to url: URL) throws(URLError) {
        if !destination.replacesExistingFile {
            do {
                try FileManager.default.moveItem(at: partialURL, to: url)
            } catch {
                throw TransferFile.error(
                    .cannotMoveFile, "cannot move the download into place (\(error.localizedDescription))", url: url,
                    errno: nil)
            }
            return
        }
        try TransferFile.rename(partialURL, to: url)
    }

    /// The size of the file at `url`; `0` when there is none.
    static func size(of url: URL) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    private static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// What `If-Range` may carry for `response` (RFC 9110 §13.1.5): a strong `ETag`, else a
    /// `Last-Modified` date; `nil` when neither (a later attempt then starts over).
    static func validator(of response: HTTPURLResponse) -> String? {
        if let etag = response.value(forHTTPHeaderField: "ETag")?.trimmingCharacters(in: .whitespaces),
            etag.hasPrefix("\""), etag.count >= 2, etag.hasSuffix("\"")
        {
            return etag
        }
        if let lastModified = response.value(forHTTPHeaderField: "Last-Modified"),
            HTTPDate.parse(lastModified, now: Date()) != nil
        {
            return lastModified
        }
        return nil
    }
}
