import Foundation

/// The files of one background session's ledger, in a folder of its own: the ledger
/// (`transfers.json`) and the resume data of interrupted downloads (`resume-<hash>.data`, one
/// per transfer ID).
///
/// Every file operation of a ledger step goes through one call, ``apply(_:)``, under one lock:
/// resume data is written, the snapshot saved, and every resume data file that the newest
/// saved ledger does not name is removed (the sweep), so that steps whose file work runs in
/// another order than the ledger's never leave a file that no entry names (it holds the
/// request's header fields).
///
/// Every write replaces its file in one step (written aside, then renamed), so a crash leaves the
/// old file or the new one, never half of one. On Apple platforms with data protection the files
/// stay readable after the first unlock, for a relaunch in the background while the device is
/// locked; and the folder is excluded from backups: its task names and resume data mean nothing
/// on another device, and the resume data holds the request's header fields.
final class BackgroundTransferStore: Sendable {
    /// The folder.
    let directory: URL

    /// What ``load()`` found.
    enum LedgerLoad: Equatable, Sendable {
        /// The ledger as saved.
        case loaded(BackgroundTransferLedger.Persisted)
        /// No ledger file: nothing was saved yet.
        case none
        /// A file is there that cannot be read (locked by data protection before the first
        /// unlock, say): it is left as it is, and no ledger is saved over it until it can be read.
        case blocked
        /// A file that is not a ledger (or of another version): moved aside
        /// (`transfers.json.unreadable`); the transfers it named cannot be recognised any more.
        case damaged

        /// What was read, if the file was read or there was none.
        var persisted: BackgroundTransferLedger.Persisted? {
            switch self {
            case .loaded(let persisted): persisted
            case .none: BackgroundTransferLedger.Persisted()
            case .blocked, .damaged: nil
            }
        }
    }

    private struct Saving {
        /// The number of the last snapshot saved.
        var number = 0
        /// The number of the newest snapshot a save was tried for, saved or not. An older one is
        /// never written after it: it would bring back on disk what the newer one removed (a
        /// transfer reported since).
        var tried = 0
        /// The IDs of the transfers the newest ledger saved (or read) names.
        var transfers: Set<String> = []
        /// A ledger is on disk that could not be read (locked by data protection, say): it is
        /// not overwritten, so that its transfers are reported once it can be read.
        var isBlocked = false
        /// The IDs whose resume data the newest ledger saved (or read) names; `nil` until a
        /// ledger was read, or while it cannot be: then no resume data is written or swept.
        var named: Set<String>?
    }

    /// The lock orders every file operation: a snapshot older than the one on disk is never
    /// written over it, and resume data is written and swept against the newest one.
    private let saving = LockedState(Saving())
    /// Writes a file in one step; a test's seam to fail writes.
    private let writeFile: @Sendable (Data, URL) -> Bool

    /// A store in `directory`; `write` replaces ``write(_:to:)`` (tests fail writes with it).
    init(directory: URL, write: (@Sendable (Data, URL) -> Bool)? = nil) {
        self.directory = directory
        self.writeFile = write ?? { Self.write($0, to: $1) }
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

    /// Reads the ledger (see ``LedgerLoad``); a file that cannot be read blocks every save until
    /// a later `load()` reads it. Once a ledger is read (or there is none, or it was damaged),
    /// the resume data that it does not name is removed.
    func load() -> LedgerLoad {
        saving.withLock { saving in
            let data: Data
            do {
                data = try Data(contentsOf: ledgerURL)
            } catch {
                guard FileManager.default.fileExists(atPath: ledgerURL.path) else {
                    read(nil, into: &saving)
                    return .none
                }
                saving.isBlocked = true
                saving.named = nil
                return .blocked
            }
            do {
                let persisted = try JSONDecoder().decode(BackgroundTransferLedger.Persisted.self, from: data)
                guard persisted.version == 1 else { throw CocoaError(.fileReadCorruptFile) }
                read(persisted, into: &saving)
                return .loaded(persisted)
            } catch {
                let aside = directory.appendingPathComponent("transfers.json.unreadable")
                try? FileManager.default.removeItem(at: aside)
                try? FileManager.default.moveItem(at: ledgerURL, to: aside)
                read(nil, into: &saving)
                return .damaged
            }
        }
    }

    /// Performs the file work of `step`, in one go under the lock: writes its resume data (when
    /// its snapshot is the newest, or the newest saved names the ID), saves its snapshot unless
    /// a newer one is saved already, then removes every resume data file the newest saved
    /// ledger does not name. Returns `false` when the snapshot could not be written (a full
    /// disk), or must not be (a ledger there that cannot be read): the ledger on disk is then
    /// the last one written.
    @discardableResult
    func apply(_ step: BackgroundTransferLedger.Step) -> Bool {
        guard step.snapshot != nil || !step.resumeDataToWrite.isEmpty || !step.resumeDataToRemove.isEmpty else {
            return true
        }
        return saving.withLock { apply(step, &$0) }
    }

    private func apply(_ step: BackgroundTransferLedger.Step, _ saving: inout Saving) -> Bool {
        let isNewest = step.snapshot.map { $0.number > saving.number } ?? false
        if let named = saving.named {
            for (id, data) in step.resumeDataToWrite where isNewest || named.contains(id) {
                _ = writeFile(data, resumeDataURL(for: id))
            }
        }
        let saved = step.snapshot.map { save($0, &saving) } ?? true
        sweep(saving.named)
        return saved
    }

    /// Performs the file work of `step`, which reports transfer `id` (see ``apply(_:)``), and
    /// returns whether the ledger on disk no longer names it: the step was saved, or no saved
    /// ledger named it, and none that does can be saved after this step's (the app may be told).
    func applyReport(_ step: BackgroundTransferLedger.Step, of id: String) -> Bool {
        saving.withLock { saving in
            let saved = apply(step, &saving)
            return saved || !saving.transfers.contains(id)
        }
    }

    /// Saves `snapshot` unless a newer one is saved already; a test's shortcut to
    /// ``apply(_:)`` with a step of only a snapshot.
    @discardableResult
    func save(_ snapshot: BackgroundTransferLedger.Snapshot) -> Bool {
        var step = BackgroundTransferLedger.Step()
        step.snapshot = snapshot
        return apply(step)
    }

    private func save(_ snapshot: BackgroundTransferLedger.Snapshot, _ saving: inout Saving) -> Bool {
        // A newer snapshot saved holds all this one does.
        guard snapshot.number > saving.number else { return true }
        guard snapshot.number > saving.tried else { return false }
        // Tried even when refused for a ledger that cannot be read: an older snapshot must not
        // follow it once it can be, bringing back a transfer reported meanwhile.
        saving.tried = snapshot.number
        guard !saving.isBlocked else { return false }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(snapshot.persisted), written(data, to: ledgerURL) else { return false }
        saving.number = snapshot.number
        saving.named = Set(snapshot.persisted.resumeData)
        saving.transfers = Set(snapshot.persisted.transfers.map(\.id))
        return true
    }

    /// Whether `data` is in the file at `url` once written there: a write that reports failure
    /// is read back, as it may have landed all the same (a rename that went through before an
    /// error), and a ledger must never be taken for unsaved when it is saved, or the reverse:
    /// either would report a transfer twice or never.
    private func written(_ data: Data, to url: URL) -> Bool {
        writeFile(data, url) || (try? Data(contentsOf: url)) == data
    }

    /// A ledger was read (`persisted`), or there is none to read (`nil`): saves may go on, and
    /// the resume data it does not name is swept.
    private func read(_ persisted: BackgroundTransferLedger.Persisted?, into saving: inout Saving) {
        saving.isBlocked = false
        saving.named = Set(persisted?.resumeData ?? [])
        saving.transfers = Set(persisted?.transfers.map(\.id) ?? [])
        sweep(saving.named)
    }

    /// Removes every resume data file whose ID `named` does not hold; nothing when `nil`.
    private func sweep(_ named: Set<String>?) {
        guard let named else { return }
        let kept = Set(named.map { resumeDataURL(for: $0).lastPathComponent })
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where file.hasPrefix("resume-") && file.hasSuffix(".data") && !kept.contains(file) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
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

    /// The resume data of transfer `id`, if any.
    func resumeData(for id: String) -> Data? {
        try? Data(contentsOf: resumeDataURL(for: id))
    }

    /// Where the resume data of `id` goes: named after its SHA-256, whatever characters it has.
    func resumeDataURL(for id: String) -> URL {
        directory.appendingPathComponent("resume-" + Self.hex(SHA256.hash(Data(id.utf8))) + ".data")
    }

    /// Writes `data` to `url` in one step, creating its folder (excluded from backups).
    static func write(_ data: Data, to url: URL) -> Bool {
        let directory = url.deletingLastPathComponent()
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
