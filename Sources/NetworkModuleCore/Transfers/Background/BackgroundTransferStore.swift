import Foundation

/// The files of one background session's ledger, in a folder of its own: the ledger
/// (`transfers.json`) and the resume data of interrupted downloads (`resume-<hash>.data`, one
/// per transfer ID).
///
/// Every write replaces its file in one step (written aside, then renamed), so a crash leaves the
/// old file or the new one, never half of one. On Apple platforms with data protection the files
/// stay readable after the first unlock, for a relaunch in the background while the device is
/// locked; and the folder is excluded from backups: its task names and resume data mean nothing
/// on another device, and the resume data holds the request's header fields.
final class BackgroundTransferStore: Sendable {
    /// The folder.
    let directory: URL
    private struct Saving {
        /// The number of the last snapshot saved.
        var number = 0
        /// A ledger is on disk that could not be read (locked by data protection, say): it is
        /// not overwritten, so that its transfers are reported at a later launch.
        var isBlocked = false
    }

    /// The lock also orders the writes of the ledger: a snapshot older than the one on disk is
    /// never written over it.
    private let saving = LockedState(Saving())

    init(directory: URL) {
        self.directory = directory
    }

    /// The folder for session `identifier` under `base`, or under Application Support's
    /// `NetworkModule/BackgroundTransfers` when `base` is `nil`: named after the identifier,
    /// with characters unfit for a file name replaced, and the start of its SHA-256 so that
    /// two identifiers never share one.
    static func directory(for identifier: String, in base: URL?) -> URL {
        let root =
            base
            ?? (FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("NetworkModule", isDirectory: true)
            .appendingPathComponent("BackgroundTransfers", isDirectory: true)
        return root.appendingPathComponent(folderName(for: identifier), isDirectory: true)
    }

    /// `identifier` fit for a file name: letters, digits, `.`, `-` and `_` kept (at most 64),
    /// anything else `_`, then `-` and 16 hexadecimal digits of its SHA-256.
    static func folderName(for identifier: String) -> String {
        let kept = identifier.unicodeScalars.prefix(64).map { scalar -> Character in
            let isSafe =
                scalar.isASCII
                && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-" || scalar == "_")
            return isSafe ? Character(scalar) : "_"
        }
        let name = String(kept)
        let prefix = name.first == "." || name.isEmpty ? "_" + name : name
        return prefix + "-" + hex(SHA256.hash(Data(identifier.utf8)).prefix(8))
    }

    private var ledgerURL: URL { directory.appendingPathComponent("transfers.json") }

    /// The ledger as saved; empty when there is none. A file that is not a ledger is moved aside
    /// (`transfers.json.unreadable`) and an empty ledger returned: the transfers it named cannot
    /// be recognised any more, and their events are dropped. A file that cannot be read at all is
    /// left as it is, and no ledger is saved over it in this process.
    func load() -> BackgroundTransferLedger.Persisted {
        let data: Data
        do {
            data = try Data(contentsOf: ledgerURL)
        } catch {
            if FileManager.default.fileExists(atPath: ledgerURL.path) {
                saving.withLock { $0.isBlocked = true }
            }
            return BackgroundTransferLedger.Persisted()
        }
        do {
            let persisted = try JSONDecoder().decode(BackgroundTransferLedger.Persisted.self, from: data)
            guard persisted.version == 1 else { throw CocoaError(.fileReadCorruptFile) }
            return persisted
        } catch {
            let aside = directory.appendingPathComponent("transfers.json.unreadable")
            try? FileManager.default.removeItem(at: aside)
            try? FileManager.default.moveItem(at: ledgerURL, to: aside)
            return BackgroundTransferLedger.Persisted()
        }
    }

    /// Saves `snapshot` unless a newer one is saved already. Returns `false` when the file could
    /// not be written (a full disk), or must not be (see ``load()``): the ledger on disk is then
    /// the last one written.
    @discardableResult
    func save(_ snapshot: BackgroundTransferLedger.Snapshot) -> Bool {
        saving.withLock { saving in
            guard !saving.isBlocked else { return false }
            guard snapshot.number > saving.number else { return true }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard let data = try? encoder.encode(snapshot.persisted), write(data, to: ledgerURL) else { return false }
            saving.number = snapshot.number
            return true
        }
    }

    /// The error of a transfer that was not sent because ``save(_:)`` failed, for `url`.
    func notSavedError(url: URL?) -> URLError {
        URLError(
            .cannotWriteToFile,
            message:
                "The background transfer could not be written down in \(directory.path) (the disk is full, or the "
                + "ledger there cannot be read), so it was not handed to the system: its result could not reach the "
                + "app after a relaunch.",
            failingURL: url)
    }

    /// Writes the resume data of transfer `id`, replacing any.
    @discardableResult
    func writeResumeData(_ data: Data, for id: String) -> Bool {
        write(data, to: resumeDataURL(for: id))
    }

    /// The resume data of transfer `id`, if any.
    func resumeData(for id: String) -> Data? {
        try? Data(contentsOf: resumeDataURL(for: id))
    }

    /// Removes the resume data of transfer `id`; harmless if there is none.
    func removeResumeData(for id: String) {
        try? FileManager.default.removeItem(at: resumeDataURL(for: id))
    }

    /// Where the resume data of `id` goes: named after its SHA-256, whatever characters it has.
    func resumeDataURL(for id: String) -> URL {
        directory.appendingPathComponent("resume-" + Self.hex(SHA256.hash(Data(id.utf8))) + ".data")
    }

    private func write(_ data: Data, to url: URL) -> Bool {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            #if canImport(Darwin)
                var values = URLResourceValues()
                values.isExcludedFromBackup = true
                var folder = directory
                try? folder.setResourceValues(values)
            #endif
            var options: Data.WritingOptions = [.atomic]
            #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
                options.insert(.completeFileProtectionUntilFirstUserAuthentication)
            #endif
            try data.write(to: url, options: options)
            return true
        } catch {
            return false
        }
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { byte in [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] })
    }
}
